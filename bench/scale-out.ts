/**
 * The scale-out benchmark (docs/benchmarks.md#scale-out, issue 20 §3): on PostgreSQL, the same
 * click-to-call load through the same round-robin proxy (bench/lib/round-robin-proxy.ts) to
 *  - 1 process doing all (SWITCHBOARD_ROLE unset, the default `all`): the baseline;
 *  - 2 `api` processes and 1 `worker` (SWITCHBOARD_ROLE=api|worker) sharing one database.
 * Each configuration on a new database, every process started as the README starts it; an agent
 * on the simulator in its default configuration but for a rate limit high enough not to refuse,
 * with two webhook integrations to a loopback receiver (bench/lib/outcome-receiver.ts) that
 * answers 200 and records every delivery. Measured: accepted calls per second, delivered outcomes
 * per second (from the first call's insert to the receiver's last delivery), CPU per accepted call
 * of our processes and of PostgreSQL's backends serving them, and that every call in the database
 * reached the receiver exactly once per integration (lost and duplicated must both be 0, or the
 * benchmark fails).
 *
 * Run alone: npx tsx bench/scale-out.ts (after npm run build), or npm run bench -- scale-out.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { acceptRequests } from './click-to-call.js';
import { type Child, freePort, runIfMain, sleep, startTsChild, waitForOutput } from './lib/children.js';
import { machineCpuMs, postgresCpuMs, processCpuMs } from './lib/cpu.js';
import { type LoadResult, type LoadSpec, runLoad } from './lib/load.js';
import { DISTURBED_PCT } from './lib/paced.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import {
  api,
  type BenchAgent,
  createClickToCallAgent,
  type RunningSwitchboard,
  signup,
  startSwitchboard,
} from './lib/switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = 50;
const WARMUP_MS = 1000;
const DURATION_MS = 5000;
/** Unique numbers prepared for the load: more than this machine accepts in 6 s when quiet. `BENCH_SCALEOUT_MAX_REQUESTS` lowers it on a busy machine, where preparing them takes long. */
const MAX_REQUESTS = Number(process.env.BENCH_SCALEOUT_MAX_REQUESTS ?? 40_000);
/** Every outcome must reach the receiver within this after the load ends. */
const DRAIN_TIMEOUT_MS = 180_000;
/** After the last expected delivery, how long to go on listening for late duplicates. */
const SETTLE_MS = 2000;
/** The integrations of the agent, each its own path on the receiver. */
const INTEGRATIONS = ['a', 'b'] as const;
/** High enough never to refuse in this load: the agent's limit is on, as every real agent's is. */
const RATE_LIMIT_PER_MINUTE = 1_000_000;
/** At this share of the machine used by other processes, a configuration's figures are marked DISTURBED. */

const log = (message: string) => process.stderr.write(`[scale-out] ${message}\n`);

interface Configuration {
  label: string;
  /** The processes, in start order; the first one migrates the new database alone. */
  processes: { name: string; role: 'all' | 'api' | 'worker' }[];
}

const SINGLE: Configuration = { label: '1 process (all)', processes: [{ name: 'all', role: 'all' }] };
const SPLIT: Configuration = {
  label: '2 api + 1 worker',
  processes: [
    { name: 'api-1', role: 'api' },
    { name: 'api-2', role: 'api' },
    { name: 'worker', role: 'worker' },
  ],
};

interface Outcome {
  label: string;
  load: LoadResult;
  calls: number;
  deliveries: number;
  lost: number;
  duplicated: number;
  acceptedPerS: number;
  deliveredPerS: number;
  /** From the first call's insert to the receiver's last delivery, in s. */
  spanS: number;
  /** CPU in ms from the load's start until every outcome was delivered, by process name. */
  cpuMs: Record<string, number>;
  /** PostgreSQL backends' CPU in ms, by the name of the process they serve; `background` is the server's own. */
  postgresMs: Record<string, number>;
  othersPct: number;
  notes: string[];
}

/** A process of ours being measured: its name and pid. */
interface Measured {
  name: string;
  pid: number;
}

