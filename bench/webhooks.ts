/**
 * The webhook benchmark (docs/benchmarks.md): call outcomes from the end of the call to the
 * receiver's 2xx. The server is built in this process as `switchboard serve` builds it (src/app.ts)
 * and ends calls through the calls repository, the statement every end of call goes through (it
 * queues the deliveries); the receivers are separate processes on loopback answering 200 at once
 * (one answers after 10 s instead). On PostgreSQL and on the embedded PGlite:
 *  - baseline: the receiver POSTed directly with undici (64 at once), the payload pre-signed;
 *  - backlog drain: N ended calls queued while no worker runs, then one worker started: deliveries/s;
 *  - sustained 200/s and 1,000/s: calls ended at that pace for 10 s; latency = receiver's clock at
 *    the request − the call's `endedAt` (set just before its end statement), p50 and p99;
 *  - the same 1,000/s with one more integration whose receiver takes 10 s per request getting a
 *    share of the calls: the others' p99 against the run without it.
 *
 * Run alone: npx tsx bench/webhooks.ts, or with every benchmark: npm run bench.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Agent, request } from 'undici';
import { createCallsRepository } from '../src/calls/calls.repository.js';
import { type Database, rowsOf } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createDueSignal } from '../src/deliveries/due-signal.js';
import { buildOutcomePayload } from '../src/integrations/outcome-payload.js';
import { newSigningSecret, signWebhook } from '../src/integrations/webhook-signature.js';
import { freePort, runIfMain, sleep, startChild, waitForOutput } from './lib/children.js';
import { machineCpuMs, postgresCpuDelta, postgresCpuMs, processCpuMs } from './lib/cpu.js';
import { benchEngines, ENGINE_LABEL, type Engine, openBenchDatabase } from './lib/database.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { api, signup, startInProcessServer } from './lib/switchboard.js';

const FAST_AGENTS = 10;
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 20_000);
const PACED_SECONDS = 10;
const WARMUP_SECONDS = 2;
const TARGET = { drainPerSecond: 2500, p99At1000Ms: 250, p99At200Ms: 100 };

const log = (message: string) => process.stderr.write(`[webhooks] ${message}\n`);

/**
 * A receiver process: answers 200 after `delayMs`, and for every request keeps the delay since the
 * payload's `endedAt`. `GET /stats?reset=1` returns `{count, latencies}` (and starts over).
 */
async function startReceiver(delayMs: number): Promise<{
  url: string;
  count(): Promise<number>;
  stats(): Promise<{ count: number; latencies: number[] }>;
  stop(): Promise<void>;
}> {
  const port = await freePort();
  const script = `
    let count = 0, latencies = [];
    require('node:http').createServer((q, s) => {
      if (q.url === '/count') return s.end(String(count));
      if (q.method === 'GET') {
        s.end(JSON.stringify({ count, latencies }));
        if (q.url.includes('reset')) { count = 0; latencies = []; }
        return;
      }
      const chunks = [];
      q.on('data', (c) => chunks.push(c));
      q.on('end', () => {
        const at = Date.now();
        const endedAt = Date.parse(JSON.parse(Buffer.concat(chunks)).endedAt);
        const answer = () => { count++; latencies.push(at - endedAt); s.writeHead(200); s.end(); };
        if (${delayMs} > 0) setTimeout(answer, ${delayMs}); else answer();
      });
    }).listen(${port}, '127.0.0.1', () => console.log('listening'));`;
  const child = startChild(process.execPath, ['-e', script], { label: `receiver (${delayMs} ms)` });
  await waitForOutput(child, 'listening');
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async count() {
      return Number(await (await fetch(`${url}/count`)).text());
    },
    async stats() {
      return (await (await fetch(`${url}/stats?reset=1`)).json()) as { count: number; latencies: number[] };
    },
    stop: () => child.stop(2000),
  };
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const TRANSCRIPT = [
  {
    role: 'agent' as const,
    text: 'Hi Ada, this is Sam from Acme Solar. Is now a good time?',
    at: '2026-11-21T10:00:01.200Z',
  },
  { role: 'user' as const, text: 'Yes, go ahead.', at: '2026-11-21T10:00:04.000Z' },
  {
    role: 'agent' as const,
    text: 'You asked about panels for a house in Springfield. What is your email?',
    at: '2026-11-21T10:00:06.000Z',
  },
  { role: 'user' as const, text: 'It is ada@example.com', at: '2026-11-21T10:00:09.000Z' },
  {
    role: 'tool' as const,
    name: 'create_lead',
    text: '{"id":"L-1","status":"created"}',
    at: '2026-11-21T10:00:10.000Z',
  },
  {
    role: 'agent' as const,
    text: 'Done. An installer will call you tomorrow. Anything else?',
    at: '2026-11-21T10:00:12.000Z',
  },
  { role: 'user' as const, text: 'No, thank you. Bye.', at: '2026-11-21T10:00:14.000Z' },
];

