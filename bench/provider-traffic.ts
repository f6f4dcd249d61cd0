/**
 * Provider traffic (docs/benchmarks.md, issue 20): Vapi's end-of-call reports POSTed to
 * `/providers/vapi/webhook`, and Retell's `call_analyzed` to `/providers/retell/webhook`, each
 * ending an open call of an agent with a webhook integration, so each queues one outcome delivery
 * to a receiver on loopback. A server started as the README starts it, on PostgreSQL and on PGlite:
 *  - the floor: bare `node:http` (bench/lib/provider-floor-server.ts) checking `x-vapi-secret`, or
 *    Retell's `x-retell-signature`, as our routes do and `JSON.parse`ing the same body, in its own process;
 *  - reports ingested per second at full speed (load generator, 50 connections, each report a
 *    different call), against the floor: after one load that warms our server, three loads of
 *    ours and three of the floor's in turn, ABBA, the middle pair's ratio (decision 0107); and the
 *    CPU per report, its delivery included;
 *  - reports at a steady 200 a second (open loop): from the report sent to the customer's receiver
 *    answering its outcome delivery, p50 and p99. Both times on this process's clock (the receiver
 *    is in this process).
 * The reports are as large as a real 3-minute call's (test/helpers/vapi-report.ts, 120 KB;
 * test/helpers/retell-report.ts, 61 KB). The open calls are placed the way customers place them:
 * click to call against a local fake Vapi (bench/lib/fake-vapi.ts) or Retell
 * (test/helpers/fake-retell.ts), which gives each its provider call and our id in its metadata, as
 * the reports carry it. Outbound requests may reach loopback (SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true);
 * otherwise the default configuration.
 *
 * Run alone: npx tsx bench/provider-traffic.ts (after npm run build), or npm run bench -- provider-traffic.
 * BENCH_PROVIDERS=vapi (or retell) measures one provider alone.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { startFakeRetell } from '../test/helpers/fake-retell.js';
import { retellCallAnalyzed } from '../test/helpers/retell-report.js';
import { vapiEndOfCallReport } from '../test/helpers/vapi-report.js';
import { acceptRequests, load, type Measured, measureSteady, statusNote } from './click-to-call.js';
import { freePort, killAll, runIfMain, sleep, startTsChild, waitUntilHealthy } from './lib/children.js';
import { benchEngines, ENGINE_LABEL, type Engine } from './lib/database.js';
import { startBenchFakeVapi } from './lib/fake-vapi.js';
import { measureInTurn, middlePair } from './lib/in-turn.js';
import { type LoadSpec, runLoad } from './lib/load.js';
import { type CpuWindow, othersNote, percentile, sendAtPace, startCpuWindow } from './lib/paced.js';
import { createRetellAgent, createVapiAgent, serverSettings } from './lib/provider-setup.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { retellSignature } from './lib/retell-signature.js';
import { type BenchAgent, signup, startSwitchboard } from './lib/switchboard.js';

const VAPI_WEBHOOK = '/providers/vapi/webhook';
const RETELL_WEBHOOK = '/providers/retell/webhook';
const FROM_NUMBER = '+14155550100';
const PLACEHOLDER = '__SWITCHBOARD_CALL_ID__';
const REPORT_MINUTES = 3;
/**
 * Open calls per full-speed attempt (a disturbed load is measured twice): more than its 6 s take here
 * (Retell's reached 900 a second in 2026-12-05's last runs, when 4,000 cut its loads short).
 */
const PER_ATTEMPT = Number(process.env.BENCH_PROVIDER_REPORTS ?? 6000);
/** Our full-speed load and the floor's, in turn (decision 0107): the row's ratio is the middle pair's. */
const FLOOR_PAIRS = 3;
const PACED_PER_SECOND = 200;
const PACED_WARMUP_SECONDS = 2;
const PACED_SECONDS = 10;
const TARGETS = { ratio: 0.3, p99Ms: 100 };
/** How long after the paced run's last report its outcomes are waited for. */
const OUTCOME_WAIT_MS = 30_000;

const log = (message: string) => process.stderr.write(`[provider-traffic] ${message}\n`);

