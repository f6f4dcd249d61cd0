/**
 * The ten-million-calls benchmark (docs/benchmarks.md#ten-million-calls, issue 20 §2): what a large
 * customer meets once the tables are big. A PostgreSQL database `switchboard_bench_10m` is filled
 * with 10,000,000 calls over 1,000 agents and 100 organizations, with transcripts, tool runs,
 * deliveries and their attempts, and kept between runs (a marker table says it is complete;
 * `--refill` or BENCH_TEN_MILLION_REFILL=1 rebuilds it; BENCH_TEN_MILLION_CALLS=100000 uses fewer
 * calls, in a database of its own). On it, with the server started as the README starts it
 * (`node bin/switchboard.js serve`, DATABASE_URL), against a new, empty database in the same run:
 *  - the click-to-call accept path, default agent configuration (rate limit set, 1,000,000/min);
 *  - GET /v1/calls: first page, agent + status, a page 50 pages deep, a page of a year ago;
 *  - GET /v1/calls/:id of calls spread over the year;
 *  - the delivery worker's drain of N fresh pending deliveries (a `SWITCHBOARD_ROLE=worker` process).
 * Table and index sizes per million calls are read from the filled database.
 *
 * Run alone: npx tsx bench/ten-million.ts (after npm run build). Fill only: add --fill-only. The
 * drain alone (empty database, then the filled one; for working on the delivery queue): --drain-only.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { encodeCallCursor } from '../src/calls/call-cursor.js';
import { migrate } from '../src/db/migrate.js';
import { withUnlimitedConnection } from '../src/db/postgres.js';
import { TOTAL_CAP } from '../src/lib/pagination.js';
import { createStatsRepository } from '../src/stats/stats.repository.js';
import { ROLLUP_DELAY_MS } from '../src/stats/stats.service.js';
import { acceptRequests, load, type Measured, measureSteady } from './click-to-call.js';
import { freePort, runIfMain, sleep } from './lib/children.js';
import { waitForQuiet } from './lib/cpu.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { api, type BenchAgent, type RunningSwitchboard, signup, startSwitchboard } from './lib/switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CALLS = Number(process.env.BENCH_TEN_MILLION_CALLS ?? 10_000_000);
const REFILL = process.argv.includes('--refill') || process.env.BENCH_TEN_MILLION_REFILL === '1';
const FILL_ONLY = process.argv.includes('--fill-only');
const DRAIN_ONLY = process.argv.includes('--drain-only');
/** What the calls list's capped total counts up to (TOTAL_CAP + 1, src/lib/pagination.ts). */
const TOTAL_CAP_PLUS_ONE = TOTAL_CAP + 1;
const DATABASE = CALLS === 10_000_000 ? 'switchboard_bench_10m' : `switchboard_bench_10m_${CALLS}`;
const ORGANIZATIONS = 100;
const AGENTS_PER_ORGANIZATION = 10;
const AGENTS = ORGANIZATIONS * AGENTS_PER_ORGANIZATION;
/** Calls per transaction of the fill: small enough to show progress, large enough to be cheap. */
const CHUNK = 200_000;
/** Chunks written at once, each by its own connection. */
const WORKERS = Number(process.env.BENCH_TEN_MILLION_WORKERS ?? 3);
/** The calls are spread evenly over this many days before the fill. */
const DAYS = 365;
/**
 * Bumped when the generated rows change: 2 made every id the shape the API accepts (26 characters),
 * 3 made the calls' ids sort by when they were made, as the API's do.
 */
const FILL_VERSION = 3;
const REQUESTS = 200;
const WARMUP = 10;
const DRAIN = Number(process.env.BENCH_TEN_MILLION_DRAIN ?? 10_000);
const TARGET = { acceptRatio: 0.8, listP99Ms: 20, oneP99Ms: 10, drainRatio: 0.8 };
/** The accept path's agent as every real agent is: with a limit, one high enough never to refuse. */
const RATE_LIMIT = 1_000_000;

const log = (message: string) => process.stderr.write(`[ten-million] ${message}\n`);

/** What the marker table keeps of a complete fill: enough to start the server on it again. */
interface Filled {
  calls: number;
  masterKey: string;
  apiKey: string;
  /** The measured organization's agents, made through the API. */
  agentIds: string[];
  fillSeconds: number;
  rows: Record<string, number>;
}

const TURNS = [
  [
    'agent',
    'Hi {name}, this is Maya from Northwind Solar. You asked us about panels for your home yesterday — is now a good time?',
  ],
  ['user', 'Yes, I have a few minutes. What do you need from me?'],
  ['agent', 'Great. Could you confirm the address where the panels would go, and whether you own the house?'],
  ['user', 'It is 1042 Alder Street, Portland. Yes, we own it, bought it four years ago.'],
  ['agent', 'Thank you. Roughly how much is your electricity bill each month, in the summer and in the winter?'],
  ['user', 'About ninety dollars in the summer, maybe one hundred sixty in the winter with the heat pump.'],
  ['agent', 'That helps. Is the roof facing south or west, and is it shaded by trees for part of the day?'],
  ['user', 'Mostly south. There is one big maple on the east side but it only shades the morning.'],
  [
    'agent',
    'Perfect, that is a good roof for solar. Would you like a free assessment visit from one of our engineers?',
  ],
  ['user', 'Sure, but it would have to be on a weekday after four, I work until then.'],
  ['agent', 'I can book Thursday at four thirty or Friday at five. Which one suits you better?'],
  ['user', 'Thursday at four thirty works.'],
  ['agent', 'Booked. You will get a text confirmation at this number. Can I also have an email for the report?'],
  ['user', 'ada.lovelace@example.com'],
  ['agent', 'Thank you, Ada. Is there anything else you would like to know before the visit?'],
  ['user', 'Do you handle the permits with the city, or is that on us?'],
  ['agent', 'We handle the permits and the utility interconnection, it is included in the quote.'],
  ['user', 'Good. Then see you Thursday.'],
  ['agent', 'See you Thursday, Ada. Have a good evening.'],
  ['user', 'Bye.'],
] as const;

