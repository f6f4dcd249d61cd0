/**
 * The tool-call benchmark (docs/benchmarks.md): what running a tool through Switchboard adds to
 * calling the customer's endpoint directly. In one run, against one endpoint on loopback (a child
 * process answering a small JSON body at once):
 *  - the baseline: undici POSTs straight to the endpoint, with a connection pool;
 *  - ours: `tools.invokeDuringCall`, the path every provider's tool call takes (the simulator's
 *    scenario turns now, the Vapi and Retell tool webhooks later): read the call and its attached
 *    tool, check the arguments, build and send the request through the guarded client, record the
 *    invocation on the call;
 * on PostgreSQL and on the embedded PGlite, in three loads (the tool calls spread over 2,500 calls in progress):
 *  - 1 call: one worker, tool calls back to back;
 *  - 200 concurrent calls: 200 workers, each making a tool call about once a second (uniformly
 *    0–2 s apart): far more often than a conversation does, and the load the target is set for;
 *  - saturation: 200 workers back to back, for the throughput ratio (not a latency figure: in a
 *    closed loop at saturation, latency is concurrency ÷ throughput).
 * Added latency = ours − baseline, at p50 and p99. Before the loads, each call's first tool call (the
 * one that reads the call from the database in this process) is measured on its own.
 *
 * Run alone: npx tsx bench/tool-calls.ts, or with every benchmark: npm run bench.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { migrate } from '../src/db/migrate.js';
import { createSecretBox } from '../src/lib/crypto.js';
import { createOutboundClient } from '../src/lib/outbound-http.js';
import { createToolCallCache } from '../src/tools/tool-call-cache.js';
import { createToolsRepository } from '../src/tools/tools.repository.js';
import { createToolsService } from '../src/tools/tools.service.js';
import { freePort, runIfMain, sleep, startChild, waitForOutput } from './lib/children.js';
import { postgresCpuDelta, postgresCpuMs } from './lib/cpu.js';
import { benchEngines, ENGINE_LABEL, type Engine, openBenchDatabase } from './lib/database.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { api, signup, startInProcessServer } from './lib/switchboard.js';

const CALLS = 200;
/**
 * Calls in progress the tool calls are spread over: a call may make at most 50 tool calls
 * (MAX_INVOCATIONS_PER_CALL), and the loads make about 50,000 in all.
 */
const CALL_POOL = 2500;
/** Mean time between one call's tool calls in the 200-call load. */
const PACE_MS = 1000;
const WARMUP_MS = 1000;
const DURATION_MS = 5000;
const TARGET = { addedP50Ms: 1, addedP99Ms: 5 };

const log = (message: string) => process.stderr.write(`[tool-calls] ${message}\n`);

/** The customer's endpoint: answers every request with a small JSON body as soon as it is read. */
async function startEndpoint(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const script = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => {
    s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"id":"L-1","status":"created"}'); }); })
    .listen(${port}, '127.0.0.1', () => console.log('listening'));`;
  const child = startChild(process.execPath, ['-e', script], { label: 'tool endpoint' });
  await waitForOutput(child, 'listening');
  return { url: `http://127.0.0.1:${port}`, stop: () => child.stop(2000) };
}

/** A tool as customers write them: a secret header, a Variable header, AI-filled and Variable parameters. */
function toolDefinition(endpoint: string) {
  return {
    name: 'create_lead',
    description: 'Creates a lead once the caller gave an email. Returns the lead id.',
    method: 'POST',
    url: `${endpoint}/leads/{region}`,
    headers: [
      { key: 'Authorization', mode: 'fixed', value: 'Bearer sk_bench_0123456789' },
      { key: 'X-Customer', mode: 'variable', value: '{{name}}' },
    ],
    parameters: [
      { name: 'region', location: 'path', type: 'string', fillMode: 'fixed', value: 'eu' },
      { name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true },
      { name: 'plan', location: 'body', type: 'string', fillMode: 'ai', allowedValues: ['basic', 'pro'] },
      { name: 'name', location: 'body', type: 'string', fillMode: 'variable', value: '{{name}}' },
      { name: 'source', location: 'query', type: 'string', fillMode: 'fixed', value: 'phone' },
    ],
    variables: [{ name: 'name', defaultValue: 'caller' }],
  };
}

