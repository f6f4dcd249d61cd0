/**
 * The flood benchmark (docs/benchmarks.md, decision 0029): while 2,000 connections send
 * `POST /api/click-to-call` with random `api-key` values as fast as they are answered, how fast do
 * `GET /healthz` and a valid, signed click-to-call answer? On the embedded PGlite (as `npm start`
 * runs it) and on PostgreSQL. The baseline is the same probes in the same run without the flood.
 *
 * Run alone: npx tsx bench/flood.ts (after npm run build), or `npm run bench -- flood`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { rssMb, runIfMain, sleep, startTsChild } from './lib/children.js';
import { processCpuMs } from './lib/cpu.js';
import { benchEngines, ENGINE_LABEL, type Engine } from './lib/database.js';
import type { FloodResult, FloodSpec } from './lib/flood-worker.js';
import { validPhoneNumbers } from './lib/phones.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { api, type RunningSwitchboard, signup, startSwitchboard } from './lib/switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FLOOD_CONNECTIONS = Number(process.env.BENCH_FLOOD_CONNECTIONS ?? 2000);
/**
 * The probes are measured for PROBE_MS once every flood connection has had its first answer (at most
 * RAMP_MAX_MS after the start); the flood then stops, and lasts FLOOD_MAX_MS at most in any case.
 */
const RAMP_MAX_MS = 30_000;
const PROBE_MS = 15_000;
const FLOOD_MAX_MS = RAMP_MAX_MS + PROBE_MS + 5000;
const FLOOD_MAX_REQUESTS = 2_000_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** Probes: /healthz every 50 ms, a valid click-to-call every 250 ms over AGENTS agents (48/min each, under their default 60). */
const HEALTH_EVERY_MS = 50;
const CALL_EVERY_MS = 250;
const AGENTS = 5;
const TARGET_P99_MS = 250;
/** The server logs as it does by default (info): what it writes during a flood is part of its cost. */
const DEFAULT_LOG_LEVEL = 'info';

function log(message: string): void {
  process.stderr.write(`[flood] ${message}\n`);
}

interface ProbeResult {
  latencies: number[];
  statuses: Record<string, number>;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
}

/**
 * Sends `request(i)` every `everyMs` for `durationMs` whether the previous one answered or not (so a
 * stalled server shows as latency, not as fewer samples), on a pool of its own.
 */