/** 16 transcripts of 10–20 turns (about 1.0–2.3 KB of JSON, 1.5 KB on average), as calls end with. */
export function transcripts(): string[] {
  return Array.from({ length: 16 }, (_, t) => {
    const turns = 10 + ((t * 7) % 11);
    return JSON.stringify(
      TURNS.slice(0, turns).map(([role, text], n) => ({
        role,
        text: text.replace('{name}', 'Ada'),
        at: new Date(Date.UTC(2026, 0, 1, 12, 0, 4 * n + t)).toISOString(),
      })),
    );
  });
}

/** When call `i` was made: spread evenly over the DAYS before `:now`. */
const CREATED = `:now::timestamptz - interval '${DAYS} days' * (1 - i::float8 / :total)`;
/** Its time in milliseconds, as `ms`, for its id (a lateral join after the one naming `k.created`). */
const CREATED_MS = 'cross join lateral (select (extract(epoch from k.created) * 1000)::bigint as ms) m';
const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/**
 * Call `i`'s id, shaped as src/lib/ids.ts makes them when the call is made: its creation time in
 * milliseconds as 10 base-32 characters, then 16 more (here the serial, whose digits are in the
 * alphabet). So the ids sort as real ones do, oldest first, and the indexes on (organization, id)
 * read a large table as they would on a database grown over a year; ids that sorted apart from the
 * API's put the newest calls first in that order (fill version 3).
 */
const CALL_ID = `'call_' || ${Array.from(
  { length: 10 },
  (_, n) => `substr('${ID_ALPHABET}', ((m.ms >> ${5 * (9 - n)}) & 31)::int + 1, 1)`,
).join(' || ')} || lpad(i::text, 16, '0')`;

/**
 * Calls $5..$6 of $7 (all ended), evenly over the DAYS before $8, agent `i % 1000` of organization
 * `(i % 1000) / 10`. Of every 20: 12 answered (with a transcript, a summary and collected data),
 * 2 not answered, 1 busy, 1 voicemail, 4 failed, as bench/stats.ts's fill.
 */
export const FILL_CALLS = `
insert into calls (id, organization_id, agent_id, provider, direction, provider_call_id, from_number, to_number, status,
  outcome, ended_reason, variables, collected_data, transcript, summary, recording_url, created_at, started_at,
  answered_at, ended_at, duration_seconds, deadline_at)
select ${CALL_ID}, (:orgs::text[])[1 + (i % ${AGENTS}) / ${AGENTS_PER_ORGANIZATION}],
  (:agents::text[])[1 + i % ${AGENTS}], 'simulator', 'outbound', 'sim_bench' || lpad(i::text, 10, '0'), '+14155550100',
  '+1' || (2012000000 + (i * 7919) % 7000000000)::text, 'ended',
  case when k.r < 12 then (array['SOLD','NOT_INTERESTED','CALLBACK','COMPLETED'])[1 + i % 4]
       when k.r < 14 then 'NO_ANSWER' when k.r = 14 then 'BUSY' when k.r = 15 then 'VOICEMAIL' else 'FAILED' end,
  case when k.r < 12 then 'customer-ended-call' when k.r < 14 then 'customer-did-not-answer'
       when k.r = 14 then 'customer-busy' when k.r = 15 then 'voicemail' else 'pipeline-error-openai-llm-failed' end,
  jsonb_build_object('name', 'Ada', 'order', 'A-' || (i % 100000)::text),
  case when k.r < 12 then jsonb_build_object('email', 'ada' || (i % 1000)::text || '@example.com', 'appointment',
    '2026-01-08T16:30:00Z', 'owner', true, 'monthlyBill', 90 + i % 80) else '{}'::jsonb end,
  case when k.r < 12 then (:transcripts::jsonb[])[1 + i % 16] else '[]'::jsonb end,
  case when k.r < 12 then 'The customer confirmed the address, owns the house and booked an assessment visit.' end,
  case when k.r < 12 then 'https://recordings.example.com/bench/' || i::text || '.wav' end,
  k.created, k.created, case when k.r < 12 then k.created + interval '5 seconds' end,
  k.created + make_interval(secs => 10 + i % 600), case when k.r < 12 then 5 + i % 600 else 0 end,
  k.created + interval '10 minutes'
from generate_series(:from::bigint, :to::bigint) i
cross join lateral (select ${CREATED} as created, i % 20 as r) k
${CREATED_MS}`;

/** Every third answered call ran two tools (one in twelve failed). */
export const FILL_TOOLS = `
insert into tool_invocations (id, organization_id, call_id, tool_id, tool_name, arguments, request, response_status,
  response_excerpt, result, error, latency_ms, created_at)
select 'tinv_bench' || lpad(i::text, 20, '0') || n, (:orgs::text[])[1 + (i % ${AGENTS}) / ${AGENTS_PER_ORGANIZATION}],
  ${CALL_ID}, 'tool_bench', case n when 1 then 'lookup_order' else 'book_visit' end,
  jsonb_build_object('order', 'A-' || (i % 100000)::text),
  jsonb_build_object('method', 'POST', 'url', 'https://api.example.com/orders/lookup', 'headers',
    jsonb_build_object('content-type', 'application/json'), 'body', '{"order":"A-' || (i % 100000)::text || '"}'),
  case when (i + n) % 12 = 3 then 500 else 200 end,
  case when (i + n) % 12 = 3 then '{"error":"internal"}' else '{"status":"shipped","eta":"2026-01-09"}' end,
  case when (i + n) % 12 = 3 then 'The tool failed.' else '{"status":"shipped","eta":"2026-01-09"}' end,
  case when (i + n) % 12 = 3 then 'HTTP 500' end, 40 + (i * 7919) % 900,
  k.created + make_interval(secs => 8 + 20 * n)
from generate_series(:from::bigint, :to::bigint) i cross join (values (1), (2)) t(n)
cross join lateral (select ${CREATED} as created) k
${CREATED_MS}
where i % 20 < 12 and i % 3 = 0`;

/**
 * One delivery per call to its agent's integration, final: 1 in 100 failed after 3 attempts, 1 in
 * 10 delivered at the second attempt, the rest at the first; the payload as the first attempt fixed it.
 */
