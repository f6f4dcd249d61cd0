/**
 * The campaigns benchmark (docs/benchmarks.md#campaigns, issue 19). The server is the built
 * `node bin/switchboard.js serve` in its default configuration (role `all`: the API and the scheduler
 * in one process), as the README starts it, on PostgreSQL and on PGlite. In one run, per engine:
 *  - import: 100,000 contacts (a phone and 3 variables each) in one CSV upload to
 *    POST /v1/campaigns/:id/contacts: the wall time of the request, and the server process's peak RSS
 *    while it imported (VmRSS sampled every 10 ms, and VmHWM);
 *  - accept: POST /api/click-to-call accepted, as the click-to-call benchmark measures it (the same
 *    load and the same agent settings, bench/click-to-call.ts), on the same server;
 *  - campaign: 10,000 contacts on the simulator at concurrency 200 and callsPerMinute 6000 (the most
 *    the API allows), its window open all week 00:00–23:59 UTC, no retries: calls started per second
 *    from `start` until no contact is pending, and the server process's CPU per call meanwhile
 *    (utime + stime from /proc/<pid>/stat), against the accept path's.
 *
 * Run alone: npx tsx bench/campaigns.ts (after npm run build), or npm run bench -- campaigns.
 * BENCH_ENGINES=postgresql (or pglite) measures one engine.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { acceptRequests, load, type Measured, measureSteady, statusNote } from './click-to-call.js';
import { killAll, runIfMain, sleep } from './lib/children.js';
import { machineCpuMs, postgresCpuDelta, postgresCpuMs, processCpuMs } from './lib/cpu.js';
import { validPhoneNumbers } from './lib/phones.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import {
  api,
  createClickToCallAgent,
  type RunningSwitchboard,
  signup,
  startSwitchboard,
  waitForCallsToEnd,
} from './lib/switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const IMPORT_CONTACTS = Number(process.env.BENCH_CAMPAIGN_IMPORT ?? 100_000);
const CAMPAIGN_CONTACTS = Number(process.env.BENCH_CAMPAIGN_CONTACTS ?? 10_000);
const CONCURRENCY = 200;
/** The API's maximum (api.md): 100 calls a second. */
const CALLS_PER_MINUTE = Number(process.env.BENCH_CAMPAIGN_CALLS_PER_MINUTE ?? 6000);
/** Unique phone numbers prepared per accept attempt, as the click-to-call benchmark does. */
const ACCEPT_MAX_REQUESTS = 40_000;
/** How long the campaign may take to place every call and to end them all. */
const CAMPAIGN_TIMEOUT_MS = 15 * 60_000;
/** The campaign is polled this often: each GET counts its contacts, so seldom enough to cost the server little. */
const POLL_MS = 1000;

const TARGETS = { importS: 10, importRssMb: 250, campaignRatio: 0.5 };

/** Where each part's phone numbers come from: ranges that never overlap. */
const PHONES = { import: 400_000_000, campaign: 500_000_000, accept: 600_000_000 };

/** CPU use while something ran: the server's, PostgreSQL's and what every other process on the machine used, in %. */
async function cpuSnapshot(pid: number) {
  return {
    at: performance.now(),
    server: await processCpuMs(pid),
    postgres: await postgresCpuMs(),
    machine: await machineCpuMs(),
  };
}
function cpuSince(before: Awaited<ReturnType<typeof cpuSnapshot>>, after: Awaited<ReturnType<typeof cpuSnapshot>>) {
  const serverMs = after.server - before.server;
  const postgresMs = postgresCpuDelta(before.postgres, after.postgres);
  const capacityMs = (after.at - before.at) * os.cpus().length;
  const othersMs = after.machine.busyMs - before.machine.busyMs - serverMs - postgresMs;
  return { serverMs, postgresMs, othersPct: Math.max(0, (othersMs / capacityMs) * 100) };
}
const othersNote = (pct: number) =>
  `other processes used ${pct.toFixed(0)}% of the machine's CPU meanwhile${pct >= 10 ? ' (DISTURBED: read the CPU figures rather than the times)' : ''}`;

function log(message: string): void {
  process.stderr.write(`[campaigns] ${message}\n`);
}

function expectStatus<T>(response: { status: number; body: unknown }, status: number, what: string): T {
  if (response.status !== status)
    throw new Error(
      `${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`,
    );
  return response.body as T;
}

/** VmRSS and VmHWM (the peak so far) of a process, in MB. */
async function memoryMb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

interface Counts {
  total: number;
  pending: number;
  calling: number;
  retrying: number;
  done: number;
  skipped: number;
  failed: number;
}
interface CampaignView {
  id: string;
  state: string;
  counts: Counts;
}