/** The model's arguments: a new email each time, so every run adds to its call's collected values. */
let argsSent = 0;
const nextArgs = () => ({ email: `lead${++argsSent}@example.com`, plan: 'pro' });

interface Percentiles {
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
}

function percentiles(samples: number[], elapsedMs: number): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { count: sorted.length, perSecond: (sorted.length / elapsedMs) * 1000, p50: at(0.5), p99: at(0.99) };
}

/**
 * `workers` workers, each with its own call, each waiting `pauseMs()` before every tool call (0: a
 * closed loop): the latencies of the calls started after the warm-up.
 */
async function runWorkers(
  workers: number,
  pauseMs: () => number,
  once: (worker: number) => Promise<void>,
  durationMs: number,
): Promise<Percentiles> {
  const samples: number[] = [];
  const started = performance.now();
  const measureFrom = started + WARMUP_MS;
  const stopAt = measureFrom + durationMs;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (;;) {
        const pause = pauseMs();
        if (pause > 0) await sleep(pause);
        const t0 = performance.now();
        if (t0 >= stopAt) return;
        await once(worker);
        if (t0 >= measureFrom) samples.push(performance.now() - t0);
      }
    }),
  );
  return percentiles(samples, durationMs);
}

let operations = 0;
/** `once`, counting every completion (warm-up included) for CPU per operation. */
function counted(once: (worker: number) => Promise<void>): (worker: number) => Promise<void> {
  return async (worker) => {
    await once(worker);
    operations += 1;
  };
}

/** A load with the CPU this process and PostgreSQL used per operation while it ran, in µs. */
async function withCpu(
  run: () => Promise<Percentiles>,
): Promise<Percentiles & { processCpuUs: number; postgresCpuUs: number }> {
  operations = 0;
  const self = process.cpuUsage();
  const postgres = await postgresCpuMs();
  const result = await run();
  const used = process.cpuUsage(self);
  const postgresMs = postgresCpuDelta(postgres, await postgresCpuMs());
  const per = Math.max(1, operations);
  return { ...result, processCpuUs: (used.user + used.system) / per, postgresCpuUs: (postgresMs * 1000) / per };
}

// The paced load is measured twice as long: its p99 rests on ~2,000 samples.
const LOADS = [
  { name: '1 call, back to back', workers: 1, pauseMs: () => 0, checked: false, durationMs: DURATION_MS },
  {
    name: `${CALLS} concurrent calls, ~1 tool call/s each`,
    workers: CALLS,
    pauseMs: () => Math.random() * 2 * PACE_MS,
    checked: true,
    durationMs: 2 * DURATION_MS,
  },
  {
    name: `${CALLS} workers back to back (saturation)`,
    workers: CALLS,
    pauseMs: () => 0,
    checked: false,
    durationMs: DURATION_MS,
  },
];

