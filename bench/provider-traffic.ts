/**
 * Provider traffic (docs/benchmarks.md, issue 20): Vapi's end-of-call reports POSTed to
 * `/providers/vapi/webhook`, each ending an open call of an agent with a webhook integration, so
 * each queues one outcome delivery to a receiver on loopback. A server started as the README starts
 * it, on PostgreSQL and on PGlite:
 *  - the floor: bare `node:http` (bench/lib/provider-floor-server.ts) checking `x-vapi-secret` as
 *    our route does and `JSON.parse`ing the same body, in its own process;
 *  - reports ingested per second at full speed (load generator, 50 connections, each report a
 *    different call), against the floor; and the CPU per report, its delivery included;
 *  - reports at a steady 200 a second (open loop): from the report sent to the customer's receiver
 *    answering its outcome delivery, p50 and p99. Both times on this process's clock (the receiver
 *    is in this process).
 * The reports are as large as a real 3-minute call's (test/helpers/vapi-report.ts, 120 KB). The
 * open calls are placed the way customers place them: click to call against a local fake Vapi
 * (bench/lib/fake-vapi.ts), which gives each its Vapi call and our id in its metadata, as Vapi's
 * reports carry it. Outbound requests may reach loopback (SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true);
 * otherwise the default configuration.
 *
 * Run alone: npx tsx bench/provider-traffic.ts (after npm run build), or npm run bench -- provider-traffic.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { vapiEndOfCallReport } from '../test/helpers/vapi-report.js';
import { acceptRequests, load, type Measured, measureSteady, statusNote } from './click-to-call.js';
import { freePort, killAll, runIfMain, sleep, startTsChild, waitUntilHealthy } from './lib/children.js';
import { benchEngines, ENGINE_LABEL, type Engine } from './lib/database.js';
import { startBenchFakeVapi } from './lib/fake-vapi.js';
import { type LoadSpec, runLoad } from './lib/load.js';
import { othersNote, percentile, sendAtPace, startCpuWindow } from './lib/paced.js';
import { createVapiAgent, serverSettings, type VapiBenchAgent } from './lib/provider-setup.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { signup, startSwitchboard } from './lib/switchboard.js';

const WEBHOOK = '/providers/vapi/webhook';
const FROM_NUMBER = '+14155550100';
const PLACEHOLDER = '__SWITCHBOARD_CALL_ID__';
const REPORT_MINUTES = 3;
/** Open calls per full-speed attempt (a disturbed load is measured twice): more than 6 s can take here. */
const PER_ATTEMPT = Number(process.env.BENCH_PROVIDER_REPORTS ?? 4000);
const PACED_PER_SECOND = 200;
const PACED_WARMUP_SECONDS = 2;
const PACED_SECONDS = 10;
const TARGETS = { ratio: 0.3, p99Ms: 100 };

const log = (message: string) => process.stderr.write(`[provider-traffic] ${message}\n`);

