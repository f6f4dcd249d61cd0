import fc from 'fast-check';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { CENSORED, LOG_REDACTION, SECRET_LOG_FIELDS } from '../src/lib/log-redaction.js';

// Decision 0070: secrets are censored by a hook on every log call instead of pino's `redact` paths.
// Both are set up here on Fastify's own logger (its serializers included) and must write the same
// lines; pino's `redact` with the paths the hook stands for is the reference.

/** pino's paths for what LOG_REDACTION censors: each field at the top of a line and one level down. */
const PINO_PATHS = [...SECRET_LOG_FIELDS, ...SECRET_LOG_FIELDS.map((field) => `*.${field}`)];

function logger(options: object) {
  const lines: string[] = [];
  const stream = { write: (line: string) => lines.push(line) };
  const app = Fastify({ logger: { level: 'info', timestamp: false, base: undefined, ...options, stream } });
  return { log: app.log, lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const KEYS = [...SECRET_LOG_FIELDS, 'agent', 'call', 'id', 'headers', 'value'];
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const { tree } = fc.letrec((t) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(t('tree'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), t('tree'), { maxKeys: 4 }),
  ),
}));
const fields = fc.dictionary(fc.constantFrom(...KEYS), tree, { maxKeys: 5 });

describe('log redaction (decision 0070)', () => {
  it('writes what pino would write with redact paths for the same fields, never changing what was logged', () => {
    fc.assert(
      fc.property(fields, fields, (logged, formatted) => {
        const before = JSON.stringify([logged, formatted]);
        const ours = logger(LOG_REDACTION);
        const pinos = logger({ redact: PINO_PATHS });
        for (const { log } of [ours, pinos]) {
          log.info(logged, 'a line');
          log.info(logged);
          log.warn('formatted %j and %o', formatted, logged);
        }
        expect(ours.lines()).toEqual(pinos.lines());
        expect(JSON.stringify([logged, formatted])).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('censors an Error logged alone, keeping what its serializer writes', () => {
    const ours = logger(LOG_REDACTION);
    const error = Object.assign(new Error('boom'), { apiSecret: 'sk_live_1', code: 'E1' });
    ours.log.error(error);
    const [line] = ours.lines();
    expect(line?.err).toMatchObject({ type: 'Error', message: 'boom', code: 'E1', apiSecret: CENSORED });
    expect(String((line?.err as { stack?: string } | undefined)?.stack)).toContain('boom');
    expect(line?.msg).toBe('boom');
    expect(error.apiSecret).toBe('sk_live_1');
  });

  it('censors the bindings a logger is made with', () => {
    const ours = logger({ ...LOG_REDACTION, base: { service: { password: 'hunter2', name: 'x' } } });
    ours.log.info('started');
    expect(ours.lines()[0]?.service).toEqual({ password: CENSORED, name: 'x' });
  });

  it('leaves a line without a secret as it is, and a request line without its headers', async () => {
    const lines: string[] = [];
    const app = Fastify({
      logger: { level: 'info', ...LOG_REDACTION, stream: { write: (l: string) => lines.push(l) } },
    });
    app.get('/', async () => ({ ok: true }));
    const response = await app.inject({ url: '/', headers: { authorization: 'Bearer sk_live_2', 'api-key': 'tok' } });
    expect(response.statusCode).toBe(200);
    await app.close();
    const text = lines.join('');
    expect(text).toContain('request completed');
    expect(text).not.toContain('sk_live_2');
    expect(text).not.toContain('tok');
  });
});