export const FILL_DELIVERIES = `
insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at, claim,
  attempt_count, retries_used, payload, created_at, updated_at)
select 'dlv_bench' || lpad(i::text, 21, '0'), (:orgs::text[])[1 + (i % ${AGENTS}) / ${AGENTS_PER_ORGANIZATION}],
  (:integrations::text[])[1 + i % ${AGENTS}], ${CALL_ID}, 'msg_bench' || lpad(i::text, 21, '0'),
  case when k.attempts = 3 then 'failed' else 'delivered' end, null, k.attempts, k.attempts, k.attempts - 1,
  '{"type":"call.ended","timestamp":"' || to_char(k.ended at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') ||
    '","data":{"id":"' || ${CALL_ID} || '","agentId":"' || (:agents::text[])[1 + i % ${AGENTS}] ||
    '","status":"ended","variables":{"name":"Ada"},"transcript":' ||
    case when i % 20 < 12 then (:texts::text[])[1 + i % 16] else '[]' end || '}}',
  k.ended, k.ended + make_interval(secs => 30 * (k.attempts - 1) + 1)
from generate_series(:from::bigint, :to::bigint) i
cross join lateral (
  select ${CREATED} as created, ${CREATED} + make_interval(secs => 10 + i % 600) as ended,
    case when i % 100 = 7 then 3 when i % 10 = 3 then 2 else 1 end as attempts
) k
${CREATED_MS}`;

export const FILL_ATTEMPTS = `
insert into delivery_attempts (delivery_id, at, status, latency_ms, error, error_code, response_excerpt)
select 'dlv_bench' || lpad(i::text, 21, '0'), k.ended + make_interval(secs => 30 * (a - 1)),
  case when a < k.attempts or k.attempts = 3 then 503 else 200 end, 30 + (i * 13 + a) % 400,
  case when a < k.attempts or k.attempts = 3 then 'HTTP 503' end,
  case when a < k.attempts or k.attempts = 3 then 'webhook:status' end,
  case when a < k.attempts or k.attempts = 3 then 'Service Unavailable' else '{"received":true}' end
from generate_series(:from::bigint, :to::bigint) i
cross join lateral (
  select :now::timestamptz - interval '${DAYS} days' * (1 - i::float8 / :total) + make_interval(secs => 10 + i % 600) as ended,
    case when i % 100 = 7 then 3 when i % 10 = 3 then 2 else 1 end as attempts
) k
cross join lateral generate_series(1, k.attempts) a`;

/** `:name` placeholders as $1, $2 … in order of first use, with their values: each statement binds only what it uses. */
export function bind(text: string, values: Record<string, unknown>): [string, unknown[]] {
  const order: string[] = [];
  const bound = text.replace(/:([a-z]+)\b/g, (whole, name: string) => {
    if (!(name in values)) return whole;
    if (!order.includes(name)) order.push(name);
    return `$${order.indexOf(name) + 1}`;
  });
  return [bound, order.map((name) => values[name])];
}

function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The settings of every server of this benchmark: its database, and loopback receivers allowed. */
const serverSettings = (url: string, masterKey: string) => ({
  DATABASE_URL: url,
  SWITCHBOARD_MASTER_KEY: masterKey,
  SWITCHBOARD_SIGNUP: 'open',
  SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
});