interface Fleet {
  /** Agent ids whose integration points at the fast receiver. */
  fast: string[];
  /** The agent whose integration points at the slow receiver. */
  slow: string;
}

/** Signs up and creates the agents with one integration each. */
async function setUp(origin: string, fastUrl: string, slowUrl: string): Promise<Fleet> {
  const apiKey = await signup(origin);
  const agent = async (name: string, url: string) => {
    const created = await api(origin, 'POST', '/v1/agents', { apiKey, body: { name, type: 'click_to_call' } });
    if (created.status !== 201) throw new Error(`create agent: ${created.status} ${JSON.stringify(created.body)}`);
    const id = (created.body as { id: string }).id;
    const hook = await api(origin, 'POST', `/v1/agents/${id}/integrations`, {
      apiKey,
      body: { url, authorization: 'tok_bench_0123456789' },
    });
    if (hook.status !== 201) throw new Error(`create integration: ${hook.status} ${JSON.stringify(hook.body)}`);
    return id;
  };
  const fast: string[] = [];
  for (let i = 0; i < FAST_AGENTS; i++) fast.push(await agent(`Fast ${i}`, `${fastUrl}/hooks/${i}`));
  const slow = await agent('Slow', `${slowUrl}/hooks/slow`);
  return { fast, slow };
}