async function probe(
  origin: string,
  everyMs: number,
  durationMs: number,
  request: (i: number) => { method: string; path: string; headers?: Record<string, string>; body?: string },
  until?: Promise<void>,
): Promise<ProbeResult> {
  let ended = false;
  void until?.then(() => {
    ended = true;
  });
  const pool = new Pool(origin, {
    connections: 8,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const result: ProbeResult = { latencies: [], statuses: {} };
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; !ended && performance.now() - started < durationMs; i++) {
    const sentAt = performance.now();
    pending.push(
      (async () => {
        let key: string;
        try {
          const response = await pool.request(request(i) as Parameters<Pool['request']>[0]);
          await response.body.dump();
          key = String(response.statusCode);
        } catch (error) {
          key = `error:${(error as { code?: string }).code ?? (error as Error).name}`;
        }
        result.latencies.push(performance.now() - sentAt);
        result.statuses[key] = (result.statuses[key] ?? 0) + 1;
      })(),
    );
    await sleep(Math.max(0, started + (i + 1) * everyMs - performance.now()));
  }
  await Promise.all(pending);
  await pool.close();
  return result;
}

/**
 * The server's own view, from its `/metrics`: the event loop's delay since the previous scrape
 * (prom-client resets it at each one) and how many garbage collections of each kind took over
 * 100 ms so far. Tells a stall of the server from a stall of the machine or of the probes' process.
 */
async function serverLoop(origin: string): Promise<{ lagMaxMs: number; lagP99Ms: number; slowGc: number }> {
  const text = await (await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (!line.startsWith('#') && space > 0) samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  let slowGc = 0;
  for (const kind of ['major', 'minor', 'incremental', 'weakcb']) {
    const count = samples.get(`nodejs_gc_duration_seconds_count{kind="${kind}"}`) ?? 0;
    slowGc += count - (samples.get(`nodejs_gc_duration_seconds_bucket{le="0.1",kind="${kind}"}`) ?? count);
  }
  return {
    lagMaxMs: (samples.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
    lagP99Ms: (samples.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
    slowGc,
  };
}

interface ValidAgent {
  apiToken: string;
  apiSecret: string;
}

/** Agents as a customer makes them: default settings, so the default rate limit of 60 a minute. */
async function createAgents(origin: string): Promise<ValidAgent[]> {
  const apiKey = await signup(origin);
  const agents: ValidAgent[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const created = await api(origin, 'POST', '/v1/agents', { apiKey, body: { name: `Flood probe ${i}` } });
    if (created.status !== 201) throw new Error(`create agent: ${created.status} ${JSON.stringify(created.body)}`);
    const id = (created.body as { id: string }).id;
    const credentials = await api(origin, 'GET', `/v1/agents/${id}/credentials`, { apiKey });
    agents.push(credentials.body as ValidAgent);
  }
  return agents;
}

/** Both probes at once for `durationMs`; phone numbers from `phonesFrom` on, never reused. */
async function probeBoth(
  origin: string,
  agents: ValidAgent[],
  phones: string[],
  durationMs: number,
  until?: Promise<void>,
) {
  const [health, call] = await Promise.all([
    probe(origin, HEALTH_EVERY_MS, durationMs, () => ({ method: 'GET', path: '/healthz' }), until),
    probe(
      origin,
      CALL_EVERY_MS,
      durationMs,
      (i) => {
        const agent = agents[i % agents.length]!;
        const body = JSON.stringify({ phone: phones.shift(), variables: { name: 'Ada' } });
        return {
          method: 'POST',
          path: '/api/click-to-call',
          headers: {
            'content-type': 'application/json',
            'api-key': agent.apiToken,
            signature: createHmac('sha256', agent.apiSecret).update(body).digest('hex'),
          },
          body,
        };
      },
      until,
    ),
  ]);
  return { health, call };
}

/**
 * Starts the flood in its own process; `connected` settles once every connection has had an answer
 * (or after RAMP_MAX_MS), `stop()` ends the flood and gives its figures.
 */
function startFlood(origin: string): { connected: Promise<void>; stop(): Promise<FloodResult> } {
  const child = startTsChild('lib/flood-worker.ts', 'flood generator');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), FLOOD_MAX_MS + REQUEST_TIMEOUT_MS + 30_000);
  const spec: FloodSpec = {
    origin,
    connections: FLOOD_CONNECTIONS,
    durationMs: FLOOD_MAX_MS,
    maxRequests: FLOOD_MAX_REQUESTS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  };
  let onConnected: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    onConnected = resolve;
    setTimeout(resolve, RAMP_MAX_MS).unref();
  });
  const result = new Promise<FloodResult>((resolve, reject) => {
    child.process.on('message', (message: { connected?: true; result?: FloodResult }) => {
      if (message.connected) onConnected();
      if (message.result) resolve(message.result);
    });
    void child.exited.then(({ code, signal }) =>
      reject(new Error(`the flood generator exited (${code ?? signal}) without a result:\n${child.output()}`)),
    );
  });
  child.process.send(spec);
  return {
    connected,
    async stop() {
      try {
        child.process.send('stop');
        const figures = await result;
        await child.exited;
        return figures;
      } finally {
        clearTimeout(timer);
        await child.stop(2000);
      }
    },
  };
}

const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .map(([key, n]) => `${key}×${n}`)
    .join(' ');

function latencyRows(label: string, name: string, quiet: ProbeResult, flooded: ProbeResult, expected: string): Row[] {
  const quietP99 = percentile(quiet.latencies, 0.99);
  const floodP99 = percentile(flooded.latencies, 0.99);
  const ok = (flooded.statuses[expected] ?? 0) === flooded.latencies.length;
  return [
    {
      name: `${name}, quiet (${label})`,
      value: quietP99,
      unit: 'ms',
      p50Ms: percentile(quiet.latencies, 0.5),
      p99Ms: quietP99,
      note: counts(quiet.statuses),
    },
    {
      name: `${name}, during the flood (${label})`,
      value: floodP99,
      unit: 'ms',
      ratio: floodP99 / quietP99,
      p50Ms: percentile(flooded.latencies, 0.5),
      p99Ms: floodP99,
      target: { text: `p99 < ${TARGET_P99_MS} ms, all ${expected}`, pass: floodP99 < TARGET_P99_MS && ok },
      note: counts(flooded.statuses),
    },
  ];
}

