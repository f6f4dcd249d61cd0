/**
 * The load generator, run as its own child process by lib/load.ts. Receives one LoadSpec over IPC,
 * keeps `connections` requests in flight with undici for warm-up + duration (or until
 * `maxRequests`), and sends back a LoadResult. Bounded in time and count; exits by itself.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { LoadResult, LoadSpec } from './load.js';
import { validPhoneNumbers } from './phones.js';
import { retellSignature } from './retell-signature.js';

interface Prepared {
  headers: Record<string, string>;
  body: string;
}

function prepare(spec: LoadSpec): { count: number; get(i: number): Prepared } {
  const { requests } = spec;
  if (requests.type === 'fixed') {
    const fixed = { headers: requests.headers, body: requests.body };
    return { count: Number.POSITIVE_INFINITY, get: () => fixed };
  }
  if (requests.type === 'templated') return prepareTemplated(requests);
  const size = requests.unique ? spec.maxRequests : requests.pool;
  const prepared = validPhoneNumbers(size, requests.phonesFrom).map((phone) => {
    const body = JSON.stringify({ phone, variables: { name: 'Ada' } });
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'api-key': requests.apiToken,
        signature: createHmac('sha256', requests.secret).update(body).digest('hex'),
      },
    };
  });
  return requests.unique
    ? { count: prepared.length, get: (i) => prepared[i]! }
    : { count: Number.POSITIVE_INFINITY, get: (i) => prepared[i % prepared.length]! };
}

/** Bodies built as they are sent: thousands of provider reports of 120 KB each would take GBs held at once. */
function prepareTemplated(requests: Extract<LoadSpec['requests'], { type: 'templated' }>): {
  count: number;
  get(i: number): Prepared;
} {
  const parts = requests.template.split(requests.placeholder);
  const { values, retellSignatureKey: key } = requests;
  if (values.length === 0) throw new Error('a templated load needs at least one value');
  return {
    count: requests.cycle ? Number.POSITIVE_INFINITY : values.length,
    get(i) {
      const body = parts.join(values[i % values.length]);
      if (key === undefined) return { headers: requests.headers, body };
      return { headers: { ...requests.headers, 'x-retell-signature': retellSignature(key, body) }, body };
    },
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const origin = new URL(spec.origin);
  if (origin.hostname !== '127.0.0.1' || origin.protocol !== 'http:')
    throw new Error('only http://127.0.0.1 is targeted');
  const requests = prepare(spec);
  const cpuBefore = process.cpuUsage();
  const maxRequests = Math.min(spec.maxRequests, requests.count);
  const pool = new Pool(origin.origin, {
    connections: spec.connections,
    pipelining: 1,
    connectTimeout: spec.requestTimeoutMs,
    headersTimeout: spec.requestTimeoutMs,
    bodyTimeout: spec.requestTimeoutMs,
  });

  const latencies = new Float64Array(maxRequests);
  let measured = 0;
  let warmupResponses = 0;
  let totalResponses = 0;
  let issued = 0;
  const statuses: Record<string, number> = {};
  const samples: Record<string, string> = {};
  const started = performance.now();
  const measureFrom = started + spec.warmupMs;
  const end = measureFrom + spec.durationMs;
  let lastCompletion = measureFrom;

  async function loop(): Promise<void> {
    for (;;) {
      if (issued >= maxRequests || performance.now() >= end) return;
      const { headers, body } = requests.get(issued++);
      const sentAt = performance.now();
      let key: string;
      try {
        const response = await pool.request({ path: spec.path, method: 'POST', headers, body });
        key = String(response.statusCode);
        if (response.statusCode !== spec.expectedStatus && samples[key] === undefined) {
          samples[key] = (await response.body.text()).slice(0, 300);
        } else {
          await response.body.dump();
        }
      } catch (error) {
        key = `error:${(error as { code?: string }).code ?? (error as Error).name}`;
        samples[key] ??= String((error as Error).message).slice(0, 300);
      }
      const doneAt = performance.now();
      totalResponses++;
      if (doneAt < measureFrom) warmupResponses++;
      else if (doneAt <= end) {
        latencies[measured++] = doneAt - sentAt;
        statuses[key] = (statuses[key] ?? 0) + 1;
        lastCompletion = doneAt;
      }
    }
  }

  await Promise.all(Array.from({ length: spec.connections }, loop));
  await pool.close();
  const cpu = process.cpuUsage(cpuBefore);

  const stoppedByCount = issued >= maxRequests;
  // A run cut short by its count is measured up to its last response, not to the planned end.
  const windowMs = stoppedByCount ? Math.max(1, lastCompletion - measureFrom) : spec.durationMs;
  const sorted = latencies.slice(0, measured).sort();
  const expected = statuses[String(spec.expectedStatus)] ?? 0;
  return {
    statuses,
    rps: expected / (windowMs / 1000),
    allRps: measured / (windowMs / 1000),
    measured,
    windowS: windowMs / 1000,
    warmupResponses,
    totalResponses,
    generatorCpuMs: (cpu.user + cpu.system) / 1000,
    generatorProcessCpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
    stoppedByCount,
    samples,
  };
}

process.once('message', (message) => {
  const spec = message as LoadSpec;
  // However the run goes, this process is gone shortly after its planned end.
  setTimeout(() => process.exit(3), spec.warmupMs + spec.durationMs + spec.requestTimeoutMs + 20_000).unref();
  run(spec).then(
    (result) => process.send?.(result, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`load generator failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
});
process.once('disconnect', () => process.exit(2));