/** `count` open calls of each agent, straight into the table (placing them is another benchmark). */
async function openCalls(database: Database, agentIds: string[], count: number): Promise<Map<string, string[]>> {
  const byAgent = new Map<string, string[]>();
  for (const agentId of agentIds) {
    const result = await database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, variables, collected_data,
        transcript, created_at, started_at, answered_at, deadline_at)
      select switchboard_new_id('call'), a.organization_id, a.id, 'simulator',
        '+1' || lpad(g::text, 10, '0'), 'in_progress', '{"name":"Ada"}', '{}', '[]', now(), now(), now(),
        now() + interval '1 day'
      from agents a, generate_series(1, ${count}) g where a.id = ${agentId}
      returning id`);
    byAgent.set(
      agentId,
      rowsOf<{ id: string }>(result).map((r) => r.id),
    );
  }
  return byAgent;
}

/** Ends calls as the provider's end-of-call report does, announcing them to the worker. */
function callEnder(database: Database) {
  const calls = createCallsRepository(database.db);
  const due = createDueSignal(database.changes, () => {});
  return (callId: string): Promise<boolean> =>
    calls
      .end(callId, {
        at: new Date(),
        outcome: 'SOLD',
        endedReason: 'customer_ended_call',
        durationSeconds: 42,
        collectedData: { email: 'ada@example.com', name: 'Ada', address: '1 Main St, Springfield' },
        transcript: TRANSCRIPT,
      })
      .then((ended) => {
        due.announce();
        return ended !== null;
      });
}

/** Ends `perSecond` calls a second for `seconds`, taking them from `next()`, in ticks of 5 ms. */
async function endAtPace(
  end: (callId: string) => Promise<boolean>,
  next: () => string,
  perSecond: number,
  seconds: number,
) {
  const started = performance.now();
  let ended = 0;
  const writes: Promise<boolean>[] = [];
  for (;;) {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= seconds) break;
    const due = Math.floor(elapsed * perSecond);
    for (; ended < due; ended++) writes.push(end(next()));
    await sleep(5);
  }
  await Promise.all(writes);
  return ended;
}

/** The server under test; `api` serves HTTP only (no worker), `all` also delivers. */
const buildServer = (database: Database, masterKey: Buffer, role: 'api' | 'all') =>
  startInProcessServer(database, masterKey, {
    SWITCHBOARD_ROLE: role,
    SWITCHBOARD_SHUTDOWN_GRACE_MS: '200',
    // The duration sweep is not what is measured.
    SWITCHBOARD_SWEEP_INTERVAL_MS: '3600000',
  });

async function deliveredCount(database: Database): Promise<number> {
  const result = await database.db.execute(sql`select count(*)::int as n from deliveries where state = 'delivered'`);
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}

async function measureEngine(
  engine: Engine,
  receivers: { fast: Awaited<ReturnType<typeof startReceiver>>; slow: Awaited<ReturnType<typeof startReceiver>> },
  rows: Row[],
  notes: string[],
): Promise<void> {
  const label = ENGINE_LABEL[engine];
  const { database, cleanup } = await openBenchDatabase(engine, 'webhooks');
  const masterKey = randomBytes(32);
  try {
    await migrate(database.db);
    // Setting up through the API, with no worker yet.
    const setup = await buildServer(database, masterKey, 'api');
    const fleet = await setUp(setup.origin, receivers.fast.url, receivers.slow.url);
    await setup.app.close();

    const paced = Math.ceil((200 + 1000 + 1000) * (PACED_SECONDS + WARMUP_SECONDS) * 1.1);
    const perFast = Math.ceil((BACKLOG + paced) / FAST_AGENTS);
    const open = await openCalls(database, [...fleet.fast, fleet.slow], perFast);
    const fastQueue = [...fleet.fast.map((id) => open.get(id) ?? [])];
    let turn = 0;
    const nextFast = () => {
      const queue = fastQueue[turn++ % FAST_AGENTS] as string[];
      const id = queue.pop();
      if (!id) throw new Error('ran out of open calls');
      return id;
    };
    const slowQueue = open.get(fleet.slow) ?? [];
    const end = callEnder(database);

    // Baseline: the receiver POSTed directly, 64 at once, with a payload signed once.
    const secret = newSigningSecret();
    const body = buildOutcomePayload(
      {
        id: 'call_x',
        agentId: 'agt_x',
        from: '+14155550100',
        to: '+14155550123',
        outcome: 'SOLD',
        endedReason: 'customer_ended_call',
        transcript: TRANSCRIPT,
        collectedData: { email: 'ada@example.com' },
        variables: { name: 'Ada' },
        startedAt: new Date().toISOString(),
        endedAt: new Date().toISOString(),
        durationSeconds: 42,
      },
      'Fast 0',
    ).body;
    const direct = new Agent({ connections: 64 });
    const directCount = 10_000;
    let sent = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (sent++ < directCount) {
          const headers = {
            'content-type': 'application/json',
            ...signWebhook({ body, webhookId: 'msg_x', timestamp: Math.floor(Date.now() / 1000), secrets: [secret] }),
          };
          const response = await request(`${receivers.fast.url}/direct`, {
            method: 'POST',
            body,
            headers,
            dispatcher: direct,
          });
          await response.body.dump();
        }
      }),
    );
    const directRate = (directCount / (performance.now() - t0)) * 1000;
    await direct.close();
    await receivers.fast.stats();
    rows.push({ name: `receiver POSTed directly, 64 at once (${label})`, value: directRate, unit: 'req/s' });

    // Backlog: calls ended while no worker runs, then a worker drains them.
    log(`${label}: ending ${BACKLOG} calls with no worker running`);
    await Promise.all(Array.from({ length: BACKLOG }, () => end(nextFast())));
    log(`${label}: draining`);
    const cpuBefore = {
      node: await processCpuMs(process.pid),
      postgres: await postgresCpuMs(),
      machine: await machineCpuMs(),
    };
    const drainStart = performance.now();
    const worker = await buildServer(database, masterKey, 'all');
    let drained = 0;
    while (drained < BACKLOG) {
      await sleep(20);
      drained = await receivers.fast.count();
      if (performance.now() - drainStart > 120_000) throw new Error(`drained only ${drained} of ${BACKLOG} in 120 s`);
    }
    const drainSeconds = (performance.now() - drainStart) / 1000;
    const nodeCpu = (await processCpuMs(process.pid)) - cpuBefore.node;
    const postgresCpu = postgresCpuDelta(cpuBefore.postgres, await postgresCpuMs());
    const machineBusy = (await machineCpuMs()).busyMs - cpuBefore.machine.busyMs;
    // For PGlite the database runs inside this process: its CPU is the server's.
    const drainRate = BACKLOG / drainSeconds;
    await receivers.fast.stats();
    if (process.env.BENCH_WEBHOOK_STAGES === 'drain') {
      log(`${label}: drained ${BACKLOG} in ${drainSeconds.toFixed(2)} s: ${drainRate.toFixed(0)}/s`);
      await worker.app.close();
      return;
    }
    rows.push({
      name: `backlog of ${BACKLOG.toLocaleString('en-US')} drained by one process, ${FAST_AGENTS} integrations (${label})`,
      value: drainRate,
      unit: 'req/s',
      ratio: drainRate / directRate,
      serverCpuUs: (nodeCpu * 1000) / BACKLOG,
      postgresCpuUs: engine === 'postgresql' ? (postgresCpu * 1000) / BACKLOG : undefined,
      note: `machine ${((machineBusy / 1000 / drainSeconds) * 100).toFixed(0)} % of one core busy`,
      target:
        engine === 'postgresql'
          ? { text: `≥ ${TARGET.drainPerSecond}/s`, pass: drainRate >= TARGET.drainPerSecond }
          : undefined,
    });

    const pacedRun = async (
      perSecond: number,
      name: string,
      slowShare: boolean,
      target?: number,
      compareTo?: number,
    ) => {
      log(`${label}: ${name}`);
      let slowTurn = 0;
      const next = slowShare
        ? () => (++slowTurn % (FAST_AGENTS + 1) === 0 ? (slowQueue.pop() as string) : nextFast())
        : nextFast;
      await endAtPace(end, next, perSecond, WARMUP_SECONDS);
      await sleep(300);
      await receivers.fast.stats();
      const count = await endAtPace(end, next, perSecond, PACED_SECONDS);
      await sleep(1000);
      const { latencies } = await receivers.fast.stats();
      const sorted = latencies.sort((a, b) => a - b);
      const p50 = percentile(sorted, 0.5);
      const p99 = percentile(sorted, 0.99);
      const checks: string[] = [];
      let pass = true;
      if (target !== undefined) {
        checks.push(`p99 ≤ ${target} ms`);
        pass &&= p99 <= target;
      }
      if (compareTo !== undefined) {
        checks.push(`p99 < 2× ${compareTo.toFixed(0)} ms`);
        pass &&= p99 < 2 * compareTo;
      }
      rows.push({
        name: `${name} (${label})`,
        value: (sorted.length / PACED_SECONDS) as number,
        unit: 'req/s',
        p50Ms: p50,
        p99Ms: p99,
        target: engine === 'postgresql' && checks.length > 0 ? { text: checks.join(', '), pass } : undefined,
        note: `${count} ended, ${sorted.length} received`,
      });
      return p99;
    };
    await pacedRun(200, '200 calls/s ended, end to receiver 2xx', false, TARGET.p99At200Ms);
    const p99At1000 = await pacedRun(1000, '1,000 calls/s ended, end to receiver 2xx', false, TARGET.p99At1000Ms);
    await pacedRun(1000, '1,000 calls/s with a 10 s receiver taking 1 in 11: the others', true, undefined, p99At1000);
    const slowStats = await receivers.slow.stats();
    notes.push(
      `${label}: the 10 s receiver answered ${slowStats.count} requests during its run (at most 16 at once per process); drain took ${drainSeconds.toFixed(2)} s; ${await deliveredCount(database)} deliveries delivered in all`,
    );
    await worker.app.close();
  } finally {
    await database.close();
    await cleanup();
  }
}

export const webhooks: Benchmark = {
  name: 'webhooks',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    const fast = await startReceiver(0);
    const slow = await startReceiver(10_000);
    try {
      for (const engine of benchEngines()) {
        try {
          await measureEngine(engine, { fast, slow }, rows, notes);
        } catch (error) {
          failures.push(`${engine}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
      }
    } finally {
      await fast.stop();
      await slow.stop();
    }
    notes.push(
      `${WARMUP_SECONDS} s warm-up then ${PACED_SECONDS} s measured per paced row; calls spread over ${FAST_AGENTS} agents with one integration each; receivers are separate processes on loopback; "× floor" of the drain is its rate over POSTing the receiver directly`,
    );
    return { name: 'webhooks', rows, notes, failures };
  },
};

await runIfMain(import.meta.url, webhooks);
