import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { TRIGGER_OPERATORS } from '../src/integrations/trigger-conditions.js';
import { isStorableText } from '../src/lib/json-guard.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type RawResponse, rawRequest } from './helpers/raw-http.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// Issue 7 item 4: hostile input through real HTTP, as property-based tests. Whatever is sent —
// random bytes, huge or deeply nested JSON, odd unicode, duplicate and prototype-polluting keys,
// odd content types and header bytes — the server never answers 5xx, never falls over, writes
// nothing for a request it refuses and never lets Object.prototype be touched; `{{ }}` inside a
// caller's values is never expanded again, and no value can start a header line of its own.
// Runs are seeded: FC_SEED=<seed> replays a failure (the seed is printed with it).

const SEED = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);

async function check<Ts extends unknown[]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  numRuns: number,
  examples: Ts[] = [],
): Promise<void> {
  try {
    await fc.assert(property, { seed: SEED, numRuns, examples });
  } catch (error) {
    if (error instanceof Error) error.message = `FC_SEED=${SEED} reproduces this.\n${error.message}`;
    throw error;
  }
}

let t: TestApp;
let org: Org;
let receiver: Receiver;
/** What the receiver answers on /answer: set by the property about tool endpoints' answers. */
let answer: Buffer = Buffer.from('{}');
// The app runs in this process: anything that polluted a prototype would show here.
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
/** What the server logged at warn and above: a failure that needs it names it. */
const serverLog: string[] = [];

beforeAll(async () => {
  t = await startTestApp({}, undefined, {
    logger: { level: 'warn', stream: { write: (line: string) => void serverLog.push(line) } },
  });
  org = await t.signup();
  // Echoes what a tool sent, so later turns can quote it back.
  receiver = await startReceiver((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      request.url.startsWith('/answer') ? answer : JSON.stringify({ echoed: request.headers['x-name'] ?? null }),
    );
  });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function countRows(
  table: 'calls' | 'idempotency_keys' | 'tools' | 'integrations' | 'provider_credentials',
): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await t.db.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`)),
  );
  return row!.n;
}

function tallyOf(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

async function expectHealthy(): Promise<void> {
  const live = await t.request('GET', '/healthz');
  const ready = await t.request('GET', '/readyz');
  expect([live.status, ready.status]).toEqual([200, 200]);
}

// ---- Hostile pieces -------------------------------------------------------------------------

/** Characters that break naive code: NUL, lone surrogates, bidi overrides, line breaks, braces. */
const hostileChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', '-', '_', '.', '$') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '\u0000',
      '\ud800',
      '\udfff',
      '\u202e',
      '\u200f',
      '\u2066',
      '\ufeff',
      '\r',
      '\n',
      '\t',
      '\u2028',
      '\u0085',
      '\u007f',
      '\u0001',
      '"',
      '\\',
      '{{',
      '}}',
      '😀',
      '名',
      'é',
      '%00',
      '\u0301',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const hostileString = fc.string({ unit: hostileChar, maxLength: 20 });
/** Odd but storable text (bidi marks, emoji, quotes, braces): what a valid definition may well carry. */
const oddString = fc.string({
  unit: fc.oneof(
    fc.constantFrom('a', ' ', '\u202e', '\u200f', '\ufeff', '😀', '名', 'é', '"', '\\', '{', '}', '%00', '\u0301', '$'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 20,
});
/** Text for a field of an otherwise valid definition: mostly odd, sometimes hostile. */
const fieldText = fc.oneof({ weight: 3, arbitrary: oddString }, hostileString);
const numberAsString = fc.constantFrom('42', '-0', '1e309', 'NaN', '0x10', ' 7 ', '1_000', 'Infinity');
/** Object keys that pollute prototypes when an object is merged or assigned naively. */
const pollutingKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const hostileKey = fc.oneof(pollutingKey, hostileString, fc.constantFrom('', 'a'.repeat(65), 'polluted'));

/** JSON text built by hand, so that objects may repeat a key or carry "__proto__" as a real key. */
type JsonText = string;
const json = (value: unknown): JsonText => JSON.stringify(value);
const objectText = (entries: [string, JsonText][]): JsonText =>
  `{${entries.map(([k, v]) => `${json(k)}:${v}`).join(',')}}`;
const arrayText = (items: JsonText[]): JsonText => `[${items.join(',')}]`;

/** Arrays or objects nested `depth` levels (thousands: far deeper than any schema goes). */
const deepText = fc
  .record({ depth: fc.integer({ min: 500, max: 12_000 }), object: fc.boolean() })
  .map(({ depth, object }) =>
    object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`,
  );

const hostileValue: fc.Arbitrary<JsonText> = fc.letrec<{ value: JsonText }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString.map(json),
    numberAsString.map(json),
    fc.constantFrom('1e309', '-0', '1.0', '1e3', '12345678901234567890', 'true', 'null'),
    fc.array(tie('value'), { maxLength: 3 }).map(arrayText),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 3 }).map(objectText),
    fc.constantFrom(
      '{"polluted":"yes"}',
      '{"__proto__":{"polluted":"yes"}}',
      '{"constructor":{"prototype":{"polluted":"yes"}}}',
    ),
  ),
})).value;