async function measureEngine(
  engine: Engine,
  server: RunningSwitchboard,
  phonesFrom: number,
  rows: Row[],
  notes: string[],
): Promise<void> {
  const label = ENGINE_LABEL[engine];
  const agents = await createAgents(server.origin);
  const phones = validPhoneNumbers(1000, phonesFrom);
  // Warm: each agent's token once (the first request of a process pays for loading it).
  await probeBoth(server.origin, agents, phones, 1000);
  log(`${label}: probes without the flood`);
  const quiet = await probeBoth(server.origin, agents, phones, 8000);
  log(`${label}: ${FLOOD_CONNECTIONS}-connection flood of random api-key values`);
  const cpuBefore = await processCpuMs(server.child.pid);
  const flooding = startFlood(server.origin);
  // While the 2,000 connections open, the probes are measured too, but apart.
  const ramp = probeBoth(server.origin, agents, phones, RAMP_MAX_MS, flooding.connected);
  await flooding.connected;
  const ramped = await ramp;
  const loopBefore = await serverLoop(server.origin);
  const flooded = await probeBoth(server.origin, agents, phones, PROBE_MS);
  const loop = await serverLoop(server.origin);
  const flood = await flooding.stop();
  const serverCpuUs = ((await processCpuMs(server.child.pid)) - cpuBefore) * 1000;
  const rss = await rssMb(server.child.pid).catch(() => Number.NaN);
  rows.push(
    ...latencyRows(label, 'GET /healthz', quiet.health, flooded.health, '200'),
    ...latencyRows(label, 'valid click-to-call', quiet.call, flooded.call, '200'),
    {
      name: `flood answers (${label})`,
      value: flood.rps,
      unit: 'req/s',
      serverCpuUs: serverCpuUs / Math.max(1, flood.total),
      note: `${counts(flood.codes)}; ${counts(flood.statuses)}`,
    },
  );
  const summary = (r: ProbeResult) =>
    `p99 ${percentile(r.latencies, 0.99).toFixed(0)} ms, max ${Math.max(...r.latencies).toFixed(0)} ms (${counts(r.statuses)})`;
  notes.push(
    `${label}: while the flood's connections opened (${(flood.allConnectedMs / 1000).toFixed(1)} s): ` +
      `/healthz ${summary(ramped.health)}; click-to-call ${summary(ramped.call)}.`,
  );
  notes.push(
    `${label}: the server's event loop while the probes were measured: delay p99 ${loop.lagP99Ms.toFixed(0)} ms, ` +
      `max ${loop.lagMaxMs.toFixed(0)} ms; garbage collections over 100 ms: ${loop.slowGc - loopBefore.slowGc}.`,
  );
  notes.push(
    `${label}: the flood sent ${flood.total.toLocaleString('en-US')} requests in ${flood.durationS.toFixed(1)} s ` +
      `(${Math.round(flood.rps).toLocaleString('en-US')}/s; every connection answered once after ` +
      `${Number.isNaN(flood.allConnectedMs) ? 'never' : `${(flood.allConnectedMs / 1000).toFixed(1)} s`}): ` +
      `${counts(flood.codes)} (${counts(flood.statuses)}). Server RSS after: ${rss.toFixed(0)} MB. ` +
      `Probes during it: /healthz ${counts(flooded.health.statuses)}, max ${Math.max(...flooded.health.latencies).toFixed(0)} ms; ` +
      `click-to-call ${counts(flooded.call.statuses)}, max ${Math.max(...flooded.call.latencies).toFixed(0)} ms.`,
  );
}

async function runFloodBenchmark(): Promise<BenchmarkResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const failures: string[] = [];
  for (const engine of benchEngines()) {
    try {
      if (engine === 'pglite') {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-bench-flood-'));
        try {
          const server = await startSwitchboard('switchboard (PGlite, flood)', {
            SWITCHBOARD_DATA_DIR: dataDir,
            LOG_LEVEL: DEFAULT_LOG_LEVEL,
          });
          try {
            await measureEngine(engine, server, 70_000_000, rows, notes);
          } finally {
            await server.child.stop(5000);
          }
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      } else {
        const adminUrl = new URL(PG_ADMIN_URL);
        if (adminUrl.hostname !== '127.0.0.1') throw new Error(`only a PostgreSQL on 127.0.0.1, not ${adminUrl.host}`);
        const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
        await admin.connect();
        const name = `switchboard_bench_flood_${randomBytes(6).toString('hex')}`;
        await admin.query(`create database ${name}`);
        const url = new URL(PG_ADMIN_URL);
        url.pathname = `/${name}`;
        try {
          const server = await startSwitchboard('switchboard (PostgreSQL, flood)', {
            DATABASE_URL: url.toString(),
            SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
            SWITCHBOARD_SIGNUP: 'open',
            LOG_LEVEL: DEFAULT_LOG_LEVEL,
          });
          try {
            await measureEngine(engine, server, 80_000_000, rows, notes);
          } finally {
            await server.child.stop(5000);
          }
        } finally {
          await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
          await admin.end();
        }
      }
    } catch (error) {
      failures.push(`${ENGINE_LABEL[engine]}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { name: 'flood', rows, notes, failures };
}

export const flood: Benchmark = { name: 'flood', run: runFloodBenchmark };

await runIfMain(import.meta.url, flood);