/** Which process each PostgreSQL backend serves: ours by application name, others' or the server's own. */
async function backendOwners(admin: pg.Client, database: string, into: Map<string, string>): Promise<void> {
  const { rows } = await admin.query<{
    pid: number;
    application_name: string;
    datname: string | null;
    backend_type: string;
  }>('select pid, application_name, datname, backend_type from pg_stat_activity');
  for (const row of rows) {
    const owner =
      row.datname === database
        ? row.application_name.replace(/^scaleout-/, '') || 'unnamed'
        : row.backend_type === 'client backend'
          ? 'others'
          : 'background';
    into.set(String(row.pid), owner);
  }
}

/** CPU of our processes, with the machine's, at one moment. */
async function snapshot(processes: Measured[]) {
  const ours: Record<string, number> = {};
  for (const { name, pid } of processes) ours[name] = await processCpuMs(pid);
  return { at: performance.now(), ours, machine: await machineCpuMs(), self: process.cpuUsage() };
}

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/**
 * PostgreSQL's CPU by the process each backend serves, from `start` to `stop`. Backends come and go
 * (a pool closes a connection idle for 30 s, which happens to the api processes' while the worker
 * drains), so every postgres process is sampled each second and a backend gone by the end counts
 * with its last sample. A backend that started in between counts from 0.
 */
function trackPostgres(admin: pg.Client, database: string) {
  const owners = new Map<string, string>();
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let sampling: Promise<void> = Promise.resolve();
  const sample = () => {
    sampling = sampling.then(async () => {
      for (const [pid, ms] of await postgresCpuMs()) last.set(pid, ms);
      await backendOwners(admin, database, owners);
    });
    return sampling;
  };
  return {
    async start(): Promise<void> {
      for (const [pid, ms] of await postgresCpuMs()) first.set(pid, ms);
      await sample();
      timer = setInterval(() => void sample().catch(() => {}), 1000);
    },
    /** ms of CPU by owner: a process of ours by name, `others` (other databases), `background` (the server's own). */
    async stop(): Promise<Record<string, number>> {
      clearInterval(timer);
      await sample();
      const byOwner: Record<string, number> = {};
      for (const [pid, ms] of last) {
        const owner = owners.get(pid) ?? 'background';
        byOwner[owner] = (byOwner[owner] ?? 0) + ms - (first.get(pid) ?? 0);
      }
      return byOwner;
    },
  };
}

function cpuBetween(before: Snapshot, after: Snapshot, postgresMs: Record<string, number>) {
  const cpuMs: Record<string, number> = {};
  for (const name of Object.keys(after.ours)) cpuMs[name] = after.ours[name]! - (before.ours[name] ?? 0);
  const self = process.cpuUsage(before.self);
  const capacityMs = (after.at - before.at) * os.cpus().length;
  const measuredMs =
    Object.values(cpuMs).reduce((a, b) => a + b, 0) +
    Object.entries(postgresMs)
      .filter(([owner]) => owner !== 'others')
      .reduce((a, [, ms]) => a + ms, 0) +
    (self.user + self.system) / 1000;
  return { cpuMs, busyMs: after.machine.busyMs - before.machine.busyMs, measuredMs, capacityMs };
}

/** The agent every configuration uses: default settings on the simulator, rate limit on, two integrations. */
async function createAgent(
  origin: string,
  apiKey: string,
  receiverUrl: string,
  tag: string,
): Promise<BenchAgent & { integrations: Map<string, string> }> {
  const agent = await createClickToCallAgent(origin, apiKey, { rateLimitPerMinute: RATE_LIMIT_PER_MINUTE });
  // integration id → the receiver path it posts to
  const integrations = new Map<string, string>();
  for (const name of INTEGRATIONS) {
    const path = `/hooks/${tag}/${name}`;
    const hook = await api(origin, 'POST', `/v1/agents/${agent.agentId}/integrations`, {
      apiKey,
      body: { url: `${receiverUrl}${path}`, authorization: 'tok_bench_0123456789' },
    });
    if (hook.status !== 201) throw new Error(`create integration: ${hook.status} ${JSON.stringify(hook.body)}`);
    integrations.set((hook.body as { id: string }).id, path);
  }
  return { ...agent, integrations };
}