/**
 * A JSON object's members, each kept as it is (mostly), made hostile, or dropped: valid
 * definitions carrying hostile text get accepted and run, and near misses get refused.
 */
const mutated = (members: [string, JsonText][]) =>
  fc
    .array(fc.oneof({ weight: 14, arbitrary: fc.constant('keep') }, fc.constantFrom('hostile', 'drop')), {
      minLength: members.length,
      maxLength: members.length,
    })
    .chain((choices) =>
      fc
        .tuple(...members.map(() => hostileValue))
        .map((hostile) =>
          objectText(
            members.flatMap(([key, value], i): [string, JsonText][] =>
              choices[i] === 'keep' ? [[key, value]] : choices[i] === 'hostile' ? [[key, hostile[i]!]] : [],
            ),
          ),
        ),
    );

// ---- 1. Click to call ------------------------------------------------------------------------

describe('click to call under hostile headers and bodies', () => {
  let token: string;
  let secret: string;

  beforeAll(async () => {
    const agent = await t.createAgent(org, { rateLimitPerMinute: null, firstMessage: 'Hi {{name}}' });
    ({ apiToken: token, apiSecret: secret } = await t.credentials(org, agent.id));
  });

  const validPhone = fc.integer({ min: 0, max: 9999 }).map((n) => `+1415555${String(n).padStart(4, '0')}`);
  const phone = fc.oneof(
    { weight: 6, arbitrary: validPhone.map(json) },
    validPhone.chain((p) => hostileChar.map((c) => json(p + c))),
    hostileString.map(json),
    fc.constantFrom(
      '14155550123',
      '"＋１４１５５５５０１２３"',
      '"+١٤١٥٥٥٥٠١٢٣"',
      `"+1${'0'.repeat(20)}"`,
      '{}',
      '[]',
      'true',
      'null',
    ),
  );
  const variableEntry = fc.tuple(
    fc.oneof(fc.constantFrom('name', 'system_prompt', 'SwitchboardX', 'a'.repeat(64)), hostileKey),
    fc.oneof({ weight: 3, arbitrary: hostileString.map(json) }, hostileValue),
  );
  const variables = fc.oneof(
    { weight: 6, arbitrary: fc.array(variableEntry, { maxLength: 5 }).map(objectText) },
    hostileValue,
    deepText,
  );
  /** Extra top-level members: a repeated key, polluting keys, something deep. */
  const extras = fc.subarray([
    '"phone":"+14155550000"',
    '"variables":{}',
    '"__proto__":{"polluted":"yes"}',
    '"constructor":{"prototype":{"polluted":"yes"}}',
    '"prototype":{"polluted":"yes"}',
    `"deep":${'['.repeat(3000)}${']'.repeat(3000)}`,
  ]);
  const structured = fc
    .record({ phone, variables, extras, omitVariables: fc.boolean() })
    .map(
      ({ phone, variables, extras, omitVariables }) =>
        `{${[`"phone":${phone}`, ...(omitVariables ? [] : [`"variables":${variables}`]), ...extras].join(',')}}`,
    );
  /** A valid body padded to within a few bytes of 64 KiB, either side of the limit. */
  const nearLimit = fc
    .record({ target: fc.integer({ min: 65_536 - 16, max: 65_536 + 16 }), phone: validPhone })
    .map(({ target, phone }) => {
      const shell = `{"phone":"${phone}","variables":{"filler":""}}`;
      return `{"phone":"${phone}","variables":{"filler":"${'x'.repeat(target - shell.length)}"}}`;
    });
  const body = fc.oneof(
    { weight: 8, arbitrary: structured.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: nearLimit.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: deepText.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(json(value))) },
  );

  // Header bytes: mostly ones HTTP allows (printable and obs-text 0x80–0xff), so that requests get past
  // the HTTP parser to the route; sometimes anything (control characters the parser refuses).
  const oddBytes = fc
    .oneof(
      { weight: 3, arbitrary: fc.uint8Array({ min: 0x20, max: 0xff, minLength: 1, maxLength: 24 }) },
      fc.uint8Array({ minLength: 1, maxLength: 24 }),
    )
    .map((bytes) => Buffer.from(bytes));
  type HeaderChoice = 'valid' | 'absent' | string | Buffer;
  const request = fc.record({
    body,
    apiKey: fc.oneof(
      { weight: 10, arbitrary: fc.constant<HeaderChoice>('valid') },
      fc.constantFrom<HeaderChoice>('absent', '', ' ', 'x'.repeat(20_000), 'duplicate', 'valid '),
      oddBytes,
    ),
    signature: fc.oneof(
      { weight: 10, arbitrary: fc.constant<HeaderChoice>('valid') },
      fc.constantFrom<HeaderChoice>('absent', '', 'upper', 'spaced', 'duplicate', '0'.repeat(64), 'zz'.repeat(32)),
      oddBytes,
    ),
    contentType: fc.oneof(
      { weight: 6, arbitrary: fc.constant<HeaderChoice>('application/json') },
      fc.constantFrom<HeaderChoice>(
        'absent',
        '',
        'text/plain',
        'application/json; charset=utf-16',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json;;;; =',
        '*/*',
      ),
      oddBytes,
    ),
    idempotencyKey: fc.oneof(
      { weight: 6, arbitrary: fc.constant<HeaderChoice>('absent') },
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }),
      fc.constantFrom<HeaderChoice>('', 'k'.repeat(256), 'k'.repeat(255)),
      oddBytes,
    ),
    odd: fc.option(oddBytes),
    chunked: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true)),
  });
  type HostileRequest = typeof request extends fc.Arbitrary<infer R> ? R : never;

  function send(r: HostileRequest): Promise<RawResponse> {
    const signature = createHmac('sha256', secret).update(r.body).digest('hex');
    const headers: [string, string | Buffer][] = [];
    const add = (name: string, choice: HeaderChoice, valid: string, other: string) => {
      if (choice === 'absent') return;
      if (choice === 'valid') headers.push([name, valid]);
      else if (choice === 'valid ') headers.push([name, `${valid} `]);
      else if (choice === 'upper') headers.push([name, valid.toUpperCase()]);
      else if (choice === 'spaced') headers.push([name, `  ${valid}\t`]);
      else if (choice === 'duplicate') headers.push([name, valid], [name, other]);
      else headers.push([name, choice]);
    };
    add('api-key', r.apiKey, token, 'ctct_other');
    add('signature', r.signature, signature, '0'.repeat(64));
    add('content-type', r.contentType, '', '');
    add('idempotency-key', r.idempotencyKey, '', '');
    if (r.odd) headers.push(['x-odd', r.odd]);
    return rawRequest(t.url, { method: 'POST', path: '/api/click-to-call', headers, body: r.body, chunked: r.chunked });
  }

  it('never a 5xx, never a crash, never a row for a refused request', async () => {
    let tried = 0;
    const seen = new Map<string, number>();
    await check(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (batch) => {
        const callsBefore = await countRows('calls');
        const keysBefore = await countRows('idempotency_keys');
        // At once: refused and accepted requests meet in the same accept batch.
        const answers = await Promise.all(batch.map(send));
        tried += batch.length;
        let started = 0;
        let keysKept = 0;
        answers.forEach((answer, i) => {
          const code = /"code":"(ctc:\d+)"/.exec(answer.body)?.[1];
          const kind = answer.status === 200 ? '200' : `${answer.status} ${code ?? ''}`.trim();
          seen.set(kind, (seen.get(kind) ?? 0) + 1);
          // The database is up and the simulator starts every call: even ctc:002 / ctc:008 would be a
          // bug here, so no 5xx at all.
          expect(answer.status, `${answer.status} ${answer.body}`).toBeLessThan(500);
          if (answer.status === 200 && answer.headers['idempotent-replayed'] !== 'true') {
            started++;
            if (batch[i]!.idempotencyKey !== 'absent') keysKept++;
          }
          if (answer.status !== 200 && answer.body.startsWith('{')) {
            const refusal = JSON.parse(answer.body);
            // What the HTTP parser refuses (a NUL in a header, 400; headers over 16 KiB, 431) never
            // reaches the route: Fastify answers it itself, in its own shape, before any routing.
            const parserRefusal = refusal.statusCode === answer.status && !('code' in refusal);
            if (!parserRefusal)
              expect(refusal).toMatchObject({ success: false, code: expect.stringMatching(/^ctc:0/) });
          }
        });
        expect(await countRows('calls')).toBe(callsBefore + started);
        expect(await countRows('idempotency_keys')).toBe(keysBefore + keysKept);
        await expectHealthy();
      }),
      120,
    );
    expect(tried).toBeGreaterThan(120);
    // The mix reached every stage: accepted calls, bad bodies, bad signatures.
    for (const kind of ['200', '400 ctc:009', '403 ctc:006']) expect(seen.get(kind), kind).toBeGreaterThan(0);
    if (process.env.HOSTILE_STATS) console.log('click-to-call answers', Object.fromEntries(seen));
  });

  it('refuses, as ctc:009 naming the variable, strings PostgreSQL cannot store (NUL, a lone surrogate)', async () => {
    const before = await countRows('calls');
    for (const [raw, path] of [
      ['{"name":"a\\u0000b"}', '$.variables.name'],
      ['{"name":"a\\ud800"}', '$.variables.name'],
      ['{"a\\u0000":"x"}', '$.variables["a\\u0000"]'],
      ['{"\\udfffb":"x"}', '$.variables["\\udfffb"]'],
    ] as const) {
      const response = await t.clickToCall({ token, secret, body: `{"phone":"${nextPhone()}","variables":${raw}}` });
      expect(response.status, raw).toBe(400);
      expect(response.body.code).toBe('ctc:009');
      expect(response.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
    // Accepted calls are inserted in batches: a refused value must not take its neighbours down.
    const mixed = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.clickToCall({
          token,
          secret,
          body: `{"phone":"${nextPhone()}","variables":{"name":"${i % 2 ? 'a\\u0000' : 'Ada'}"}}`,
        }),
      ),
    );
    expect(mixed.map((r) => r.status)).toEqual([200, 400, 200, 400, 200, 400, 200, 400, 200, 400]);
    // A well-formed surrogate pair (an emoji) is fine.
    const emoji = await t.clickToCall({ token, secret, body: { phone: nextPhone(), variables: { name: '😀' } } });
    expect(emoji.status).toBe(200);
    expect(await countRows('calls')).toBe(before + 6);
  });
});