/** An outbound agent on the simulator with no scenario (its calls end at once) and no rate limit. */
async function createOutboundAgent(origin: string, apiKey: string): Promise<string> {
  const agent = expectStatus<{ id: string; provider: string; simulator: unknown }>(
    await api(origin, 'POST', '/v1/agents', {
      apiKey,
      body: { name: 'Campaign bench agent', type: 'outbound', rateLimitPerMinute: null },
    }),
    201,
    'create the outbound agent',
  );
  if (agent.provider !== 'simulator' || agent.simulator !== null)
    throw new Error(`the agent is not as the benchmark needs it: ${JSON.stringify(agent)}`);
  return agent.id;
}

async function createCampaign(origin: string, apiKey: string, agentId: string, name: string): Promise<string> {
  const campaign = expectStatus<CampaignView>(
    await api(origin, 'POST', '/v1/campaigns', {
      apiKey,
      body: {
        name,
        agentId,
        timezone: 'UTC',
        window: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '23:59' },
        concurrency: CONCURRENCY,
        callsPerMinute: CALLS_PER_MINUTE,
        retry: { noAnswer: 0, busy: 0, voicemail: 0, failed: 0, delayMinutes: 1 },
      },
    }),
    201,
    'create a campaign',
  );
  return campaign.id;
}

/** `count` contacts as CSV: a phone and 3 variables each. */
function contactsCsv(count: number, phonesFrom: number): string {
  const phones = validPhoneNumbers(count, phonesFrom);
  const lines = ['phone,first_name,last_name,company'];
  for (const [i, phone] of phones.entries()) lines.push(`${phone},Ada${i},"Lovelace, ${i % 97}",Acme ${i % 1000} Ltd`);
  return `${lines.join('\n')}\n`;
}

async function getCampaign(origin: string, apiKey: string, id: string): Promise<CampaignView> {
  return expectStatus<CampaignView>(await api(origin, 'GET', `/v1/campaigns/${id}`, { apiKey }), 200, 'get campaign');
}

/**
 * (a) One CSV upload of IMPORT_CONTACTS contacts to a draft campaign: its wall time, and the server's
 * peak RSS while it ran (VmRSS sampled every 10 ms by this process; VmHWM if the import raised it).
 */
async function measureImport(
  engine: string,
  server: RunningSwitchboard,
  apiKey: string,
  agentId: string,
  rows: Row[],
  notes: string[],
): Promise<void> {
  const campaignId = await createCampaign(server.origin, apiKey, agentId, 'Import bench');
  const csv = Buffer.from(contactsCsv(IMPORT_CONTACTS, PHONES.import), 'utf8');
  await sleep(1000);
  const before = await memoryMb(server.child.pid);
  let sampledPeak = before.rss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        sampledPeak = Math.max(sampledPeak, (await memoryMb(server.child.pid)).rss);
      } catch {}
      await sleep(10);
    }
  })();
  log(
    `${engine}: importing ${IMPORT_CONTACTS.toLocaleString('en-US')} contacts (${(csv.length / 2 ** 20).toFixed(1)} MiB of CSV)`,
  );
  const cpuBefore = await cpuSnapshot(server.child.pid);
  const since = performance.now();
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${server.origin}/v1/campaigns/${campaignId}/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/csv' },
      body: csv,
      signal: AbortSignal.timeout(300_000),
    });
    text = await response.text();
  } finally {
    sampling = false;
    await sampler;
  }
  const wallS = (performance.now() - since) / 1000;
  const cpu = cpuSince(cpuBefore, await cpuSnapshot(server.child.pid));
  const after = await memoryMb(server.child.pid);
  if (response.status !== 200) throw new Error(`import: expected 200, got ${response.status} ${text.slice(0, 500)}`);
  const answer = JSON.parse(text) as { received: number; added: number; merged: number; errors: unknown[] };
  const stored = (await getCampaign(server.origin, apiKey, campaignId)).counts.total;
  const peak = after.hwm > before.hwm ? after.hwm : sampledPeak;
  const complete = answer.added === IMPORT_CONTACTS && stored === IMPORT_CONTACTS;
  const postgres = engine === 'PostgreSQL';
  rows.push({
    name: `import ${IMPORT_CONTACTS.toLocaleString('en-US')} contacts, one CSV upload (${engine})`,
    value: wallS,
    unit: 's',
    target: postgres ? { text: `< ${TARGETS.importS} s`, pass: complete && wallS < TARGETS.importS } : undefined,
  });
  rows.push({
    name: `server peak RSS while importing (${engine})`,
    value: peak,
    unit: 'MB',
    target: { text: `< ${TARGETS.importRssMb} MB`, pass: peak < TARGETS.importRssMb },
  });
  notes.push(
    `${engine} import: answered ${JSON.stringify({ received: answer.received, added: answer.added, merged: answer.merged, errors: answer.errors.length })}, the campaign counts ${stored.toLocaleString('en-US')} contacts${complete ? '' : ' (NOT every contact was stored: the time does not count)'}; ` +
      `${(csv.length / 2 ** 20).toFixed(1)} MiB in ${wallS.toFixed(2)} s, server CPU ${(cpu.serverMs / 1000).toFixed(2)} s${postgres ? `, postgres processes ${(cpu.postgresMs / 1000).toFixed(2)} s` : ''}; ${othersNote(cpu.othersPct)}; ` +
      `RSS ${before.rss.toFixed(0)} MB before, ${sampledPeak.toFixed(0)} MB at most sampled during, ${after.rss.toFixed(0)} MB after; VmHWM ${before.hwm.toFixed(0)} → ${after.hwm.toFixed(0)} MB.`,
  );
}