/** An organization with AGENTS_PER_ORGANIZATION click-to-call agents, each with a disabled integration, through the API. */
async function setUpOrganization(origin: string): Promise<{ apiKey: string; agentIds: string[] }> {
  const apiKey = await signup(origin);
  const agentIds: string[] = [];
  for (let i = 0; i < AGENTS_PER_ORGANIZATION; i++) {
    const agent = await api(origin, 'POST', '/v1/agents', {
      apiKey,
      body: { name: `Ten million agent ${i + 1}`, type: 'click_to_call', rateLimitPerMinute: RATE_LIMIT },
    });
    if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${JSON.stringify(agent.body)}`);
    const id = (agent.body as { id: string }).id;
    const integration = await api(origin, 'POST', `/v1/agents/${id}/integrations`, {
      apiKey,
      body: { url: 'https://hooks.example.com/ten-million', enabled: false },
    });
    if (integration.status !== 201) throw new Error(`create integration: ${integration.status}`);
    agentIds.push(id);
  }
  return { apiKey, agentIds };
}

/** The fill's progress, kept in the filled database itself: a fill stopped half way resumes at its last chunk. */
interface Progress extends Filled {
  /** FILL_VERSION of the generator that wrote it: an older fill is rebuilt. */
  version: number;
  organizations: string[];
  agents: string[];
  integrations: string[];
  /** The instant the calls are spread back from, ISO. */
  now: string;
  /** Secondary indexes dropped for the fill, built again at its end. */
  indexes: { indexname: string; indexdef: string }[];
  /** The storage parameters of the tables packed full, as migrated (`reloptions`, e.g. `fillfactor=80`), set again after the fill. */
  tableOptions?: Record<string, string[]>;
  /** Calls 1..done are in, with `rows` (a fill that ran one chunk after another). */
  done: number;
  /** Chunks in, by their first call: calls, tool runs, deliveries, attempts written. */
  chunks?: Record<string, number[]>;
  insertSeconds: number;
  complete: boolean;
}

async function readMarker(client: pg.Client): Promise<Progress | undefined> {
  const exists = await client.query("select to_regclass('bench_ten_million') is not null as present");
  if (!exists.rows[0]?.present) return undefined;
  const rows = await client.query('select filled from bench_ten_million');
  const progress = rows.rows[0]?.filled as Progress | undefined;
  return progress?.calls === CALLS && progress.version === FILL_VERSION ? progress : undefined;
}

const writeMarker = (client: pg.Client, progress: Progress) =>
  client.query('update bench_ten_million set filled = $1', [JSON.stringify(progress)]);

/**
 * The measured organization, its agents and integrations through the API, the 99 others as copies
 * of those rows in SQL; the secondary indexes of the big tables dropped (built again by sorting at
 * the end, a fraction of the cost of keeping them row by row; primary keys stay).
 */
async function setUp(admin: pg.Client, url: string): Promise<Progress> {
  await admin.query(`drop database if exists ${DATABASE} with (force)`);
  await admin.query(`create database ${DATABASE}`);
  const masterKey = randomBytes(32).toString('base64');
  const server = await startSwitchboard('switchboard (PostgreSQL, ten-million setup)', serverSettings(url, masterKey));
  let apiKey: string;
  let agentIds: string[];
  try {
    ({ apiKey, agentIds } = await setUpOrganization(server.origin));
  } finally {
    // The fill runs with no server: nothing else writes meanwhile.
    await server.child.stop(10_000);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const template = agentIds[0];
    const [{ organization_id: organizationId }] = (
      await client.query('select organization_id from agents where id = $1', [template])
    ).rows;
    await client.query(
      `insert into organizations (id, name, created_at)
       select 'org_bench' || lpad(n::text, 4, '0'), 'Bench organization ' || n, now() from generate_series(1, $1::int - 1) n`,
      [ORGANIZATIONS],
    );
    await client.query(
      `insert into agents
       select (jsonb_populate_record(null::agents, to_jsonb(a) || jsonb_build_object('id', 'agt_bench' || lpad(n::text, 5, '0'),
         'organization_id', 'org_bench' || lpad((n / $2::int)::text, 4, '0'), 'name', 'Bench agent ' || n,
         'api_token_hash', null, 'api_token_nonce', null, 'api_secret_sealed', null))).*
       from agents a cross join generate_series($2::int, $3::int - 1) n where a.id = $1`,
      [template, AGENTS_PER_ORGANIZATION, AGENTS],
    );
    const [{ id: templateIntegration }] = (
      await client.query('select id from integrations where agent_id = $1', [template])
    ).rows;
    await client.query(
      `insert into integrations
       select (jsonb_populate_record(null::integrations, to_jsonb(i) || jsonb_build_object('id', 'intg_bench' || lpad(n::text, 5, '0'),
         'organization_id', 'org_bench' || lpad((n / $2::int)::text, 4, '0'), 'agent_id', 'agt_bench' || lpad(n::text, 5, '0')))).*
       from integrations i cross join generate_series($2::int, $3::int - 1) n where i.id = $1`,
      [templateIntegration, AGENTS_PER_ORGANIZATION, AGENTS],
    );
    const organizations = [organizationId as string];
    for (let n = 1; n < ORGANIZATIONS; n++) organizations.push(`org_bench${String(n).padStart(4, '0')}`);
    const agents = [...agentIds];
    for (let n = AGENTS_PER_ORGANIZATION; n < AGENTS; n++) agents.push(`agt_bench${String(n).padStart(5, '0')}`);
    const integrationRows = await client.query('select agent_id, id from integrations');
    const integrationOf = new Map(integrationRows.rows.map((r) => [r.agent_id as string, r.id as string]));
    const indexes = (
      await client.query(
        `select indexname, indexdef from pg_indexes where schemaname = 'public'
           and tablename in ('calls', 'tool_invocations', 'deliveries', 'delivery_attempts')
           and indexname not in (select conname from pg_constraint)`,
      )
    ).rows as { indexname: string; indexdef: string }[];
    for (const index of indexes) await client.query(`drop index ${index.indexname}`);
    const tableOptions = await packFull(client);
    const progress: Progress = {
      version: FILL_VERSION,
      calls: CALLS,
      masterKey,
      apiKey,
      agentIds,
      fillSeconds: 0,
      rows: { calls: 0, tool_invocations: 0, deliveries: 0, delivery_attempts: 0 },
      organizations,
      agents,
      integrations: agents.map((agent) => integrationOf.get(agent) as string),
      now: new Date().toISOString(),
      indexes,
      tableOptions,
      done: 0,
      insertSeconds: 0,
      complete: false,
    };
    await client.query('create table bench_ten_million (filled jsonb not null)');
    await client.query('insert into bench_ten_million values ($1)', [JSON.stringify(progress)]);
    return progress;
  } finally {
    await client.end();
  }
}

/** What `packFull` and `restoreOptions` need of a client: pg's or PGlite's. */
interface Queryable {
  query(text: string): Promise<{ rows: unknown[] }>;
}

/** The tables that keep room on each new page (decisions 0068, 0069), which the fill packs full. */
const ROOMY_TABLES = ['calls', 'deliveries'] as const;

/**
 * The fill writes each call and delivery as it ended. A live table's rows were inserted small and
 * grew into the room the fillfactor keeps, or moved on and left it to others (decisions 0068,
 * 0069), so its older pages are about full: the fill packs them full. Returns each table's storage
 * parameters as migrated, for `restoreOptions`.
 */
export async function packFull(client: Queryable): Promise<Record<string, string[]>> {
  const options: Record<string, string[]> = {};
  for (const table of ROOMY_TABLES) {
    const { rows } = await client.query(`select reloptions from pg_class where oid = '${table}'::regclass`);
    options[table] = (rows[0] as { reloptions: string[] | null } | undefined)?.reloptions ?? [];
    await client.query(`alter table ${table} set (fillfactor = 100)`);
  }
  return options;
}

/** Puts back the tables' own storage parameters after the fill, for the rows the runs add. */
export async function restoreOptions(client: Queryable, options: Record<string, string[]>): Promise<void> {
  for (const table of ROOMY_TABLES) {
    await client.query(`alter table ${table} reset (fillfactor)`);
    const own = options[table] ?? [];
    if (own.length > 0) await client.query(`alter table ${table} set (${own.join(', ')})`);
  }
}

/**
 * The filled database: reused when its marker says it is complete, resumed when a fill stopped
 * half way, else built: calls and their rows in chunks of CHUNK calls, each chunk one transaction
 * that also moves the marker on.
 */
async function ensureFilled(admin: pg.Client, notes: string[]): Promise<Filled> {
  const url = databaseUrl(DATABASE);
  const present = (await admin.query('select 1 from pg_database where datname = $1', [DATABASE])).rowCount === 1;
  let progress: Progress | undefined;
  if (present && !REFILL) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    progress = await readMarker(client).finally(() => client.end());
    if (progress?.complete) {
      notes.push(`reused ${DATABASE} (filled earlier in ${progress.fillSeconds.toFixed(0)} s)`);
      return progress;
    }
    if (progress) log(`resuming the fill after call ${progress.done.toLocaleString('en-US')}`);
  }
  progress ??= await setUp(admin, url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const since = performance.now() - progress.insertSeconds * 1000;
    const texts = transcripts();
    const chunks = progress.chunks ?? {};
    const todo: number[] = [];
    for (let from = 1; from <= CALLS; from += CHUNK) if (from > progress.done && !chunks[from]) todo.push(from);
    const sessionStarted = performance.now();
    const sessionCalls = todo.reduce((n, from) => n + Math.min(CHUNK, CALLS - from + 1), 0);
    let written = 0;
    const spent: Record<string, number> = {};
    const p = progress;
    // WORKERS chunks at a time, each on its own connection: the fill is CPU-bound in PostgreSQL.
    const worker = async () => {
      const connection = new pg.Client({ connectionString: url });
      await connection.connect();
      try {
        // The rows are consistent by construction: no foreign-key trigger per row (superuser only).
        await connection.query("set session_replication_role = 'replica'");
        await connection.query('set synchronous_commit = off');
        for (let from = todo.shift(); from !== undefined; from = todo.shift()) {
          const to = Math.min(CALLS, from + CHUNK - 1);
          const values = {
            orgs: p.organizations,
            agents: p.agents,
            integrations: p.integrations,
            transcripts: texts,
            texts,
            from,
            to,
            total: CALLS,
            now: p.now,
          };
          const run = async (text: string) => {
            const started = performance.now();
            const count = (await connection.query(...bind(text, values))).rowCount ?? 0;
            spent[text] = (spent[text] ?? 0) + performance.now() - started;
            return count;
          };
          await connection.query('begin');
          const counts = [
            await run(FILL_CALLS),
            await run(FILL_TOOLS),
            await run(FILL_DELIVERIES),
            await run(FILL_ATTEMPTS),
          ];
          const seconds = (performance.now() - since) / 1000;
          await connection.query(
            `update bench_ten_million set filled = jsonb_set(jsonb_set(filled, '{chunks}', coalesce(filled->'chunks', '{}') || jsonb_build_object($1::text, $2::jsonb)),
               '{insertSeconds}', to_jsonb(greatest((filled->>'insertSeconds')::float8, $3::float8)))`,
            [String(from), JSON.stringify(counts), seconds],
          );
          await connection.query('commit');
          chunks[from] = counts;
          written += to - from + 1;
          const rate = written / ((performance.now() - sessionStarted) / 1000);
          const split = Object.values(spent)
            .map((ms) => (ms / 1000).toFixed(0))
            .join('/');
          log(
            `${written.toLocaleString('en-US')} of ${sessionCalls.toLocaleString('en-US')} calls this run, ${seconds.toFixed(0)} s in all (${Math.round(rate)} calls/s; calls/tools/deliveries/attempts ${split} s of statements)`,
          );
        }
      } finally {
        await connection.end();
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    progress.chunks = chunks;
    progress.insertSeconds = (performance.now() - since) / 1000;
    for (const counts of Object.values(chunks)) {
      (['calls', 'tool_invocations', 'deliveries', 'delivery_attempts'] as const).forEach((table, n) => {
        progress.rows[table] = (progress.rows[table] ?? 0) + (counts[n] ?? 0);
      });
    }
    progress.done = CALLS;
    progress.chunks = {};
    await client.query("set session_replication_role = 'origin'");
    const insertSeconds = progress.insertSeconds;
    await client.query("set maintenance_work_mem = '512MB'");
    for (const index of progress.indexes) {
      log(`index ${index.indexname}`);
      await client.query(index.indexdef.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
    }
    const indexSeconds = (performance.now() - since) / 1000 - insertSeconds;
    await restoreOptions(client, progress.tableOptions ?? {});
    log('vacuum analyze');
    // VACUUM for the calls and deliveries, as autovacuum would have run it on a database grown over a
    // year: the visibility map the lists' index-only scans need, and the free-space map that tells
    // where the gaps between older rows are. Statistics alone for the rest.
    await client.query('vacuum analyze calls, deliveries');
    await client.query('analyze tool_invocations, delivery_attempts, agents, integrations');
    progress.fillSeconds = (performance.now() - since) / 1000;
    progress.complete = true;
    await writeMarker(client, progress);
    const { rows } = progress;
    const total = Object.values(rows).reduce((a, b) => a + b, 0);
    notes.push(
      `filled ${DATABASE}: ${Object.entries(rows)
        .map(([table, n]) => `${n.toLocaleString('en-US')} ${table}`)
        .join(
          ', ',
        )} in ${insertSeconds.toFixed(0)} s (${Math.round((rows.calls ?? 0) / insertSeconds).toLocaleString('en-US')} calls/s, ${Math.round(total / insertSeconds).toLocaleString('en-US')} rows/s), ${progress.indexes.length} secondary indexes built in ${indexSeconds.toFixed(0)} s, then VACUUM ANALYZE: ${progress.fillSeconds.toFixed(0)} s in all`,
    );
    return progress;
  } finally {
    await client.end();
  }
}

/** Calls a step of the catch-up below reads: larger than the server's (5,000), with no statement timeout. */
const STATS_STEP_CALLS = 200_000;

/**
 * The stats rollup brought up to date before anything is measured, as a server running through the
 * year the fill stands for would have left it (decision 0101): the filled calls are written straight
 * into the table, so no server ever rolled their quarter hours up. Without this, every server the
 * benchmark starts spends 5 s of every 15 rolling up a year of history (5,000 calls a step), and what
 * is measured meets it: the lists' tail, the accept path, the drain. Done with the server's own
 * rollup step, in larger steps; on a database already caught up it is one statement. Said with its
 * time either way.
 */
async function catchUpStats(url: string, notes: string[]): Promise<void> {
  const started = performance.now();
  let steps = 0;
  await withUnlimitedConnection(url, async (db) => {
    const stats = createStatsRepository(db);
    const until = new Date(Date.now() - ROLLUP_DELAY_MS);
    for (let more = true; more; steps++) {
      more = await stats.rollUp(until, STATS_STEP_CALLS);
      if (steps % 5 === 4) {
        log(`stats rollup: ${steps + 1} steps of up to ${STATS_STEP_CALLS.toLocaleString('en-US')} calls`);
      }
    }
  });
  const seconds = (performance.now() - started) / 1000;
  notes.push(
    `stats rollup caught up before measuring: ${steps} step${steps === 1 ? '' : 's'} in ${seconds.toFixed(steps > 1 ? 0 : 2)} s`,
  );
}

export const tenMillion: Benchmark = {
  name: 'ten-million',
  onlyWhenNamed: true,
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    if (new URL(PG_ADMIN_URL).hostname !== '127.0.0.1') {
      return { name: 'ten-million', rows, notes, failures: ['only a PostgreSQL on 127.0.0.1 is used'] };
    }
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const filled = await ensureFilled(admin, notes);
      await catchUpStats(databaseUrl(DATABASE), notes);
      if (DRAIN_ONLY) await measureDrainOnly(admin, filled, rows, notes);
      else if (!FILL_ONLY) await measureAll(admin, filled, rows, notes);
    } catch (error) {
      failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    } finally {
      await admin.end();
    }
    return { name: 'ten-million', rows, notes, failures };
  },
};

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;

/** GET `paths(i)` one at a time, WARMUP then REQUESTS of them: p50 and p99 in ms. */
async function timeGets(origin: string, apiKey: string, paths: (i: number) => string) {
  const once = async (i: number) => {
    const since = performance.now();
    const answer = await api(origin, 'GET', paths(i), { apiKey });
    if (answer.status !== 200) throw new Error(`${paths(i)}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return performance.now() - since;
  };
  for (let i = 0; i < WARMUP; i++) await once(i);
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) times.push(await once(WARMUP + i));
  times.sort((x, y) => x - y);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function credentialsOf(origin: string, apiKey: string, agentId: string): Promise<BenchAgent> {
  const answer = await api(origin, 'GET', `/v1/agents/${agentId}/credentials`, { apiKey });
  if (answer.status !== 200) throw new Error(`credentials: ${answer.status}`);
  const { apiToken, apiSecret } = answer.body as { apiToken: string; apiSecret: string };
  return { agentId, apiToken, apiSecret };
}