// ---- 2. Tool definitions ---------------------------------------------------------------------

describe('tool definitions under hostile JSON', () => {
  const url = () => `${receiver.url}/t`;
  /** Valid parameters of several kinds, named like prototype members too, with hostile text inside. */
  const parameter = fc
    .record({
      name: fc.constantFrom('a', 'b', '__proto__', 'constructor', 'prototype'),
      kind: fc.constantFrom('ai', 'fixed', 'variable', 'integer', 'array', 'object'),
      location: fc.constantFrom('body', 'body', 'query'),
      description: fieldText,
      text: fieldText,
    })
    .chain(({ name, kind, location, description, text }) => {
      const members: [string, JsonText][] = [
        ['name', json(name)],
        ['location', json(location)],
        ['description', json(description)],
      ];
      if (kind === 'ai')
        members.push(['type', '"string"'], ['fillMode', '"ai"'], ['allowedValues', arrayText([json(text)])]);
      if (kind === 'fixed') members.push(['type', '"string"'], ['fillMode', '"fixed"'], ['value', json(text)]);
      if (kind === 'variable')
        members.push(['type', '"string"'], ['fillMode', '"variable"'], ['value', json(`{{v}}${text}`)]);
      if (kind === 'integer')
        members.push(['type', '"integer"'], ['fillMode', '"fixed"'], ['value', json(text || '42')]);
      if (kind === 'array') members.push(['type', '"array"'], ['fillMode', '"ai"'], ['items', '{"type":"string"}']);
      if (kind === 'object')
        members.push(['type', '"object"'], ['fillMode', '"fixed"'], ['value', json(json({ k: text }))]);
      return mutated(members).map((text) => ({ name, text }));
    });
  /** Object parameters whose fields nest far past the 5 levels allowed. */
  const deepFields = fc.integer({ min: 6, max: 3000 }).map((depth) => {
    const open = '{"name":"a","location":"body","type":"object","fillMode":"ai","fields":[';
    const inner = '{"name":"a","type":"object","fillMode":"ai","fields":[';
    return `[${open}${inner.repeat(depth - 1)}${']}'.repeat(depth)}]`;
  });
  const definition = fc
    .record({
      name: fc.integer({ min: 0, max: 1_000_000 }),
      url: fc.constantFrom('/t', '/t?q=1'),
      description: fc.oneof({ weight: 6, arbitrary: fieldText }, fc.constant('x'.repeat(1201))),
      header: fieldText,
      defaultValue: fieldText,
      parameters: fc.oneof(
        { weight: 8, arbitrary: fc.uniqueArray(parameter, { maxLength: 3, selector: (p) => p.name }) },
        deepFields,
      ),
      timeoutMs: fc.oneof(
        { weight: 6, arbitrary: fc.constant('5000') },
        fc.constantFrom('"5000"', '1e3', '1e309', '5000.5', '-0'),
      ),
      // Top-level members the JSON parser refuses (prototype keys) or that repeat a key: now and then.
      extra: fc.oneof(
        { weight: 6, arbitrary: fc.constant([]) },
        fc.subarray([
          '"__proto__":{"polluted":"yes"}',
          '"constructor":{"prototype":{"polluted":"yes"}}',
          '"name":"dup"',
        ]),
      ),
    })
    .chain(({ name, url, description, header, defaultValue, parameters, timeoutMs, extra }) =>
      mutated([
        ['name', json(`h_${name}`)],
        ['method', '"POST"'],
        ['url', json(`RECEIVER${url}`)],
        ['description', json(description)],
        [
          'headers',
          json([
            { key: 'X-A', mode: 'fixed', value: header },
            { key: 'X-B', mode: 'variable', value: '{{v}}' },
          ]),
        ],
        ['parameters', typeof parameters === 'string' ? parameters : arrayText(parameters.map((p) => p.text))],
        ['variables', json([{ name: 'v', defaultValue }])],
        ['timeoutMs', timeoutMs],
      ]).map((text) =>
        extra.length > 0 ? `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}${extra.join(',')}}` : text,
      ),
    );
  const toolBody = fc.oneof(
    { weight: 12, arbitrary: definition },
    deepText,
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    hostileValue,
  );
  const withReceiver = (text: string) => text.replaceAll('RECEIVER', receiver.url);
  const validDefinition = JSON.stringify({
    name: 'h_example',
    method: 'POST',
    url: 'RECEIVER/example',
    headers: [{ key: 'X-B', mode: 'variable', value: '{{v}}' }],
    variables: [{ name: 'v' }],
  });

  it('POST /v1/tools: never a 5xx; a refused definition writes nothing', async () => {
    const statuses: number[] = [];
    await check(
      fc.asyncProperty(toolBody, async (text) => {
        const before = await countRows('tools');
        const created = await t.request('POST', '/v1/tools', { headers: org.auth, body: withReceiver(text) });
        statuses.push(created.status);
        expect(created.status, JSON.stringify(created.body)).toBeLessThan(500);
        expect(await countRows('tools')).toBe(before + (created.status === 201 ? 1 : 0));
        if (created.status === 201) {
          // What was accepted also runs without a 5xx.
          const run = await t.request('POST', `/v1/tools/${created.body.id}/test`, {
            headers: org.auth,
            body: { args: {}, variables: { v: 'x' } },
          });
          expect(run.status, JSON.stringify(run.body)).toBe(200);
          await t.request('DELETE', `/v1/tools/${created.body.id}`, { headers: org.auth });
        }
      }),
      150,
      // A definition the server accepts, always among the runs: a few per cent of the random ones
      // are, so a seed could otherwise draw none (and the success path would go unchecked).
      [[validDefinition]],
    );
    expect(statuses).toContain(201);
    expect(statuses).toContain(422);
    if (process.env.HOSTILE_STATS) console.log('POST /v1/tools', tallyOf(statuses));
    await expectHealthy();
  });

  it('parameters and fields named like prototype members are sent, and shown to the model, as ordinary keys', async () => {
    const storable = hostileString.filter((text) => isStorableText(text) && !text.includes('{{'));
    const names = fc.uniqueArray(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'a'), {
      minLength: 1,
    });
    let count = 0;
    await check(
      fc.asyncProperty(names, storable, async (keys, value) => {
        const created = await t.request('POST', '/v1/tools', {
          headers: org.auth,
          body: {
            name: `proto_${++count}`,
            method: 'POST',
            url: url(),
            parameters: [
              ...keys.map((name) => ({ name, location: 'body', type: 'string', fillMode: 'fixed', value })),
              {
                name: 'obj',
                location: 'body',
                type: 'object',
                fillMode: 'fixed',
                value: '{}',
                fields: keys.map((name) => ({ name, type: 'string', fillMode: 'fixed', value })),
              },
              {
                name: 'ai',
                location: 'body',
                type: 'object',
                fillMode: 'ai',
                fields: keys.map((name) => ({ name, type: 'string', fillMode: 'ai' })),
              },
            ],
          },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(Object.keys(created.body.aiSchema.properties.ai.properties).sort()).toEqual([...keys].sort());
        const sentBefore = receiver.requests.length;
        const run = await t.request('POST', `/v1/tools/${created.body.id}/test`, { headers: org.auth, body: {} });
        expect(run.body.error).toBeNull();
        // JSON.parse makes "__proto__" an own key, so what arrived can be compared key by key.
        const received = JSON.parse(receiver.requests[sentBefore]!.body);
        expect(Object.keys(received).sort()).toEqual([...keys, 'obj'].sort());
        for (const key of keys) {
          expect(Object.getOwnPropertyDescriptor(received, key)?.value).toBe(value);
          expect(Object.getOwnPropertyDescriptor(received.obj, key)?.value).toBe(value);
        }
        await t.request('DELETE', `/v1/tools/${created.body.id}`, { headers: org.auth });
      }),
      30,
    );
  });

  it('PATCH /v1/tools/:id: never a 5xx; a refused patch leaves the tool as it was', async () => {
    const created = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'patched', method: 'POST', url: url(), variables: [{ name: 'v' }] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const statuses: number[] = [];
    await check(
      fc.asyncProperty(toolBody, async (text) => {
        const before = await t.request('GET', `/v1/tools/${id}`, { headers: org.auth });
        const patched = await t.request('PATCH', `/v1/tools/${id}`, { headers: org.auth, body: withReceiver(text) });
        statuses.push(patched.status);
        expect(patched.status, JSON.stringify(patched.body)).toBeLessThan(500);
        if (patched.status !== 200) {
          expect((await t.request('GET', `/v1/tools/${id}`, { headers: org.auth })).body).toEqual(before.body);
        }
      }),
      100,
      [[JSON.stringify({ description: 'patched by the fixed example' })]],
    );
    expect(statuses).toContain(200);
    expect(statuses).toContain(422);
    if (process.env.HOSTILE_STATS) console.log('PATCH /v1/tools/:id', tallyOf(statuses));
    await expectHealthy();
  });
});

// ---- 3. Trigger conditions -------------------------------------------------------------------

describe('trigger conditions under hostile JSON', () => {
  const OPERATORS = TRIGGER_OPERATORS;
  const scalar = fc.oneof(fieldText.map(json), fc.double().map(json), fc.boolean().map(json), numberAsString.map(json));
  /** A condition of the right shape for its operator (mostly), its field and value full of hostile text. */
  const condition = fc
    .record({
      field: fc.oneof(
        fc.constantFrom('status', 'durationSeconds', 'endedReason', 'collectedData.__proto__', 'variables.constructor'),
        fieldText.map((key) => `variables.${key}`),
        fieldText.map((key) => `collectedData.${key}`),
      ),
      operator: fc.constantFrom(...OPERATORS),
      scalar,
      list: fc.array(scalar, { minLength: 1, maxLength: 3 }).map(arrayText),
      number: fc.oneof(fc.integer().map(json), fc.constantFrom('1e309', '-0', '0.5')),
    })
    .chain(({ field, operator, scalar, list, number }) => {
      const members: [string, JsonText][] = [
        ['field', json(field)],
        ['operator', json(operator)],
      ];
      if (operator === 'in' || operator === 'not_in') members.push(['value', list]);
      else if (['gt', 'gte', 'lt', 'lte'].includes(operator)) members.push(['value', number]);
      else if (operator !== 'exists' && operator !== 'not_exists') members.push(['value', scalar]);
      return mutated(members);
    });
  const conditions = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .record({ match: fc.constantFrom('all', 'any'), conditions: fc.array(condition, { maxLength: 4 }) })
        .chain(({ match, conditions }) =>
          mutated([
            ['match', json(match)],
            ['conditions', arrayText(conditions)],
          ]),
        ),
    },
    hostileValue,
    deepText,
  );

  it('POST /v1/agents/:id/integrations: never a 5xx; refused conditions write nothing; accepted ones evaluate at a call end', async () => {
    const agent = await t.createAgent(org, { rateLimitPerMinute: null });
    const statuses: number[] = [];
    await check(
      fc.asyncProperty(
        conditions,
        fc.subarray(['"__proto__":{"polluted":"yes"}', '"url":"dup"']),
        async (tc, extra) => {
          const before = await countRows('integrations');
          const body = `{${[`"url":${json(`${receiver.url}/hook`)}`, `"triggerConditions":${tc}`, ...extra].join(',')}}`;
          const created = await t.request('POST', `/v1/agents/${agent.id}/integrations`, { headers: org.auth, body });
          statuses.push(created.status);
          expect(created.status, JSON.stringify(created.body)).toBeLessThan(500);
          expect(await countRows('integrations')).toBe(before + (created.status === 201 ? 1 : 0));
        },
      ),
      150,
    );
    expect(statuses).toContain(201);
    expect(statuses).toContain(422);
    if (process.env.HOSTILE_STATS) console.log('POST /v1/agents/:id/integrations', tallyOf(statuses));
    // Every condition accepted above is evaluated when a call ends: the call still ends and reads back.
    const creds = await t.credentials(org, agent.id);
    const response = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone(), variables: { name: 'Ada' } },
    });
    expect(response.status).toBe(200);
    const call = await t.waitForCall(org, response.body.callId);
    expect(call.status).toBe('ended');
    await expectHealthy();
  });
});