/** Waits past midnight UTC when the day's window (00:00–23:59) is about to close. */
async function insideTheWindow(): Promise<void> {
  const now = new Date();
  const minutes = now.getUTCHours() * 60 + now.getUTCMinutes();
  if (minutes < 23 * 60 + 55) return;
  const wait = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 0, 5) - now.getTime();
  log(`the window closes at 23:59 UTC: waiting ${(wait / 1000).toFixed(0)} s for the next day's`);
  await sleep(wait);
}

/**
 * (b) The accept path of click to call on this server (the click-to-call benchmark's load), then a
 * campaign of CAMPAIGN_CONTACTS contacts on the simulator: calls started per second, CPU per call.
 */
async function measureCampaign(
  engine: string,
  server: RunningSwitchboard,
  apiKey: string,
  agentId: string,
  rows: Row[],
  notes: string[],
): Promise<void> {
  const clickToCallAgent = await createClickToCallAgent(server.origin, apiKey);
  log(`${engine}: accept path of click to call`);
  const accept: Measured = await measureSteady(
    (attempt) =>
      load(
        server.origin,
        acceptRequests(clickToCallAgent, PHONES.accept + attempt * 50_000_000),
        200,
        ACCEPT_MAX_REQUESTS,
      ),
    server.child.pid,
  );
  rows.push({
    name: `click to call accepted, call started 200 (${engine})`,
    value: accept.rps,
    unit: 'req/s',
    p50Ms: accept.p50Ms,
    p99Ms: accept.p99Ms,
    serverCpuUs: accept.serverCpuUs,
    postgresCpuUs: engine === 'PostgreSQL' ? accept.postgresCpuUs : undefined,
    note: statusNote(accept),
  });
  const drainMs = await waitForCallsToEnd(server.origin, apiKey, 120_000);
  if (drainMs === null) notes.push(`${engine}: the accepted calls were still open 120 s after the load.`);

  const campaignId = await createCampaign(server.origin, apiKey, agentId, 'Campaign bench');
  const csv = contactsCsv(CAMPAIGN_CONTACTS, PHONES.campaign);
  const uploaded = await fetch(`${server.origin}/v1/campaigns/${campaignId}/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/csv' },
    body: csv,
    signal: AbortSignal.timeout(120_000),
  });
  const added = (await uploaded.json()) as { added?: number };
  if (uploaded.status !== 200 || added.added !== CAMPAIGN_CONTACTS)
    throw new Error(`campaign contacts: ${uploaded.status} ${JSON.stringify(added).slice(0, 500)}`);

  await insideTheWindow();
  await sleep(1000);
  log(
    `${engine}: campaign of ${CAMPAIGN_CONTACTS.toLocaleString('en-US')} contacts, concurrency ${CONCURRENCY}, ${CALLS_PER_MINUTE} calls/min`,
  );
  const cpuBefore = await cpuSnapshot(server.child.pid);
  const since = performance.now();
  expectStatus(
    await api(server.origin, 'POST', `/v1/campaigns/${campaignId}/start`, { apiKey }),
    200,
    'start the campaign',
  );
  let view = await getCampaign(server.origin, apiKey, campaignId);
  let firstStartedMs: number | null = null;
  let maxCalling = 0;
  while (view.counts.pending > 0) {
    if (performance.now() - since > CAMPAIGN_TIMEOUT_MS)
      throw new Error(
        `the campaign had not started every call after ${CAMPAIGN_TIMEOUT_MS / 1000} s: ${JSON.stringify(view)}`,
      );
    await sleep(POLL_MS);
    view = await getCampaign(server.origin, apiKey, campaignId);
    if (firstStartedMs === null && view.counts.pending < view.counts.total) firstStartedMs = performance.now() - since;
    maxCalling = Math.max(maxCalling, view.counts.calling);
  }
  const startedS = (performance.now() - since) / 1000;
  const cpu = cpuSince(cpuBefore, await cpuSnapshot(server.child.pid));
  const cpuMs = cpu.serverMs;
  const pgMs = cpu.postgresMs;
  const started = view.counts.total - view.counts.pending - view.counts.skipped;
  while (view.state !== 'completed') {
    if (performance.now() - since > CAMPAIGN_TIMEOUT_MS)
      throw new Error(`the campaign did not complete within ${CAMPAIGN_TIMEOUT_MS / 1000} s: ${JSON.stringify(view)}`);
    await sleep(POLL_MS);
    view = await getCampaign(server.origin, apiKey, campaignId);
  }
  const completedS = (performance.now() - since) / 1000;
  const calls = expectStatus<{ total?: number }>(
    await api(server.origin, 'GET', `/v1/calls?campaignId=${campaignId}&limit=1`, { apiKey }),
    200,
    'list the campaign calls',
  ).total;

  const perSecond = started / startedS;
  const ratio = perSecond / accept.rps;
  const cpuPerCallUs = (cpuMs * 1000) / Math.max(1, started);
  const pgPerCallUs = (pgMs * 1000) / Math.max(1, started);
  const capacity = (CALLS_PER_MINUTE / 60).toFixed(0);
  rows.push({
    name: `campaign: calls started per second, × = of the accept path (${engine})`,
    value: perSecond,
    unit: 'req/s',
    ratio,
    serverCpuUs: cpuPerCallUs,
    postgresCpuUs: engine === 'PostgreSQL' ? pgPerCallUs : undefined,
    target: { text: `≥ ${TARGETS.campaignRatio}× accept`, pass: ratio >= TARGETS.campaignRatio },
  });
  notes.push(
    `${engine} campaign: ${started.toLocaleString('en-US')} calls started in ${startedS.toFixed(1)} s from POST start (the first within ${((firstStartedMs ?? 0) / 1000).toFixed(2)} s), ` +
      `callsPerMinute ${CALLS_PER_MINUTE} caps it at ${capacity}/s; at most ${maxCalling} calling at once (concurrency ${CONCURRENCY}); ` +
      `completed after ${completedS.toFixed(1)} s with ${JSON.stringify(view.counts)}; GET /v1/calls?campaignId= counts ${calls ?? '?'} calls; ${othersNote(cpu.othersPct)}. ` +
      `Server CPU ${Math.round(cpuPerCallUs)} µs per campaign call (scheduler, simulator and call ends: role all) against ${Math.round(accept.serverCpuUs)} µs per accepted click to call` +
      (engine === 'PostgreSQL'
        ? `; postgres processes ${Math.round(pgPerCallUs)} µs against ${Math.round(accept.postgresCpuUs)} µs`
        : '') +
      `. At that CPU per call one core would start ${Math.round(1e6 / Math.max(1, cpuPerCallUs)).toLocaleString('en-US')} campaign calls a second.`,
  );
}

async function withPostgres(run: (settings: Record<string, string>) => Promise<void>): Promise<void> {
  const adminUrl = new URL(PG_ADMIN_URL);
  if (adminUrl.hostname !== '127.0.0.1')
    throw new Error(`the benchmark only uses a PostgreSQL on 127.0.0.1, not ${adminUrl.host}`);
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const name = `switchboard_bench_campaigns_${randomBytes(6).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    await run({
      DATABASE_URL: url.toString(),
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
    });
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

async function withPglite(run: (settings: Record<string, string>) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-bench-campaigns-'));
  try {
    await run({ SWITCHBOARD_DATA_DIR: dataDir });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function measureEngine(engine: 'PostgreSQL' | 'PGlite', rows: Row[], notes: string[]): Promise<void> {
  const prepare = engine === 'PostgreSQL' ? withPostgres : withPglite;
  await prepare(async (settings) => {
    const server = await startSwitchboard(`switchboard (${engine})`, settings);
    try {
      const apiKey = await signup(server.origin);
      const agentId = await createOutboundAgent(server.origin, apiKey);
      await measureImport(engine, server, apiKey, agentId, rows, notes);
      await measureCampaign(engine, server, apiKey, agentId, rows, notes);
    } finally {
      await server.child.stop(15_000);
    }
  });
}

export async function runCampaigns(): Promise<BenchmarkResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const failures: string[] = [];
  const only = process.env.BENCH_ENGINES?.toLowerCase().split(',');
  const engines = (['PostgreSQL', 'PGlite'] as const).filter((engine) => !only || only.includes(engine.toLowerCase()));
  // One engine failing still reports the other's figures.
  for (const engine of engines) {
    try {
      await measureEngine(engine, rows, notes);
    } catch (error) {
      failures.push(`${engine}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      killAll();
    }
  }
  return { name: 'campaigns', rows, notes, failures };
}

export const campaigns: Benchmark = { name: 'campaigns', run: runCampaigns };

await runIfMain(import.meta.url, campaigns);