async function measureEngine(engine: Engine, endpoint: string, rows: Row[], notes: string[]): Promise<void> {
  const label = ENGINE_LABEL[engine];
  const { database, cleanup } = await openBenchDatabase(engine, 'tools');
  const masterKey = randomBytes(32);
  try {
    await migrate(database.db);
    const { app, origin } = await startInProcessServer(database, masterKey);
    // The path under test, composed as the app composes it (src/app.ts).
    const outbound = createOutboundClient({ allowPrivateNetworks: true });
    const tools = createToolsService({
      repository: createToolsRepository(database.db),
      secretBox: createSecretBox(masterKey),
      outbound,
      allowPrivateNetworks: true,
      changes: database.changes,
      cache: createToolCallCache({ feed: database.changes }),
    });
    const direct = new Agent({ connections: 256 });
    try {
      const { apiKey, placeCalls } = await setUp(origin, endpoint);
      const callIds = await placeCalls(CALL_POOL, 1000);
      let nextCall = 0;
      const callDirect = async () => {
        const response = await request(`${endpoint}/leads/eu?source=phone`, {
          method: 'POST',
          dispatcher: direct,
          headers: {
            authorization: 'Bearer sk_bench_0123456789',
            'x-customer': 'Ada',
            'content-type': 'application/json',
            'user-agent': 'Switchboard-Tools/1',
          },
          body: JSON.stringify({ ...nextArgs(), name: 'Ada' }),
        });
        await response.body.text();
        if (response.statusCode !== 200) throw new Error(`direct: HTTP ${response.statusCode}`);
      };
      // Each tool call goes to the next call of the pool in turn, so no call nears its budget.
      const callOurs = async () => {
        const outcome = await tools.invokeDuringCall({
          callId: callIds[nextCall++ % callIds.length]!,
          name: 'create_lead',
          args: nextArgs(),
        });
        if (outcome.error) throw new Error(`invokeDuringCall: ${outcome.result}`);
      };
      // Every call's first tool call in this process reads it from the database (a cache miss): done
      // once for each before the loads, which measure calls under way. Measured on its own below.
      for (let i = 0; i < CALL_POOL; i++) await callOurs();
      for (const load of LOADS) {
        log(`${label}: ${load.name}, direct`);
        const baseline = await withCpu(() =>
          runWorkers(load.workers, load.pauseMs, counted(callDirect), load.durationMs),
        );
        log(`${label}: ${load.name}, through invokeDuringCall`);
        const ours = await withCpu(() => runWorkers(load.workers, load.pauseMs, counted(callOurs), load.durationMs));
        if (load.pauseMs() === 0 && load.workers > 1) {
          // Both loads run in this process; what the tool call adds is the difference per call.
          const addedUs = ours.processCpuUs - baseline.processCpuUs;
          notes.push(
            `${label}, CPU per tool call at saturation: ${Math.round(addedUs)} µs added in the server's process (${Math.round(ours.processCpuUs)} µs through invokeDuringCall − ${Math.round(baseline.processCpuUs)} µs calling directly), ${engine === 'postgresql' ? `${Math.round(ours.postgresCpuUs)} µs in PostgreSQL (all its processes on the machine)` : 'the database included'}`,
          );
        }
        const row = (name: string, m: Percentiles): Row => ({
          name,
          value: m.perSecond,
          unit: 'req/s',
          p50Ms: m.p50,
          p99Ms: m.p99,
        });
        rows.push(row(`${load.name}: endpoint called directly`, baseline));
        rows.push({
          ...row(`${load.name}: through invokeDuringCall (${label})`, ours),
          ratio: ours.perSecond / baseline.perSecond,
        });
        if (load.pauseMs() === 0 && load.workers > 1) continue;
        const addedP50 = ours.p50 - baseline.p50;
        const addedP99 = ours.p99 - baseline.p99;
        rows.push({
          name: `${load.name}: added by Switchboard (${label})`,
          value: addedP50,
          unit: 'ms',
          p50Ms: addedP50,
          p99Ms: addedP99,
          target: load.checked
            ? {
                text: `added p50 < ${TARGET.addedP50Ms} ms, p99 < ${TARGET.addedP99Ms} ms`,
                pass: addedP50 < TARGET.addedP50Ms && addedP99 < TARGET.addedP99Ms,
              }
            : undefined,
        });
      }
      // The first tool call of new calls, one at a time, in a server that has run tools for a while.
      log(`${label}: first tool call of ${CALLS} new calls`);
      const newCalls = await placeCalls(CALLS, 1000 + CALL_POOL);
      const firsts: number[] = [];
      for (const callId of newCalls) {
        const t0 = performance.now();
        const outcome = await tools.invokeDuringCall({ callId, name: 'create_lead', args: nextArgs() });
        firsts.push(performance.now() - t0);
        if (outcome.error) throw new Error(`invokeDuringCall: ${outcome.result}`);
      }
      const first = percentiles(firsts, 1);
      rows.push({
        name: `first tool call of a new call, one at a time (${label}), endpoint included`,
        value: first.p50,
        unit: 'ms',
        p50Ms: first.p50,
        p99Ms: first.p99,
      });
      const invocations = await api(origin, 'GET', `/v1/calls/${callIds[0]}`, { apiKey });
      const recorded = (invocations.body as { toolInvocations: unknown[] }).toolInvocations.length;
      notes.push(
        `${label}: ${recorded} invocations recorded on the first worker's call (each run records one per invocation)`,
      );
    } finally {
      await direct.close();
      await outbound.close();
      await app.close();
    }
  } finally {
    await database.close();
    await cleanup();
  }
}