// ---- 4 and 5. What a caller's values can do on the way out -----------------------------------

describe("a caller's variable values", () => {
  /** A tool that sends `{{name}}` in a header and in its body; `{{secret}}` is declared too. */
  async function echoTool(name: string) {
    const created = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name,
        method: 'POST',
        url: `${receiver.url}/echo`,
        headers: [{ key: 'X-Name', mode: 'variable', value: '{{name}}' }],
        parameters: [
          { name: 'greeting', location: 'body', type: 'string', fillMode: 'variable', value: 'Hello {{name}}' },
          { name: 'marker', location: 'body', type: 'string', fillMode: 'variable', value: '{{marker}}' },
        ],
        variables: [{ name: 'name' }, { name: 'secret' }, { name: 'marker' }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  }

  async function callAgent(agent: { apiToken: string; apiSecret: string }, variables: Record<string, string>) {
    const response = await t.clickToCall({
      token: agent.apiToken,
      secret: agent.apiSecret,
      body: { phone: nextPhone(), variables },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return t.waitForCall(org, response.body.callId);
  }

  const sentWith = (marker: string) => receiver.requests.filter((r) => r.body.includes(`"marker":"${marker}"`));

  it('are never expanded again: {{ }} inside a value arrives as literal text, in the transcript and at a tool', async () => {
    const toolId = await echoTool('echo_template');
    const agent = await t.createAgent(org, {
      rateLimitPerMinute: null,
      firstMessage: 'Hi {{name}}',
      toolIds: [toolId],
      simulator: {
        turns: [
          { tool: 'echo_template', args: {} },
          { role: 'agent', text: 'You said {{tool.echo_template.echoed}}' },
        ],
      },
    });
    const creds = await t.credentials(org, agent.id);
    // Printable ASCII with placeholders mixed in: every byte can travel in a header unchanged.
    const piece = fc.oneof(
      fc.constantFrom(
        '{{secret}}',
        '{{ secret }}',
        '{{name}}',
        '{{tool.echo_template.echoed}}',
        '{{constructor}}',
        '{{',
        '}}',
        '{{{secret}}}',
      ),
      fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
    );
    const value = fc
      .array(piece, { minLength: 1, maxLength: 5 })
      .map((parts) => parts.join('').trim())
      .filter((v) => v !== '');
    let marker = 0;
    await check(
      fc.asyncProperty(value, async (name) => {
        const id = `tpl-${++marker}`;
        const call = await callAgent(creds, { name, secret: 'S', marker: id });
        expect(call.transcript[0].text).toBe(`Hi ${name}`);
        const [sent] = sentWith(id);
        expect(sent?.headers['x-name']).toBe(name);
        expect(JSON.parse(sent!.body).greeting).toBe(`Hello ${name}`);
        // The tool's answer quoted in a later turn is not expanded either.
        expect(call.transcript.at(-1).text).toBe(`You said ${name}`);
      }),
      25,
    );
  });

  it('never reach an outbound header with a line break or control character: the tool run fails, recorded as an error', async () => {
    const toolId = await echoTool('echo_header');
    const agent = await t.createAgent(org, {
      rateLimitPerMinute: null,
      toolIds: [toolId],
      simulator: { turns: [{ tool: 'echo_header', args: {} }] },
    });
    const creds = await t.credentials(org, agent.id);
    const injected = fc.oneof(
      fc.constantFrom(
        'a\r\nX-Evil: 1',
        'a\nX-Evil: 1',
        'a\rX-Evil: 1',
        'a\r\n\r\nGET /evil HTTP/1.1\r\nX-Evil: 1',
        '\r\nX-Evil: 1',
        'a\u0001b',
        'a\u007fb',
        'a\u2028X-Evil: 1',
        '名\r\nX-Evil: 1',
        'a\u0085X-Evil: 1',
        'a\u010d\u010aX-Evil: 1',
      ),
      fc
        .tuple(
          fc.string({ unit: 'grapheme-ascii', maxLength: 5 }),
          fc.constantFrom('\r', '\n', '\r\n', '\u0000', '\u0001', '\u001f', '\u007f', '\u2028'),
          fc.string({ unit: 'grapheme-ascii', maxLength: 5 }),
        )
        .map(([a, control, b]) => `${a}${control}X-Evil: ${b}`),
    );
    let marker = 0;
    await check(
      fc.asyncProperty(injected, async (name) => {
        const id = `hdr-${++marker}`;
        const response = await t.clickToCall({
          token: creds.apiToken,
          secret: creds.apiSecret,
          body: { phone: nextPhone(), variables: { name, marker: id } },
        });
        if (name.includes('\u0000')) {
          // Refused at the door (a NUL cannot be stored): no call, nothing sent.
          expect(response.body.code).toBe('ctc:009');
          return;
        }
        expect(response.status).toBe(200);
        const call = await t.waitForCall(org, response.body.callId);
        const [invocation] = call.toolInvocations;
        const sent = sentWith(id);
        if (invocation === undefined) {
          const { status, outcome, endedReason, error, providerCallId, transcript } = call;
          // The server's lines about this call first, then its last few: CI keeps 25 lines of an error.
          const lines = serverLog.filter((line) => line.includes(call.id));
          throw new Error(
            `the call ended with no tool run recorded: ${JSON.stringify({ status, outcome, endedReason, error, providerCallId, transcript, sent: sent.length })}\n${[...lines, ...serverLog.slice(-5)].join('')}`,
          );
        }
        // Either nothing was sent and the run says why, or the value went out as one header value.
        if (sent.length === 0) {
          expect(invocation.error).toEqual(expect.any(String));
          expect(invocation.request).toBeNull();
        } else {
          expect(invocation.error).toBeNull();
          expect(sent).toHaveLength(1);
          expect(sent[0]!.headers['x-name']).toBe(name.trim());
        }
        expect(receiver.requests.some((r) => 'x-evil' in r.headers || r.url.includes('evil'))).toBe(false);
      }),
      40,
    );
  });
});

// ---- 6. What a tool endpoint answers ---------------------------------------------------------

describe("a tool endpoint's hostile answer", () => {
  it('is recorded mended, and the call still ends: NUL and lone surrogates, raw or escaped, bytes, deep JSON', async () => {
    const tool = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'answers', method: 'POST', url: `${receiver.url}/answer` },
    });
    const agent = await t.createAgent(org, {
      rateLimitPerMinute: null,
      toolIds: [tool.body.id],
      simulator: {
        turns: [
          { tool: 'answers', args: {} },
          { role: 'agent', text: 'Got {{tool.answers.x}}' },
        ],
        outcome: { status: 'COMPLETED', collectedData: { note: 'n' } },
      },
    });
    const creds = await t.credentials(org, agent.id);
    const body = fc.oneof(
      hostileValue.map((value) => Buffer.from(`{"x":${value}}`)),
      hostileString.map((text) => Buffer.from(json({ x: text }))),
      fc
        .constantFrom('{"x":"a\\u0000b"}', '{"x":"a\\ud800"}', '{"a\\u0000":1,"x":"c"}', 'plain \u0000 text')
        .map((text) => Buffer.from(text)),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc
        .integer({ min: 1000, max: 100_000 })
        .map((depth) => Buffer.from(`{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`)),
    );
    await check(
      fc.asyncProperty(body, async (bytes) => {
        answer = bytes;
        const response = await t.clickToCall({
          token: creds.apiToken,
          secret: creds.apiSecret,
          body: { phone: nextPhone() },
        });
        expect(response.status).toBe(200);
        const call = await t.waitForCall(org, response.body.callId);
        expect(call).toMatchObject({ status: 'ended', outcome: 'COMPLETED' });
        expect(call.transcript.map((turn: { role: string }) => turn.role)).toEqual(['tool', 'agent']);
        expect(call.toolInvocations).toHaveLength(1);
        expect(call.toolInvocations[0].error).toBeNull();
        for (const turn of call.transcript) expect(isStorableText(turn.text)).toBe(true);
      }),
      20,
      // Deep enough to overflow JSON.stringify (about 5,000 levels), small enough to be read whole:
      // it stranded its call until the simulator kept such JSON as text.
      [[Buffer.from(`{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)]],
    );
    // Twenty calls: room for a busy machine, so that a call that never ends fails as waitForCall says why.
  }, 60_000);
});

describe('the management API and what PostgreSQL cannot store', () => {
  it('refuses NUL and lone surrogates anywhere, and bodies nested too deep, as 422 naming the field; nothing written', async () => {
    const agentsBefore = await t.request('GET', '/v1/agents?limit=100', { headers: org.auth });
    const toolsBefore = await countRows('tools');
    const deep = JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`);
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/agents', { name: 'a\u0000b' }, '$.name'],
      ['POST', '/v1/agents', { name: 'x', prompt: 'a\ud800' }, '$.prompt'],
      ['POST', '/v1/agents', { name: 'x', simulator: { outcome: { collectedData: { 'k\u0000': 'v' } } } }, ''],
      ['POST', '/v1/tools', { name: 'nul', method: 'POST', url: `${receiver.url}/t`, description: 'a\u0000' }, ''],
      ['POST', '/v1/tools', { name: 'deep', method: 'POST', url: `${receiver.url}/t`, parameters: [deep] }, ''],
      ['GET', '/v1/calls?agentId=%00', undefined, 'query.agentId'],
      ['GET', '/v1/agents/a%00b', undefined, 'params.id'],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await t.request(method, path, { headers: org.auth, body });
      expect(response.status, `${method} ${path}`).toBe(422);
      expect(response.body.details, `${method} ${path}`).toEqual([
        { path: field || expect.stringMatching(/^\$\./), message: expect.any(String) },
      ]);
    }
    const agentsAfter = await t.request('GET', '/v1/agents?limit=100', { headers: org.auth });
    expect(agentsAfter.body.data).toHaveLength(agentsBefore.body.data.length);
    expect(await countRows('tools')).toBe(toolsBefore);
    // Emoji (well-formed surrogate pairs) are fine.
    const ok = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: '😀 agent', prompt: 'Hi 👋' },
    });
    expect(ok.status).toBe(201);
  });
});