/** The customer's webhook receiver, in this process: answers 200 at once and keeps when each call's outcome arrived. */
async function startReceiver(): Promise<{
  url: string;
  count(): number;
  arrivals: Map<string, number>;
  close(): Promise<void>;
}> {
  const arrivals = new Map<string, number>();
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { callId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { callId?: string };
      count++;
      if (callId) arrivals.set(callId, performance.now());
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 3-minute call's end-of-call report as text, our call id replaced by `PLACEHOLDER`. */
function reportTemplate(): string {
  return JSON.stringify(
    vapiEndOfCallReport(REPORT_MINUTES, {
      id: 'vapi-call-bench',
      assistantOverrides: { metadata: { switchboardCallId: PLACEHOLDER } },
    }),
  );
}

function reportRequests(secret: string, callIds: string[], cycle: boolean): LoadSpec['requests'] {
  return {
    type: 'templated',
    headers: { 'content-type': 'application/json', 'x-vapi-secret': secret },
    template: reportTemplate(),
    placeholder: PLACEHOLDER,
    values: callIds,
    cycle,
  };
}

const reportLoad = (origin: string, requests: LoadSpec['requests'], maxRequests: number): LoadSpec => ({
  ...load(origin, requests, 200, maxRequests),
  path: WEBHOOK,
});

async function measureFloor(): Promise<Measured> {
  const port = await freePort();
  const secret = `vapi_floor_${randomBytes(16).toString('hex')}`;
  const floor = startTsChild('lib/provider-floor-server.ts', 'provider floor server', {
    ...process.env,
    FLOOR_PORT: String(port),
    FLOOR_VAPI_SECRET: secret,
  });
  try {
    const origin = `http://127.0.0.1:${port}`;
    await waitUntilHealthy(`${origin}/healthz`, floor, performance.now(), 30_000);
    log('floor: bare node:http, x-vapi-secret + JSON.parse');
    const ids = Array.from({ length: 100 }, (_, i) => `call_floor_${i}`);
    return await measureSteady(() => reportLoad(origin, reportRequests(secret, ids, true), 1_000_000), floor.pid);
  } finally {
    await floor.stop();
  }
}

/** Places `count` calls by click to call; returns our ids of them, as the fake Vapi received them. */
async function placeCalls(
  origin: string,
  agent: VapiBenchAgent,
  vapi: Awaited<ReturnType<typeof startBenchFakeVapi>>,
  count: number,
  phonesFrom: number,
): Promise<string[]> {
  const before = vapi.calls.length;
  const spec: LoadSpec = {
    ...load(origin, acceptRequests(agent, phonesFrom), 200, count),
    warmupMs: 0,
    durationMs: 300_000,
  };
  const placed = await runLoad(spec);
  // On a busy machine a few requests may fail (a statement timeout is ctc:002): the calls placed are enough.
  const ids = vapi.calls.slice(before).map((call) => call.switchboardCallId);
  if (ids.length < count * 0.95)
    throw new Error(`placing calls: ${JSON.stringify(placed.statuses)} ${JSON.stringify(placed.samples)}`);
  return ids;
}

async function waitForDeliveries(receiver: { count(): number }, expected: number, timeoutMs: number): Promise<boolean> {
  const since = performance.now();
  while (receiver.count() < expected) {
    if (performance.now() - since > timeoutMs) return false;
    await sleep(50);
  }
  return true;
}

/** Until the receiver has had nothing new for 1 s (every queued delivery arrived), at most 120 s. */
async function waitForDeliveriesToSettle(receiver: { count(): number }): Promise<boolean> {
  const since = performance.now();
  let last = -1;
  let stableSince = performance.now();
  for (;;) {
    const count = receiver.count();
    if (count !== last) {
      last = count;
      stableSince = performance.now();
    } else if (performance.now() - stableSince >= 1000) return true;
    if (performance.now() - since > 120_000) return false;
    await sleep(50);
  }
}

async function measureEngine(engine: Engine, floor: Measured, rows: Row[], notes: string[]): Promise<void> {
  const label = ENGINE_LABEL[engine];
  const { settings, drop } = await serverSettings(engine, 'reports');
  const vapi = await startBenchFakeVapi(FROM_NUMBER);
  const receiver = await startReceiver();
  try {
    const server = await startSwitchboard(`switchboard (${label})`, settings);
    try {
      const apiKey = await signup(server.origin);
      const agent = await createVapiAgent(server.origin, apiKey, vapi, {
        fromNumber: FROM_NUMBER,
        integrationUrl: `${receiver.url}/hooks/bench`,
      });
      const paced = PACED_PER_SECOND * (PACED_WARMUP_SECONDS + PACED_SECONDS);
      const total = 2 * PER_ATTEMPT + paced;
      log(`${label}: placing ${total} calls by click to call`);
      const placeStarted = performance.now();
      const callIds = await placeCalls(server.origin, agent, vapi, total, engine === 'postgresql' ? 0 : 20_000_000);
      notes.push(
        `${label}: ${callIds.length} open calls placed by click to call (fake Vapi) in ${((performance.now() - placeStarted) / 1000).toFixed(1)} s before the reports.`,
      );

      // The last `paced` calls for the paced run; the rest shared out between the full-speed attempts.
      const pacedIds = callIds.slice(-paced);
      const perAttempt = Math.floor((callIds.length - paced) / 2);
      // Full speed: each report a call not yet ended; a disturbed attempt is repeated with new calls.
      log(`${label}: reports at full speed`);
      const deliveredBefore = receiver.count();
      const stopCpu = await startCpuWindow(server.child.pid);
      const full = await measureSteady(
        (attempt) =>
          reportLoad(
            server.origin,
            reportRequests(agent.webhookSecret, callIds.slice(attempt * perAttempt, (attempt + 1) * perAttempt), false),
            perAttempt,
          ),
        server.child.pid,
      );
      // Every 200 ended a call and queued its delivery: the window closes once the receiver has them all.
      const drained = await waitForDeliveriesToSettle(receiver);
      const cpu = await stopCpu();
      const delivered = receiver.count() - deliveredBefore;
      rows.push({
        name: `Vapi end-of-call reports ingested, full speed (${label})`,
        value: full.rps,
        unit: 'req/s',
        ratio: full.rps / floor.rps,
        p50Ms: full.p50Ms,
        p99Ms: full.p99Ms,
        serverCpuUs: full.serverCpuUs,
        postgresCpuUs: engine === 'postgresql' ? full.postgresCpuUs : undefined,
        target: { text: `≥ ${TARGETS.ratio}× floor`, pass: full.rps / floor.rps >= TARGETS.ratio },
        note: statusNote(full),
      });
      notes.push(
        `${label}: CPU per report with its outcome delivery, from the first report to the last delivery (${delivered} delivered${drained ? '' : ', NOT all within 120 s'}): server ${Math.round((cpu.serverMs * 1000) / Math.max(1, delivered))} µs${engine === 'postgresql' ? `, postgres processes ${Math.round((cpu.postgresMs * 1000) / Math.max(1, delivered))} µs` : ''}. ${othersNote(cpu.othersPct)}`,
      );

      // 200 a second, open loop: report sent → the receiver has the outcome.
      log(`${label}: ${PACED_PER_SECOND} reports/s`);
      const template = reportTemplate().split(PLACEHOLDER);
      const pool = new Pool(server.origin, { connections: 32, headersTimeout: 10_000, bodyTimeout: 10_000 });
      const sentAt = new Map<string, number>();
      const statuses: Record<string, number> = {};
      let offset = 0;
      const send = async (i: number) => {
        const callId = pacedIds[offset + i]!;
        const body = template.join(callId);
        sentAt.set(callId, performance.now());
        const response = await pool
          .request({
            path: WEBHOOK,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-vapi-secret': agent.webhookSecret },
            body,
          })
          .catch((error: Error) => ({ statusCode: `error:${error.name}`, body: undefined }));
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        await response.body?.dump();
      };
      try {
        offset += await sendAtPace(PACED_PER_SECOND, PACED_WARMUP_SECONDS, send);
        const measuredIds = pacedIds.slice(offset, offset + PACED_PER_SECOND * PACED_SECONDS);
        for (const key of Object.keys(statuses)) delete statuses[key];
        const beforePaced = receiver.count();
        const stopPaced = await startCpuWindow(server.child.pid);
        const sent = await sendAtPace(PACED_PER_SECOND, PACED_SECONDS, send);
        await waitForDeliveries(receiver, beforePaced + sent, 30_000);
        const pacedCpu = await stopPaced();
        const latencies = measuredIds
          .slice(0, sent)
          .map((id) => (receiver.arrivals.get(id) ?? Number.NaN) - (sentAt.get(id) ?? Number.NaN))
          .filter((ms) => !Number.isNaN(ms))
          .sort((a, b) => a - b);
        const p99 = percentile(latencies, 0.99);
        const answers = Object.entries(statuses)
          .map(([status, n]) => `${status}×${n}`)
          .join(' ');
        rows.push({
          name: `${PACED_PER_SECOND} reports/s, report sent → receiver has the outcome (${label})`,
          value: latencies.length / PACED_SECONDS,
          unit: 'req/s',
          p50Ms: percentile(latencies, 0.5),
          p99Ms: p99,
          serverCpuUs: (pacedCpu.serverMs * 1000) / Math.max(1, sent),
          postgresCpuUs: engine === 'postgresql' ? (pacedCpu.postgresMs * 1000) / Math.max(1, sent) : undefined,
          target:
            engine === 'postgresql' ? { text: `p99 ≤ ${TARGETS.p99Ms} ms`, pass: p99 <= TARGETS.p99Ms } : undefined,
          note: `${sent} sent (${answers}), ${latencies.length} outcomes received; max ${latencies.at(-1)?.toFixed(1)} ms. ${othersNote(pacedCpu.othersPct)}`,
        });
      } finally {
        await pool.close();
      }
    } finally {
      await server.child.stop(15_000);
    }
  } finally {
    await receiver.close();
    await vapi.close();
    await drop();
  }
}

export const providerTraffic: Benchmark = {
  name: 'provider-traffic',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    let floor: Measured;
    try {
      floor = await measureFloor();
    } catch (error) {
      killAll();
      return { name: 'provider-traffic', rows, notes, failures: [`floor: ${String(error)}`] };
    }
    rows.push({
      name: 'floor: node:http + x-vapi-secret + JSON.parse of the report',
      value: floor.rps,
      unit: 'req/s',
      ratio: 1,
      p50Ms: floor.p50Ms,
      p99Ms: floor.p99Ms,
      serverCpuUs: floor.serverCpuUs,
      note: statusNote(floor),
    });
    for (const engine of benchEngines()) {
      try {
        await measureEngine(engine, floor, rows, notes);
      } catch (error) {
        failures.push(`${ENGINE_LABEL[engine]}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        killAll();
      }
    }
    const statuses = rows.filter((row) => row.note).map((row) => `${row.name}: ${row.note}`);
    return { name: 'provider-traffic', rows, notes: [...statuses, ...notes], failures };
  },
};

await runIfMain(import.meta.url, providerTraffic);