interface Receiver {
  url: string;
  count(): number;
  /** When each call's outcome arrived (its first delivery), by our call id. */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

/** The customer's webhook receiver, in this process: answers 200 at once and keeps when each call's outcome arrived. */
async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { callId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { callId?: string };
      count++;
      if (callId && !arrivals.has(callId)) arrivals.set(callId, performance.now());
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

type ProviderName = 'vapi' | 'retell';
const PROVIDER_LABEL: Record<ProviderName, string> = { vapi: 'Vapi', retell: 'Retell' };
/** The rows' names for each provider's reports. */
const REPORTS_NAME: Record<ProviderName, string> = {
  vapi: 'Vapi end-of-call reports',
  retell: 'Retell call_analyzed reports',
};

/** How one provider's reports reach a server: the path, the body (our call id a placeholder), the authentication. */
interface Reports {
  path: string;
  template: string;
  /** The load generator's requests, one report per call id (or round and round with `cycle`). */
  requests(callIds: string[], cycle: boolean): LoadSpec['requests'];
  /** The headers of one report with this body, for the paced sends. */
  headers(body: string): Record<string, string>;
}

/** Vapi's end-of-call report of a 3-minute call, our call id replaced by `PLACEHOLDER`, with its secret header. */
function vapiReports(secret: string): Reports {
  const headers = { 'content-type': 'application/json', 'x-vapi-secret': secret };
  const template = JSON.stringify(
    vapiEndOfCallReport(REPORT_MINUTES, {
      id: 'vapi-call-bench',
      assistantOverrides: { metadata: { switchboardCallId: PLACEHOLDER } },
    }),
  );
  return {
    path: VAPI_WEBHOOK,
    template,
    requests: (values, cycle) => ({ type: 'templated', headers, template, placeholder: PLACEHOLDER, values, cycle }),
    headers: () => headers,
  };
}

/** A 3-minute call's `call_analyzed`, our call id replaced by `PLACEHOLDER`, signed with `key` as Retell signs. */
function retellReports(key: string, path: string): Reports {
  const headers = { 'content-type': 'application/json' };
  const template = JSON.stringify(
    retellCallAnalyzed(REPORT_MINUTES, {
      call_id: 'retell-call-bench',
      agent_id: 'agent_bench',
      metadata: { switchboardCallId: PLACEHOLDER },
    }),
  );
  return {
    path,
    template,
    requests: (values, cycle) => ({
      type: 'templated',
      headers,
      template,
      placeholder: PLACEHOLDER,
      values,
      cycle,
      retellSignatureKey: key,
    }),
    headers: (body) => ({ ...headers, 'x-retell-signature': retellSignature(key, body) }),
  };
}

const reportLoad = (origin: string, reports: Reports, callIds: string[], cycle: boolean, maxRequests: number) => ({
  ...load(origin, reports.requests(callIds, cycle), 200, maxRequests),
  path: reports.path,
});

/** The floor of one provider, running in its own process until `stop`; each `measure` is one full-speed load. */
interface Floor {
  measure(): Promise<Measured>;
  stop(): Promise<void>;
}

async function startFloor(provider: ProviderName): Promise<Floor> {
  const port = await freePort();
  const secret = `${provider}_floor_${randomBytes(16).toString('hex')}`;
  const floor = startTsChild('lib/provider-floor-server.ts', 'provider floor server', {
    ...process.env,
    FLOOR_PORT: String(port),
    ...(provider === 'vapi' ? { FLOOR_VAPI_SECRET: secret } : { FLOOR_RETELL_KEY: secret }),
  });
  try {
    const origin = `http://127.0.0.1:${port}`;
    await waitUntilHealthy(`${origin}/healthz`, floor, performance.now(), 30_000);
    log(`floor: bare node:http, ${provider === 'vapi' ? 'x-vapi-secret' : 'x-retell-signature'} + JSON.parse`);
    const reports = provider === 'vapi' ? vapiReports(secret) : retellReports(secret, RETELL_WEBHOOK);
    const ids = Array.from({ length: 100 }, (_, i) => `call_floor_${i}`);
    return {
      measure: () => measureSteady(() => reportLoad(origin, reports, ids, true, 1_000_000), floor.pid),
      stop: () => floor.stop(),
    };
  } catch (error) {
    await floor.stop();
    throw error;
  }
}

/** A provider on loopback and an agent on it, as one benchmark run needs them. */
interface ProviderSetup {
  agent: BenchAgent;
  reports: Reports;
  /** Our ids of the calls placed at the provider so far, in the order they arrived. */
  placedIds(): string[];
  close(): Promise<void>;
}

async function setUpProvider(
  provider: ProviderName,
  origin: string,
  apiKey: string,
  integrationUrl: string,
): Promise<ProviderSetup> {
  if (provider === 'vapi') {
    const vapi = await startBenchFakeVapi(FROM_NUMBER);
    try {
      const agent = await createVapiAgent(origin, apiKey, vapi, { fromNumber: FROM_NUMBER, integrationUrl });
      return {
        agent,
        reports: vapiReports(agent.webhookSecret),
        placedIds: () => vapi.calls.map((call) => call.switchboardCallId),
        close: () => vapi.close(),
      };
    } catch (error) {
      await vapi.close();
      throw error;
    }
  }
  // Retell's fake checks each request against Retell's published schema: a cost of this process,
  // paid while the calls are placed, before anything is measured.
  const retell = await startFakeRetell({ phoneNumbers: [FROM_NUMBER] });
  try {
    const agent = await createRetellAgent(origin, apiKey, retell, { fromNumber: FROM_NUMBER, integrationUrl });
    return {
      agent,
      reports: retellReports(agent.signingKey, agent.webhookPath),
      placedIds: () =>
        [...retell.calls.values()].map((call) =>
          String((call.metadata as { switchboardCallId?: string }).switchboardCallId),
        ),
      close: () => retell.close(),
    };
  } catch (error) {
    await retell.close();
    throw error;
  }
}

/** Places `count` calls by click to call; returns our ids of them, as the provider received them. */
async function placeCalls(
  origin: string,
  provider: ProviderSetup,
  count: number,
  phonesFrom: number,
): Promise<string[]> {
  const before = provider.placedIds().length;
  const spec: LoadSpec = {
    ...load(origin, acceptRequests(provider.agent, phonesFrom), 200, count),
    warmupMs: 0,
    durationMs: 300_000,
  };
  const placed = await runLoad(spec);
  // On a busy machine a few requests may fail (a statement timeout is ctc:002): the calls placed are enough.
  const ids = provider.placedIds().slice(before);
  if (ids.length < count * 0.95)
    throw new Error(`placing calls: ${JSON.stringify(placed.statuses)} ${JSON.stringify(placed.samples)}`);
  return ids;
}

/**
 * Until the receiver has the outcome of each of these calls, at most `timeoutMs`; true if it has.
 * By id, not by count: outcomes of reports sent before still arriving must not stand in for them.
 */
async function waitForOutcomes(receiver: Receiver, callIds: string[], timeoutMs: number): Promise<boolean> {
  const since = performance.now();
  while (!callIds.every((id) => receiver.arrivals.has(id))) {
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

/** One of our full-speed loads, with the CPU of the reports' whole path: their deliveries too. */
interface OurLoad {
  measured: Measured;
  cpu: CpuWindow;
  delivered: number;
  drained: boolean;
}

/** Our full-speed load and the floor's, measured one after the other. */
interface ProviderPair {
  path: OurLoad;
  floor: Measured;
}

const providerPairRatio = ({ path, floor }: ProviderPair) => path.measured.rps / floor.rps;

async function measureEngine(
  providerName: ProviderName,
  engine: Engine,
  floor: Floor,
  rows: Row[],
  notes: string[],
): Promise<void> {
  const label = ENGINE_LABEL[engine];
  const reportsName = REPORTS_NAME[providerName];
  const { settings, drop } = await serverSettings(engine, 'reports');
  const receiver = await startReceiver();
  try {
    const server = await startSwitchboard(`switchboard (${label})`, settings);
    let provider: ProviderSetup | undefined;
    try {
      const apiKey = await signup(server.origin);
      provider = await setUpProvider(providerName, server.origin, apiKey, `${receiver.url}/hooks/bench`);
      const { reports } = provider;
      const paced = PACED_PER_SECOND * (PACED_WARMUP_SECONDS + PACED_SECONDS);
      // One load's calls for the warm-up and each pair, and two more for loads repeated because they
      // were disturbed.
      const total = (1 + FLOOR_PAIRS + 2) * PER_ATTEMPT + paced;
      log(`${label}: placing ${total} calls by click to call on ${PROVIDER_LABEL[providerName]}`);
      const placeStarted = performance.now();
      const callIds = await placeCalls(server.origin, provider, total, engine === 'postgresql' ? 0 : 20_000_000);
      notes.push(
        `${label}: ${callIds.length} open calls placed by click to call (fake ${PROVIDER_LABEL[providerName]}) in ${((performance.now() - placeStarted) / 1000).toFixed(1)} s before the reports.`,
      );

      // The last `paced` calls for the paced run; the rest taken in turn by the full-speed loads.
      const pacedIds = callIds.slice(-paced);
      const fullSpeedIds = callIds.slice(0, -paced);
      let taken = 0;
      const nextCalls = () => {
        const ids = fullSpeedIds.slice(taken, taken + PER_ATTEMPT);
        taken += ids.length;
        // A few calls may not have been placed (placeCalls): the last spare load may be a little short.
        if (ids.length < PER_ATTEMPT / 2)
          throw new Error(`${label}: more loads were repeated than calls were placed for`);
        return ids;
      };
      // Full speed: each report a call not yet ended; a disturbed load is repeated with new calls.
      // The CPU window runs until the receiver has every outcome the load queued: a report's whole cost.
      const ours = async (): Promise<OurLoad> => {
        const deliveredBefore = receiver.count();
        const stopCpu = await startCpuWindow(server.child.pid);
        const measured = await measureSteady(
          () => reportLoad(server.origin, reports, nextCalls(), false, PER_ATTEMPT),
          server.child.pid,
        );
        const drained = await waitForDeliveriesToSettle(receiver);
        const cpu = await stopCpu();
        return { measured, cpu, delivered: receiver.count() - deliveredBefore, drained };
      };
      const cpuOf = (m: Measured) =>
        engine === 'postgresql'
          ? `${Math.round(m.serverCpuUs)} + ${Math.round(m.postgresCpuUs)} µs`
          : `${Math.round(m.serverCpuUs)} µs`;
      // Placing the calls warmed click to call's code, not the reports': our server is sent one load
      // first, not counted, as the floor was (its row's load), so that the pairs compare two warm
      // processes (decision 0071). Then the two in turn, ABBA (decision 0107).
      log(`${label}: ${reportsName} at full speed, one load to warm our server, not counted`);
      const warm = await ours();
      notes.push(
        `${label}: the ${PROVIDER_LABEL[providerName]} load that warmed our server (not counted): ${Math.round(warm.measured.rps)} req/s, CPU per report ${cpuOf(warm.measured)}.`,
      );
      const pairs: ProviderPair[] = await measureInTurn(FLOOR_PAIRS, floor.measure, ours, (pair) =>
        log(`${label}: ${reportsName} at full speed and the floor in turn, pair ${pair + 1} of ${FLOOR_PAIRS}`),
      );
      const middle = middlePair(pairs, providerPairRatio);
      const ratio = providerPairRatio(middle);
      const full = middle.path.measured;
      const each = pairs
        .map(
          (pair, i) =>
            `pair ${i + 1}: ${Math.round(pair.path.measured.rps)} / ${Math.round(pair.floor.rps)} req/s = ${providerPairRatio(pair).toFixed(2)}× (CPU per report ${cpuOf(pair.path.measured)} against the floor's ${Math.round(pair.floor.serverCpuUs)} µs; others ${Math.max(pair.path.measured.othersPct, pair.floor.othersPct).toFixed(0)} %)`,
        )
        .join('; ');
      rows.push({
        name: `${reportsName} ingested, full speed (${label})`,
        value: full.rps,
        unit: 'req/s',
        ratio,
        p50Ms: full.p50Ms,
        p99Ms: full.p99Ms,
        serverCpuUs: full.serverCpuUs,
        postgresCpuUs: engine === 'postgresql' ? full.postgresCpuUs : undefined,
        // Issue 20's targets are PostgreSQL's; the embedded database's figures are reported beside
        // them, as the accept path's are (decision 0110).
        target:
          engine === 'postgresql' ? { text: `≥ ${TARGETS.ratio}× floor`, pass: ratio >= TARGETS.ratio } : undefined,
        note: `In turn with the floor, ${pairs.length} pairs, the middle ratio's figures: ${each}. ${statusNote(full)}`,
      });
      const { cpu, delivered, drained } = middle.path;
      notes.push(
        `${label}: CPU per ${PROVIDER_LABEL[providerName]} report with its outcome delivery, from the first report to the last delivery, the middle pair's load (${delivered} delivered${drained ? '' : ', NOT all within 120 s'}): server ${Math.round((cpu.serverMs * 1000) / Math.max(1, delivered))} µs${engine === 'postgresql' ? `, postgres processes ${Math.round((cpu.postgresMs * 1000) / Math.max(1, delivered))} µs` : ''}. ${othersNote(cpu.othersPct)}`,
      );

      // 200 a second, open loop: report sent → the receiver has the outcome.
      log(`${label}: ${PACED_PER_SECOND} ${reportsName}/s`);
      const template = reports.template.split(PLACEHOLDER);
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
            path: reports.path,
            method: 'POST',
            headers: reports.headers(body),
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
        const stopPaced = await startCpuWindow(server.child.pid);
        const sent = await sendAtPace(PACED_PER_SECOND, PACED_SECONDS, send);
        const sentIds = measuredIds.slice(0, sent);
        await waitForOutcomes(receiver, sentIds, OUTCOME_WAIT_MS);
        const pacedCpu = await stopPaced();
        // An outcome that did not arrive within the wait counts as later than any that did.
        const missing = sentIds.filter((id) => !receiver.arrivals.has(id)).length;
        const latencies = sentIds
          .map((id) => (receiver.arrivals.get(id) ?? Number.POSITIVE_INFINITY) - (sentAt.get(id) ?? 0))
          .sort((a, b) => a - b);
        const p99 = percentile(latencies, 0.99);
        const answers = Object.entries(statuses)
          .map(([status, n]) => `${status}×${n}`)
          .join(' ');
        rows.push({
          name: `${PACED_PER_SECOND} ${providerName === 'vapi' ? 'reports' : reportsName}/s, report sent → receiver has the outcome (${label})`,
          value: (sent - missing) / PACED_SECONDS,
          unit: 'req/s',
          p50Ms: percentile(latencies, 0.5),
          p99Ms: p99,
          serverCpuUs: (pacedCpu.serverMs * 1000) / Math.max(1, sent),
          postgresCpuUs: engine === 'postgresql' ? (pacedCpu.postgresMs * 1000) / Math.max(1, sent) : undefined,
          target:
            engine === 'postgresql' ? { text: `p99 ≤ ${TARGETS.p99Ms} ms`, pass: p99 <= TARGETS.p99Ms } : undefined,
          note: `${sent} sent (${answers}), ${sent - missing} outcomes received${missing ? ` (${missing} not within ${OUTCOME_WAIT_MS / 1000} s of the last report)` : ''}; max ${latencies.at(-1)?.toFixed(1)} ms. ${othersNote(pacedCpu.othersPct)}`,
        });
      } finally {
        await pool.close();
      }
    } finally {
      await server.child.stop(15_000);
      await provider?.close();
    }
  } finally {
    await receiver.close();
    await drop();
  }
}

/** BENCH_PROVIDERS=vapi,retell (the default: both). */
function benchProviders(): ProviderName[] {
  const names = (process.env.BENCH_PROVIDERS ?? 'vapi,retell').toLowerCase().split(',');
  return (['vapi', 'retell'] as const).filter((name) => names.includes(name));
}

export const providerTraffic: Benchmark = {
  name: 'provider-traffic',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    for (const provider of benchProviders()) {
      let floor: Floor;
      let first: Measured;
      try {
        floor = await startFloor(provider);
        // The floor's first load, before any server of ours runs: its row; and a warm-up of the floor
        // for the pairs, as our server is warmed by placing its calls (decision 0071).
        first = await floor.measure();
      } catch (error) {
        killAll();
        failures.push(`${PROVIDER_LABEL[provider]} floor: ${String(error)}`);
        continue;
      }
      rows.push({
        name:
          provider === 'vapi'
            ? 'floor: node:http + x-vapi-secret + JSON.parse of the report'
            : 'floor: node:http + x-retell-signature + JSON.parse of the call_analyzed',
        value: first.rps,
        unit: 'req/s',
        ratio: 1,
        p50Ms: first.p50Ms,
        p99Ms: first.p99Ms,
        serverCpuUs: first.serverCpuUs,
        note: `Alone, before our server starts; its loads in turn with ours are in their rows. ${statusNote(first)}`,
      });
      try {
        for (const engine of benchEngines()) {
          try {
            await measureEngine(provider, engine, floor, rows, notes);
          } catch (error) {
            failures.push(
              `${PROVIDER_LABEL[provider]}, ${ENGINE_LABEL[engine]}: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
      } finally {
        await floor.stop();
        killAll();
      }
    }
    const statuses = rows.filter((row) => row.note).map((row) => `${row.name}: ${row.note}`);
    return { name: 'provider-traffic', rows, notes: [...statuses, ...notes], failures };
  },
};

await runIfMain(import.meta.url, providerTraffic);