/** A receiver on loopback answering 200 at once, keeping when its first and its last request came. */
async function startReceiver(): Promise<{ url: string; count: () => number; spanMs: () => number; close: () => void }> {
  let count = 0;
  let first = 0;
  let last = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      last = performance.now();
      if (count++ === 0) first = last;
      response.end('{"received":true}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () => count,
    spanMs: () => last - first,
    close: () => server.close(),
  };
}

/**
 * The delivery worker's drain: DRAIN ended calls of one agent, each with a pending delivery to a
 * loopback receiver, written while no server runs; then the server is started and the receiver
 * counts. Deliveries/s between the receiver's first and last request (the start is not counted).
 */
async function measureDrain(
  url: string,
  masterKey: string,
  apiKey: string,
  agentId: string,
  label: string,
): Promise<{ perSecond: number; pages: number }> {
  const receiver = await startReceiver();
  try {
    let server = await startSwitchboard(`switchboard (${label}, drain setup)`, serverSettings(url, masterKey));
    const integration = await api(server.origin, 'POST', `/v1/agents/${agentId}/integrations`, {
      apiKey,
      body: { url: receiver.url, enabled: true },
    });
    await server.child.stop(10_000);
    if (integration.status !== 201) throw new Error(`create integration: ${integration.status}`);
    const integrationId = (integration.body as { id: string }).id;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tag = randomBytes(4).toString('hex');
    let pages: number;
    try {
      await client.query('begin');
      await client.query(
        `insert into calls (id, organization_id, agent_id, provider, direction, to_number, status, outcome, ended_reason,
           variables, collected_data, transcript, created_at, started_at, answered_at, ended_at, duration_seconds, deadline_at)
         select 'call_d' || $3 || lpad(i::text, 17, '0'), a.organization_id, a.id, 'simulator', 'outbound',
           '+1415555' || lpad((i % 10000)::text, 4, '0'), 'ended', 'SOLD', 'customer-ended-call', '{"name":"Ada"}',
           '{"plan":"pro"}', '[{"role":"agent","text":"Hello","at":"2026-01-01T00:00:00Z"}]', now(), now(), now(), now(), 30,
           now() + interval '10 minutes'
         from agents a cross join generate_series(1, $2::int) i where a.id = $1`,
        [agentId, DRAIN, tag],
      );
      await client.query(
        `insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
         select 'dlv_d' || $3 || lpad(i::text, 17, '0'), a.organization_id, $4, 'call_d' || $3 || lpad(i::text, 17, '0'),
           'msg_d' || $3 || lpad(i::text, 17, '0'), 'pending', now()
         from agents a cross join generate_series(1, $2::int) i where a.id = $1`,
        [agentId, DRAIN, tag, integrationId],
      );
      await client.query('commit');
      // The heap pages the pending deliveries were written on: few when they went to the table's end,
      // up to one each when they went into the gaps of older pages.
      pages = Number(
        (
          await client.query(
            `select count(distinct (ctid::text::point)[0]) as pages from deliveries where integration_id = $1`,
            [integrationId],
          )
        ).rows[0].pages,
      );
    } finally {
      await client.end();
    }
    server = await startSwitchboard(`switchboard (${label}, drain)`, serverSettings(url, masterKey));
    try {
      const since = performance.now();
      while (receiver.count() < DRAIN) {
        if (performance.now() - since > 300_000) throw new Error(`drain: ${receiver.count()} of ${DRAIN} after 300 s`);
        await sleep(100);
      }
      await sleep(500);
      const disable = await api(server.origin, 'PATCH', `/v1/integrations/${integrationId}`, {
        apiKey,
        body: { enabled: false },
      });
      if (disable.status !== 200) log(`could not disable the drain's integration: ${disable.status}`);
    } finally {
      await server.child.stop(10_000);
    }
    if (receiver.count() !== DRAIN) throw new Error(`drain: the receiver got ${receiver.count()} of ${DRAIN}`);
    return { perSecond: ((DRAIN - 1) * 1000) / receiver.spanMs(), pages };
  } finally {
    receiver.close();
  }
}