describe('header values HTTP cannot carry', () => {
  it('are refused where they are saved, naming the field, for any control character: nothing written', async () => {
    const agent = await t.createAgent(org);
    const toolsBefore = await countRows('tools');
    const integrationsBefore = await countRows('integrations');
    const credentialsBefore = await countRows('provider_credentials');
    const toolWithHeader = (name: string, value: string) => ({
      name,
      method: 'POST',
      url: `${receiver.url}/t`,
      headers: [{ key: 'X-Key', mode: 'fixed', value }],
    });
    const cases: [string, unknown, string][] = [
      ['/v1/tools', toolWithHeader('ctl', 'a\u0001b'), '$.headers[0].value'],
      ['/v1/tools', toolWithHeader('del', 'a\u007f'), '$.headers[0].value'],
      [
        `/v1/agents/${agent.id}/integrations`,
        { url: `${receiver.url}/hooks`, authorization: 'tok\u001bx' },
        '$.authorization',
      ],
      ['/v1/provider-credentials', { provider: 'vapi', name: 'V', apiKey: 'key\bx' }, '$.apiKey'],
      ['/v1/provider-credentials', { provider: 'vapi', name: 'V', apiKey: '名前' }, '$.apiKey'],
    ];
    for (const [path, body, field] of cases) {
      const response = await t.request('POST', path, { headers: org.auth, body });
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(response.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    expect(await countRows('tools')).toBe(toolsBefore);
    expect(await countRows('integrations')).toBe(integrationsBefore);
    expect(await countRows('provider_credentials')).toBe(credentialsBefore);
    // A tab and Latin-1 are header text: taken.
    const tool = await t.request('POST', '/v1/tools', { headers: org.auth, body: toolWithHeader('tabbed', 'a\tcafé') });
    expect(tool.status).toBe(201);
  });
});

describe('after all of it', () => {
  it('Object.prototype was never polluted, and the server still answers', async () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectHealthy();
  });
});
