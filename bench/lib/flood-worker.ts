/**
 * The flood generator, run as its own child process by bench/flood.ts: `connections` connections
 * to 127.0.0.1 each sending `POST /api/click-to-call` with a new random `api-key` (formed as a
 * real token is) as soon as the previous answer came, until told to stop, for at most `durationMs`
 * and `maxRequests` requests. Says `connected` once every connection has had an answer. Bounded in
 * time and count; exits by itself.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface FloodSpec {
  /** Only http://127.0.0.1:<port> is accepted. */
  origin: string;
  connections: number;
  durationMs: number;
  maxRequests: number;
  requestTimeoutMs: number;
}

export interface FloodResult {
  /** Answers by status, or `error:<code>` for requests that failed. */
  statuses: Record<string, number>;
  /** Answers by `code` of the JSON body (ctc:003, ctc:002, …). */
  codes: Record<string, number>;
  total: number;
  rps: number;
  durationS: number;
  /** When every connection had had its first answer, ms after the start (NaN if never). */
  allConnectedMs: number;
}

async function run(spec: FloodSpec): Promise<FloodResult> {
  const origin = new URL(spec.origin);
  if (origin.hostname !== '127.0.0.1' || origin.protocol !== 'http:')
    throw new Error('only http://127.0.0.1 is targeted');
  const pool = new Pool(origin.origin, {
    connections: spec.connections,
    pipelining: 1,
    connectTimeout: spec.requestTimeoutMs,
    headersTimeout: spec.requestTimeoutMs,
    bodyTimeout: spec.requestTimeoutMs,
  });
  const statuses: Record<string, number> = {};
  const codes: Record<string, number> = {};
  const started = performance.now();
  const end = started + spec.durationMs;
  let issued = 0;
  let total = 0;
  let firstAnswers = 0;
  let allConnectedMs = Number.NaN;
  const body = JSON.stringify({ phone: '+14155550123', variables: { name: 'Ada' } });
  let stopped = false;
  process.once('message', () => {
    stopped = true;
  });

  async function loop(): Promise<void> {
    let first = true;
    while (!stopped && issued < spec.maxRequests && performance.now() < end) {
      issued++;
      let key: string;
      try {
        const response = await pool.request({
          path: '/api/click-to-call',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'api-key': `ctc_${randomBytes(32).toString('base64url')}`,
            signature: randomBytes(32).toString('hex'),
          },
          body,
        });
        key = String(response.statusCode);
        const text = await response.body.text();
        const code = /"code":"([^"]+)"/.exec(text)?.[1] ?? 'none';
        codes[code] = (codes[code] ?? 0) + 1;
      } catch (error) {
        key = `error:${(error as { code?: string }).code ?? (error as Error).name}`;
      }
      statuses[key] = (statuses[key] ?? 0) + 1;
      total++;
      if (first) {
        first = false;
        if (++firstAnswers === spec.connections) {
          allConnectedMs = performance.now() - started;
          process.send?.({ connected: true });
        }
      }
    }
  }

  await Promise.all(Array.from({ length: spec.connections }, loop));
  const durationS = (performance.now() - started) / 1000;
  await pool.destroy();
  return { statuses, codes, total, rps: total / durationS, durationS, allConnectedMs };
}

process.once('message', (message) => {
  const spec = message as FloodSpec;
  // However the run goes, this process is gone shortly after its planned end.
  setTimeout(() => process.exit(3), spec.durationMs + spec.requestTimeoutMs + 20_000).unref();
  run(spec).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`flood generator failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
});
process.once('disconnect', () => process.exit(2));