function agentAt(ids: string[], n: number): string {
  const id = ids[n];
  if (id === undefined) throw new Error(`no agent ${n}`);
  return id;
}

async function measureAccept(server: RunningSwitchboard, agent: BenchAgent): Promise<Measured> {
  // Numbers no earlier run used: the open-call guard refuses a number with a call still open.
  const base = (Math.floor(Date.now() / 1000) % 10_000) * 100_000;
  return measureSteady(
    (attempt) => load(server.origin, acceptRequests(agent, base + attempt * 50_000), 200, 40_000),
    server.child.pid,
  );
}

const acceptNote = (label: string, m: Measured) =>
  `${label}: ${Math.round(m.rps).toLocaleString('en-US')} calls/s, CPU per call server ${Math.round(m.serverCpuUs)} µs + PostgreSQL ${Math.round(m.postgresCpuUs)} µs, others used ${m.othersPct.toFixed(0)}% of the machine${m.othersPct >= 10 ? ' (DISTURBED)' : ''}`;

/** A new, empty database to compare the filled one with, and a master key for its server. */
async function createEmptyDatabase(admin: pg.Client) {
  const name = `switchboard_bench_10m_empty_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  return {
    url: databaseUrl(name),
    masterKey: randomBytes(32).toString('base64'),
    async drop(): Promise<void> {
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    },
  };
}

async function measureAll(admin: pg.Client, filled: Filled, rows: Row[], notes: string[]): Promise<void> {
  const bigUrl = databaseUrl(DATABASE);
  const { url: emptyUrl, masterKey: emptyKey, drop } = await createEmptyDatabase(admin);
  try {
    // The accept path, empty database then the filled one, each its own server.
    let server = await startSwitchboard('switchboard (PostgreSQL, empty)', serverSettings(emptyUrl, emptyKey));
    let empty: { apiKey: string; agentIds: string[] };
    let emptyAccept: Measured;
    try {
      empty = await setUpOrganization(server.origin);
      emptyAccept = await measureAccept(
        server,
        await credentialsOf(server.origin, empty.apiKey, agentAt(empty.agentIds, 0)),
      );
    } finally {
      await server.child.stop(10_000);
    }
    // Migrations not yet on the filled database (new indexes) may take minutes: applied here, timed,
    // rather than inside the server's start, which the benchmark gives a minute.
    const migrating = performance.now();
    const applied = await withUnlimitedConnection(bigUrl, migrate);
    if (applied.length > 0) {
      notes.push(
        `migrations ${applied.join(', ')} applied to the filled database in ${((performance.now() - migrating) / 1000).toFixed(0)} s`,
      );
      await withUnlimitedConnection(bigUrl, (db) => db.execute(sql`analyze calls`));
    }
    server = await startSwitchboard('switchboard (PostgreSQL, 10M)', serverSettings(bigUrl, filled.masterKey));
    try {
      const bigAccept = await measureAccept(
        server,
        await credentialsOf(server.origin, filled.apiKey, agentAt(filled.agentIds, 0)),
      );
      const ratio = bigAccept.rps / emptyAccept.rps;
      rows.push({
        name: 'accept, empty database (PostgreSQL)',
        value: emptyAccept.rps,
        unit: 'req/s',
        p50Ms: emptyAccept.p50Ms,
        p99Ms: emptyAccept.p99Ms,
        serverCpuUs: emptyAccept.serverCpuUs,
        postgresCpuUs: emptyAccept.postgresCpuUs,
      });
      rows.push({
        name: `accept, ${filled.calls.toLocaleString('en-US')} calls (PostgreSQL)`,
        value: bigAccept.rps,
        unit: 'req/s',
        ratio,
        p50Ms: bigAccept.p50Ms,
        p99Ms: bigAccept.p99Ms,
        serverCpuUs: bigAccept.serverCpuUs,
        postgresCpuUs: bigAccept.postgresCpuUs,
        target: { text: `≥ ${TARGET.acceptRatio}× empty`, pass: ratio >= TARGET.acceptRatio },
        note: 'ratio to the empty database',
      });
      notes.push(acceptNote('accept, empty', emptyAccept), acceptNote('accept, filled', bigAccept));
      const cpuRatio =
        (emptyAccept.serverCpuUs + emptyAccept.postgresCpuUs) / (bigAccept.serverCpuUs + bigAccept.postgresCpuUs);
      notes.push(`accept, CPU per call (server + PostgreSQL), empty over filled: ${cpuRatio.toFixed(2)}×`);

      // The lists and one call, on the filled database, once the accepted calls' background work
      // (their ends, the stats rollup, PostgreSQL writing out) is done: a list read at the tail of a
      // burst of 4,000 calls a second measures the burst.
      const settled = await waitForQuiet();
      notes.push(
        `lists measured ${(settled.waitedMs / 1000).toFixed(0)} s after the accept load${settled.quiet ? ', the machine quiet (under 10 % of a core)' : ', the machine NOT yet quiet after 60 s'}`,
      );
      const { apiKey, agentIds } = filled;
      const client = new pg.Client({ connectionString: bigUrl });
      await client.connect();
      let old: { id: string; key: string };
      let ids: string[];
      try {
        const [{ organization_id: organizationId }] = (
          await client.query('select organization_id from agents where id = $1', [agentIds[0]])
        ).rows;
        old = (
          await client.query(
            `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as key from calls
             where organization_id = $1 and created_at < now() - interval '180 days' order by created_at desc, id desc limit 1`,
            [organizationId],
          )
        ).rows[0];
        ids = (
          await client.query(`select id from calls tablesample system (1) where organization_id = $1 limit $2`, [
            organizationId,
            WARMUP + REQUESTS,
          ])
        ).rows.map((r) => r.id as string);
        // The list's capped total reads 10,001 index entries and visits the heap for each whose page
        // is not marked all-visible: pages that earlier runs' calls were written into since the last
        // VACUUM (autovacuum may be off, or not yet due). Said, so that runs can be compared.
        const plan = (
          await client.query(
            `explain (analyze, format json) select count(*) from (select 1 from calls where organization_id = $1 limit ${TOTAL_CAP_PLUS_ONE}) matching`,
            [organizationId],
          )
        ).rows[0]['QUERY PLAN'] as unknown;
        const fetches = /"Heap Fetches":\s*(\d+)/.exec(JSON.stringify(plan))?.[1] ?? '?';
        notes.push(
          `the capped total's index-only scan visited the heap for ${fetches} of its ${TOTAL_CAP_PLUS_ONE.toLocaleString('en-US')} entries (pages not all-visible)`,
        );
      } finally {
        await client.end();
      }
      let cursor: string | null = null;
      for (let page = 0; page < 50; page++) {
        const answer = await api(server.origin, 'GET', `/v1/calls${cursor ? `?cursor=${cursor}` : ''}`, { apiKey });
        if (answer.status !== 200) {
          throw new Error(`page ${page + 1} of the calls: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
        cursor = (answer.body as { nextCursor: string | null }).nextCursor;
        if (!cursor) throw new Error(`fewer than 50 pages of calls: page ${page + 1} was the last`);
      }
      const deep = cursor as string;
      const monthsAgo = encodeCallCursor('-createdAt', { key: old.key, id: old.id });
      const measured: [string, (i: number) => string, number][] = [
        ['GET /v1/calls, first page', () => '/v1/calls', TARGET.listP99Ms],
        ['GET /v1/calls?agentId&status=ended', () => `/v1/calls?agentId=${agentIds[1]}&status=ended`, TARGET.listP99Ms],
        ['GET /v1/calls, page 51 by cursor', () => `/v1/calls?cursor=${deep}`, TARGET.listP99Ms],
        ['GET /v1/calls, cursor 180 days back', () => `/v1/calls?cursor=${monthsAgo}`, TARGET.listP99Ms],
        ['GET /v1/calls/:id, calls over the year', (i) => `/v1/calls/${ids[i % ids.length]}`, TARGET.oneP99Ms],
      ];
      for (const [label, paths, target] of measured) {
        const { p50, p99 } = await timeGets(server.origin, apiKey, paths);
        rows.push({
          name: label,
          value: p99,
          unit: 'ms',
          p50Ms: p50,
          p99Ms: p99,
          target: { text: `p99 ≤ ${target} ms`, pass: p99 <= target },
        });
      }
      const first = await api(server.origin, 'GET', '/v1/calls', { apiKey });
      const { total, totalCapped } = first.body as { total: number; totalCapped?: boolean };
      notes.push(
        `GET /v1/calls answers total ${total}${totalCapped ? ' (capped: "10,000+")' : ''} for the measured organization`,
      );
      notes.push(`lists and one call: ${WARMUP} requests of warm-up, then ${REQUESTS} one at a time; value = p99`);
    } finally {
      await server.child.stop(10_000);
    }

    await measureDrains(emptyUrl, emptyKey, empty, bigUrl, filled, rows, notes);
    notes.push(...(await sizesPerMillion(bigUrl, filled.calls)));
  } finally {
    await drop();
  }
}

/** The delivery worker's drain: on the empty database, then on the filled one; the ratio of the two. */
async function measureDrains(
  emptyUrl: string,
  emptyKey: string,
  empty: { apiKey: string; agentIds: string[] },
  bigUrl: string,
  filled: Filled,
  rows: Row[],
  notes: string[],
): Promise<void> {
  const emptyDrain = await measureDrain(
    emptyUrl,
    emptyKey,
    empty.apiKey,
    agentAt(empty.agentIds, 2),
    'PostgreSQL, empty',
  );
  const bigDrain = await measureDrain(
    bigUrl,
    filled.masterKey,
    filled.apiKey,
    agentAt(filled.agentIds, 2),
    'PostgreSQL, 10M',
  );
  rows.push({
    name: `drain of ${DRAIN.toLocaleString('en-US')} deliveries, empty database`,
    value: emptyDrain.perSecond,
    unit: 'req/s',
  });
  const drainRatio = bigDrain.perSecond / emptyDrain.perSecond;
  rows.push({
    name: `drain of ${DRAIN.toLocaleString('en-US')} deliveries, ${filled.calls.toLocaleString('en-US')} calls`,
    value: bigDrain.perSecond,
    unit: 'req/s',
    ratio: drainRatio,
    target: { text: `≥ ${TARGET.drainRatio}× empty`, pass: drainRatio >= TARGET.drainRatio },
    note: 'deliveries/s; ratio to the empty database',
  });
  notes.push(
    `the drain's pending deliveries were written on ${emptyDrain.pages.toLocaleString('en-US')} heap pages (empty database) and ${bigDrain.pages.toLocaleString('en-US')} (filled)`,
  );
}

/** `--drain-only`: the drain alone, on a new empty database and on the filled one. */
async function measureDrainOnly(admin: pg.Client, filled: Filled, rows: Row[], notes: string[]): Promise<void> {
  const { url: emptyUrl, masterKey: emptyKey, drop } = await createEmptyDatabase(admin);
  try {
    const server = await startSwitchboard('switchboard (PostgreSQL, empty)', serverSettings(emptyUrl, emptyKey));
    let empty: { apiKey: string; agentIds: string[] };
    try {
      empty = await setUpOrganization(server.origin);
    } finally {
      await server.child.stop(10_000);
    }
    await measureDrains(emptyUrl, emptyKey, empty, databaseUrl(DATABASE), filled, rows, notes);
  } finally {
    await drop();
  }
}

/** Each big table's heap (with TOAST) and indexes, per million calls. */
async function sizesPerMillion(url: string, calls: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      `select relname as table, pg_table_size(oid) as heap, pg_indexes_size(oid) as indexes, pg_total_relation_size(oid) as total
       from pg_class where relname in ('calls', 'tool_invocations', 'deliveries', 'delivery_attempts') order by relname`,
    );
    const mb = (bytes: string) => ((Number(bytes) / 1024 / 1024) * (1_000_000 / calls)).toFixed(0);
    const database = await client.query('select pg_database_size(current_database()) as size');
    return [
      `sizes per million calls (PostgreSQL): ${result.rows
        .map((r) => `${r.table} ${mb(r.heap)} MB + indexes ${mb(r.indexes)} MB`)
        .join('; ')}; whole database ${mb(database.rows[0].size)} MB`,
    ];
  } finally {
    await client.end();
  }
}

await runIfMain(import.meta.url, tenMillion);