interface Receiver {
  url: string;
  child: Child;
  count(): Promise<number>;
  deliveries(): Promise<{ paths: string[]; webhookIds: string[]; callIds: string[]; arrivedAt: number[] }>;
  reset(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const port = await freePort();
  const child = startTsChild('lib/outcome-receiver.ts', 'receiver', { ...process.env, RECEIVER_PORT: String(port) });
  await waitForOutput(child, 'listening', 30_000);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child,
    count: async () => Number(await (await fetch(`${url}/count`)).text()),
    deliveries: async () =>
      (await (await fetch(`${url}/deliveries`)).json()) as Awaited<ReturnType<Receiver['deliveries']>>,
    reset: async () => void (await fetch(`${url}/deliveries`, { method: 'DELETE' })).arrayBuffer(),
  };
}

async function startProxy(backends: string[]): Promise<{ origin: string; child: Child }> {
  const port = await freePort();
  const child = startTsChild('lib/round-robin-proxy.ts', 'proxy', {
    ...process.env,
    PROXY_PORT: String(port),
    PROXY_BACKENDS: backends.join(','),
  });
  await waitForOutput(child, 'listening', 30_000);
  return { origin: `http://127.0.0.1:${port}`, child };
}

/** Exactly one delivery per call and integration: what is missing and what came more than once. */
function reconcile(
  callIds: string[],
  paths: string[],
  received: Awaited<ReturnType<Receiver['deliveries']>>,
  webhookIdsInDatabase: Set<string>,
) {
  const seen = new Map<string, number>();
  for (let i = 0; i < received.paths.length; i++) {
    const key = `${received.paths[i]} ${received.callIds[i]}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  let lost = 0;
  let duplicated = 0;
  const expected = new Set<string>();
  for (const callId of callIds) {
    for (const path of paths) {
      const key = `${path} ${callId}`;
      expected.add(key);
      const n = seen.get(key) ?? 0;
      if (n === 0) lost++;
      else duplicated += n - 1;
    }
  }
  // Deliveries for calls or paths that were never accepted count as duplicates too: something sent twice or wrongly.
  let unexpected = 0;
  for (const [key, n] of seen) if (!expected.has(key)) unexpected += n;
  // The event id: one per delivery, the same on a retry, so a repeated one is a delivery received twice.
  const ids = new Map<string, number>();
  for (const id of received.webhookIds) ids.set(id, (ids.get(id) ?? 0) + 1);
  let repeatedIds = 0;
  for (const n of ids.values()) repeatedIds += n - 1;
  let idsNotReceived = 0;
  for (const id of webhookIdsInDatabase) if (!ids.has(id)) idsNotReceived++;
  return { lost, duplicated: duplicated + unexpected, unexpected, repeatedIds, idsNotReceived };
}

async function runConfiguration(
  configuration: Configuration,
  admin: pg.Client,
  receiver: Receiver,
  phonesFrom: number,
): Promise<Outcome> {
  const name = `switchboard_bench_scaleout_${randomBytes(6).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const base = {
    DATABASE_URL: url.toString(),
    SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
    SWITCHBOARD_SIGNUP: 'open',
    // The receiver is on loopback, which outbound requests refuse by default.
    SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const servers: { name: string; role: string; server: RunningSwitchboard }[] = [];
  let proxy: { origin: string; child: Child } | undefined;
  const observer = new pg.Client({ connectionString: url.toString(), application_name: 'scaleout-bench' });
  const notes: string[] = [];
  try {
    log(`${configuration.label}: starting on ${name}`);
    const start = async ({ name: process, role }: Configuration['processes'][number]) => {
      // PGAPPNAME labels each process's connections in pg_stat_activity, so PostgreSQL's CPU is
      // shared out by the process it serves. It changes nothing else.
      const settings: Record<string, string> = { ...base, PGAPPNAME: `scaleout-${process}` };
      if (role !== 'all') settings.SWITCHBOARD_ROLE = role;
      servers.push({ name: process, role, server: await startSwitchboard(`switchboard (${process})`, settings) });
    };
    const [first, ...rest] = configuration.processes;
    await start(first!);
    await Promise.all(rest.map(start));
    proxy = await startProxy(servers.filter((s) => s.role !== 'worker').map((s) => s.server.origin));
    await observer.connect();

    const apiKey = await signup(proxy.origin);
    const agent = await createAgent(
      proxy.origin,
      apiKey,
      receiver.url,
      configuration.processes.length > 1 ? 'split' : 'single',
    );
    await receiver.reset();

    const measured: Measured[] = [
      ...servers.map((s) => ({ name: s.name, pid: s.server.child.pid })),
      { name: 'proxy', pid: proxy.child.pid },
      { name: 'receiver', pid: receiver.child.pid },
    ];
    const postgres = trackPostgres(admin, name);
    const spec: LoadSpec = {
      origin: proxy.origin,
      path: '/api/click-to-call',
      requests: acceptRequests(agent, phonesFrom),
      connections: CONNECTIONS,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      maxRequests: MAX_REQUESTS,
      requestTimeoutMs: 10_000,
      expectedStatus: 200,
    };
    log(`${configuration.label}: click-to-call load through the proxy`);
    await postgres.start();
    const before = await snapshot(measured);
    const load = await runLoad(spec);

    const { rows: countRows } = await observer.query<{ n: number }>(
      'select count(*)::int as n from calls where agent_id = $1',
      [agent.agentId],
    );
    const calls = countRows[0]!.n;
    const expected = calls * INTEGRATIONS.length;
    log(`${configuration.label}: ${calls} calls accepted; waiting for ${expected} deliveries`);
    const waitedSince = performance.now();
    while ((await receiver.count()) < expected) {
      if (performance.now() - waitedSince > DRAIN_TIMEOUT_MS) {
        notes.push(`not every outcome arrived within ${DRAIN_TIMEOUT_MS / 1000} s of the load's end`);
        break;
      }
      await sleep(100);
    }
    const after = await snapshot(measured);
    const postgresMs = await postgres.stop();
    const cpu = cpuBetween(before, after, postgresMs);
    const othersMs = cpu.busyMs - cpu.measuredMs - load.generatorProcessCpuMs;
    const othersPct = Math.max(0, (othersMs / cpu.capacityMs) * 100);

    // Late duplicates would arrive now; and each attempt is recorded after its answer, in batches.
    await sleep(SETTLE_MS);
    for (let waited = 0; waited < 10_000; waited += 200) {
      const { rows } = await observer.query<{ n: number }>(
        "select count(*)::int as n from deliveries where integration_id = any($1) and state = 'pending'",
        [[...agent.integrations.keys()]],
      );
      if (rows[0]!.n === 0) break;
      await sleep(200);
    }
    const received = await receiver.deliveries();
    const { rows: callRows } = await observer.query<{ id: string; created_ms: number; status: string }>(
      'select id, extract(epoch from created_at) * 1000 as created_ms, status from calls where agent_id = $1',
      [agent.agentId],
    );
    const { rows: deliveryRows } = await observer.query<{ webhook_id: string; state: string; attempt_count: number }>(
      'select webhook_id, state, attempt_count from deliveries where integration_id = any($1)',
      [[...agent.integrations.keys()]],
    );
    const check = reconcile(
      callRows.map((row) => row.id),
      [...agent.integrations.values()],
      received,
      new Set(deliveryRows.map((row) => row.webhook_id)),
    );
    const createdAt = new Map(callRows.map((row) => [row.id, Number(row.created_ms)]));
    const firstInsert = Math.min(...createdAt.values());
    const lastInsert = Math.max(...createdAt.values());
    const lastArrival = Math.max(...received.arrivedAt);
    // From a call's insert to its outcome's arrival: how far behind the deliveries ran.
    const lags = received.callIds
      .map((id, i) => received.arrivedAt[i]! - (createdAt.get(id) ?? Number.NaN))
      .filter((lag) => !Number.isNaN(lag))
      .sort((a, b) => a - b);
    const lagAt = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? Number.NaN;
    notes.push(
      `calls inserted over ${((lastInsert - firstInsert) / 1000).toFixed(2)} s; from a call's insert to its outcome at the receiver p50 ${Math.round(lagAt(0.5))} ms, p99 ${Math.round(lagAt(0.99))} ms, max ${Math.round(lagAt(1))} ms`,
    );
    const spanS = (lastArrival - firstInsert) / 1000;
    const open = callRows.filter((row) => row.status !== 'ended').length;
    const states = new Map<string, number>();
    for (const row of deliveryRows) states.set(row.state, (states.get(row.state) ?? 0) + 1);
    const attempts = deliveryRows.reduce((sum, row) => sum + row.attempt_count, 0);
    const okStatus = load.statuses['200'] ?? 0;
    notes.push(
      `the load: ${Object.entries(load.statuses)
        .map(([status, n]) => `${status}×${n}`)
        .join(
          ' ',
        )} in the measured ${load.windowS.toFixed(1)} s, ${load.totalResponses} responses in all (warm-up included); the database holds ${calls} calls of the agent (${open} not ended), ${deliveryRows.length} deliveries (${[
        ...states,
      ]
        .map(([state, n]) => `${state} ${n}`)
        .join(', ')}; ${attempts} attempts); the receiver got ${received.paths.length} requests`,
    );
    if (calls < okStatus) notes.push(`${okStatus - calls} calls answered 200 are not in the database`);
    if (check.repeatedIds > 0 || check.idsNotReceived > 0 || check.unexpected > 0)
      notes.push(
        `event ids: ${check.repeatedIds} received more than once, ${check.idsNotReceived} of the database's never received; ${check.unexpected} deliveries for no accepted call`,
      );
    for (const { name: process } of configuration.processes) {
      const server = servers.find((s) => s.name === process)!;
      // The servers log at warn: anything they said (a database timeout, a failed claim) explains a late outcome.
      const said = server.server.child
        .output()
        .split('\n')
        .filter((line) => line.trim() && !line.includes('npm warn'));
      if (said.length > 0)
        notes.push(
          `${process} logged ${said.length} lines (of its last 8 KB), the last: ${said.at(-1)!.slice(0, 400)}`,
        );
      const { code, signal } = await stopServer(server.server);
      if (code !== 0)
        notes.push(
          `${process} did not stop cleanly (exit ${code ?? signal}): ${server.server.child.output().slice(-300)}`,
        );
    }
    return {
      label: configuration.label,
      load,
      calls,
      deliveries: received.paths.length,
      lost: check.lost + Math.max(0, okStatus - calls),
      duplicated: check.duplicated + check.repeatedIds,
      acceptedPerS: load.rps,
      deliveredPerS: received.paths.length / spanS,
      spanS,
      // While it sent requests: preparing 40,000 signed bodies before is not the load's cost.
      cpuMs: { ...cpu.cpuMs, generator: load.generatorCpuMs },
      postgresMs,
      othersPct,
      notes,
    };
  } finally {
    await observer.end().catch(() => {});
    await proxy?.child.stop(2000);
    for (const { server } of servers) await server.child.stop(15_000);
    await admin.query(`drop database if exists ${name} with (force)`).catch((error: unknown) => {
      log(`could not drop ${name}: ${String(error)}`);
    });
  }
}

async function stopServer(server: RunningSwitchboard) {
  await server.child.stop(15_000);
  return server.child.exited;
}

const us = (ms: number, per: number) => Math.round((ms * 1000) / Math.max(1, per));

/** Our server processes, and the PostgreSQL backends serving them plus the server's own processes, in ms. */
function totals(outcome: Outcome, names: string[]) {
  const servers = names.reduce((sum, name) => sum + (outcome.cpuMs[name] ?? 0), 0);
  const postgres = names.reduce((sum, name) => sum + (outcome.postgresMs[name] ?? 0), 0);
  return { servers, postgres };
}

function describe(outcome: Outcome, configuration: Configuration): string[] {
  const names = configuration.processes.map((p) => p.name);
  const { servers, postgres } = totals(outcome, names);
  const background = outcome.postgresMs.background ?? 0;
  const perCall = (ms: number) => us(ms, outcome.calls);
  const lines = [
    `${outcome.label}: ${outcome.calls} calls, ${outcome.deliveries} deliveries in ${outcome.spanS.toFixed(2)} s from the first insert to the last delivery; lost ${outcome.lost}, duplicated ${outcome.duplicated}. ` +
      `CPU per accepted call, its ${INTEGRATIONS.length} deliveries included: our servers ${perCall(servers)} µs (${names
        .map((name) => `${name} ${perCall(outcome.cpuMs[name] ?? 0)}`)
        .join(', ')}), PostgreSQL backends serving them ${perCall(postgres)} µs (${names
        .map((name) => `${name} ${perCall(outcome.postgresMs[name] ?? 0)}`)
        .join(
          ', ',
        )}) + PostgreSQL's own processes ${perCall(background)} µs; proxy ${perCall(outcome.cpuMs.proxy ?? 0)} µs, receiver ${perCall(outcome.cpuMs.receiver ?? 0)} µs, load generator ${perCall(outcome.cpuMs.generator ?? 0)} µs. ` +
      `Other processes used ${outcome.othersPct.toFixed(0)}% of the machine meanwhile${outcome.othersPct >= DISTURBED_PCT ? ' (DISTURBED: read the CPU figures, not the rates)' : ''}.`,
  ];
  const workers = configuration.processes.filter((p) => p.role === 'worker').map((p) => p.name);
  const apis = configuration.processes.filter((p) => p.role === 'api').map((p) => p.name);
  if (workers.length > 0 && apis.length > 0) {
    const accept = totals(outcome, apis);
    const deliver = totals(outcome, workers);
    lines.push(
      `${outcome.label}, by role: per accepted call (api processes: the request, the simulated call's end, queueing its deliveries) ${us(accept.servers, outcome.calls)} µs + PostgreSQL ${us(accept.postgres, outcome.calls)} µs; ` +
        `per delivery (the worker: claim, send, record) ${us(deliver.servers, outcome.deliveries)} µs + PostgreSQL ${us(deliver.postgres, outcome.deliveries)} µs.`,
    );
  }
  lines.push(...outcome.notes.map((note) => `${outcome.label}: ${note}`));
  return lines;
}

function rows(outcome: Outcome, configuration: Configuration, baseline: Outcome | undefined): Row[] {
  const { servers, postgres } = totals(
    outcome,
    configuration.processes.map((p) => p.name),
  );
  const postgresAll = postgres + (outcome.postgresMs.background ?? 0);
  return [
    {
      name: `accepted calls, ${outcome.label}`,
      value: outcome.acceptedPerS,
      unit: 'req/s',
      ratio: baseline ? outcome.acceptedPerS / baseline.acceptedPerS : 1,
      p50Ms: outcome.load.p50Ms,
      p99Ms: outcome.load.p99Ms,
      serverCpuUs: (servers * 1000) / Math.max(1, outcome.calls),
      postgresCpuUs: (postgresAll * 1000) / Math.max(1, outcome.calls),
      target: { text: 'lost 0, duplicated 0', pass: outcome.lost === 0 && outcome.duplicated === 0 },
    },
    {
      name: `delivered outcomes, ${outcome.label}`,
      value: outcome.deliveredPerS,
      unit: 'req/s',
      ratio: baseline ? outcome.deliveredPerS / baseline.deliveredPerS : 1,
    },
  ];
}

export async function runScaleOut(): Promise<BenchmarkResult> {
  const result: BenchmarkResult = { name: 'scale-out', rows: [], notes: [], failures: [] };
  const adminUrl = new URL(PG_ADMIN_URL);
  if (adminUrl.hostname !== '127.0.0.1')
    throw new Error(`the benchmark only uses a PostgreSQL on 127.0.0.1, not ${adminUrl.host}`);
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const receiver = await startReceiver();
  try {
    let baseline: Outcome | undefined;
    let phonesFrom = 300_000_000;
    // BENCH_SCALEOUT_ONLY=single|split measures one configuration (to work on it; no ratio then).
    const only = process.env.BENCH_SCALEOUT_ONLY;
    const configurations = [SINGLE, SPLIT].filter((c) => !only || only === (c === SINGLE ? 'single' : 'split'));
    for (const configuration of configurations) {
      try {
        const outcome = await runConfiguration(configuration, admin, receiver, phonesFrom);
        phonesFrom += 50_000_000;
        baseline ??= outcome;
        result.rows.push(...rows(outcome, configuration, baseline));
        result.notes.push(...describe(outcome, configuration));
        if (outcome.lost > 0 || outcome.duplicated > 0)
          result.failures.push(`${outcome.label}: ${outcome.lost} outcomes lost, ${outcome.duplicated} duplicated`);
      } catch (error) {
        result.failures.push(`${configuration.label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    result.notes.push(
      `Ratios (the "× floor" column) are against ${SINGLE.label} in the same run. The machine has ${os.cpus().length} cores shared by every process above and PostgreSQL: more processes add work (more connections, NOTIFY to each, a listener each) and cannot add cores.`,
    );
  } finally {
    await receiver.child.stop(2000);
    await admin.end();
  }
  return result;
}

export const scaleOut: Benchmark = { name: 'scale-out', run: runScaleOut };

await runIfMain(import.meta.url, scaleOut);