interface Setup {
  apiKey: string;
  /** Places `count` more calls (numbers from `firstNumber` on), in progress for an hour; their ids. */
  placeCalls(count: number, firstNumber: number): Promise<string[]>;
}

/** Signs up, creates the tool and a simulator agent whose calls stay in progress for an hour. */
async function setUp(origin: string, endpoint: string): Promise<Setup> {
  const apiKey = await signup(origin);
  const tool = await api(origin, 'POST', '/v1/tools', { apiKey, body: toolDefinition(endpoint) });
  if (tool.status !== 201) throw new Error(`create tool: ${tool.status} ${JSON.stringify(tool.body)}`);
  const toolId = (tool.body as { id: string }).id;
  const agent = await api(origin, 'POST', '/v1/agents', {
    apiKey,
    body: {
      name: 'Bench tools agent',
      rateLimitPerMinute: null,
      toolIds: [toolId],
      firstMessage: 'Hi {{name}}',
      simulator: { delayMs: 3_600_000 },
    },
  });
  if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  const agentId = (agent.body as { id: string }).id;
  const credentials = (await api(origin, 'GET', `/v1/agents/${agentId}/credentials`, { apiKey })).body as {
    apiToken: string;
    apiSecret: string;
  };
  async function placeCalls(count: number, firstNumber: number): Promise<string[]> {
    const callIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const phone = `+1415555${String(firstNumber + i).padStart(4, '0')}`;
      const body = JSON.stringify({ phone, variables: { name: 'Ada' } });
      const response = await fetch(`${origin}/api/click-to-call`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'api-key': credentials.apiToken,
          signature: createHmac('sha256', credentials.apiSecret).update(body).digest('hex'),
        },
        body,
      });
      const answer = (await response.json()) as { callId?: string };
      if (response.status !== 200 || !answer.callId)
        throw new Error(`click-to-call: ${response.status} ${JSON.stringify(answer)}`);
      callIds.push(answer.callId);
    }
    return callIds;
  }
  return { apiKey, placeCalls };
}

export const toolCalls: Benchmark = {
  name: 'tool calls',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    const endpoint = await startEndpoint();
    try {
      for (const engine of benchEngines()) {
        try {
          await measureEngine(engine, endpoint.url, rows, notes);
        } catch (error) {
          failures.push(`${engine}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      await endpoint.stop();
    }
    notes.push(
      `${WARMUP_MS} ms warm-up then ${DURATION_MS} ms measured per row (${2 * DURATION_MS} ms for the ${CALLS} paced calls); tool calls spread in turn over ${CALL_POOL} calls in progress (a call may make 50); the endpoint is a separate process on loopback; "× floor" of a saturation row is its throughput over the direct calls'`,
    );
    return { name: 'tool calls', rows, notes, failures };
  },
};

await runIfMain(import.meta.url, toolCalls);
