/**
 * The retention benchmark (docs/benchmarks.md#retention, decision 0052), on PostgreSQL: 1,000,000
 * calls older than 30 days (BENCH_RETENTION_CALLS to change it) with their tool invocations,
 * deliveries and delivery attempts, written by generate_series in SQL. Then, in one run:
 *  - the click-to-call accept path (default agent configuration: rateLimitPerMinute 1,000,000) on a
 *    server that keeps every call: the baseline;
 *  - the same server restarted with SWITCHBOARD_RETENTION_DAYS=30: the rows it removes per second
 *    and the CPU per removed call (server and PostgreSQL) with no other load, then the accept path
 *    while it removes them (target ≥ 0.8× the baseline), then the whole pass's time;
 *  - the accept path again once the pass is over, and what is left (the calls whose delivery is
 *    still pending must be) and the tables' sizes before and after.
 * Every server is `node bin/switchboard.js serve` as the README starts it, with DATABASE_URL; the
 * retention server's SWITCHBOARD_RETENTION_INTERVAL_MS is 1000 so that its first pass starts at once
 * (the default, 60 s, only delays it).
 *
 * Run alone: npx tsx bench/retention.ts (after npm run build), or npm run bench -- retention.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { acceptRequests, load, type Measured, measureSteady, throughputRow } from './click-to-call.js';
import { runIfMain, sleep } from './lib/children.js';
import { processCpuMs } from './lib/cpu.js';
import { DISTURBED_PCT, othersNote, startCpuWindow } from './lib/paced.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { api, createClickToCallAgent, type RunningSwitchboard, signup, startSwitchboard } from './lib/switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CALLS = Number(process.env.BENCH_RETENTION_CALLS ?? 1_000_000);
const RETENTION_DAYS = 30;
const TARGET_RATIO = 0.8;
/** Calls accepted per load at most: more than this machine accepts in 6 s. */
const ACCEPT_MAX_REQUESTS = 40_000;
/** The removal rate with nothing else running is measured over this long. */
const QUIET_WINDOW_MS = 10_000;
const PASS_TIMEOUT_MS = 20 * 60 * 1000;
const TABLES = ['calls', 'tool_invocations', 'deliveries', 'delivery_attempts'] as const;

const log = (message: string) => process.stderr.write(`[retention] ${message}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * CALLS ended calls between 70 and 40 days ago. Of every 20: 12 answered with one tool run each,
 * the rest unanswered or failed; every call has one delivery: 1 in 100 still pending (these
 * calls must stay), 1 in 100 failed after 3 attempts, the others delivered at the first.
 */
const FILL_CALLS = `
insert into calls (id, organization_id, agent_id, provider, direction, to_number, status, outcome, ended_reason,
  variables, collected_data, transcript, created_at, started_at, answered_at, ended_at, duration_seconds, deadline_at)
select 'call_old' || lpad(i::text, 10, '0'), $1, $2, 'simulator', 'outbound', '+1415555' || lpad((i % 10000)::text, 4, '0'),
  'ended',
  case when k.r < 12 then (array['SOLD','NOT_INTERESTED','CALLBACK','COMPLETED'])[1 + i % 4]
       when k.r < 16 then 'NO_ANSWER' else 'FAILED' end,
  case when k.r < 12 then 'customer-ended-call' when k.r < 16 then 'customer-did-not-answer'
       else 'pipeline-error-openai-llm-failed' end,
  '{"name":"Ada"}', case when k.r < 12 then '{"plan":"pro"}'::jsonb else '{}'::jsonb end,
  '[{"role":"agent","text":"Hello, this is the bench agent calling about your order.","at":"2026-01-01T00:00:00Z"},{"role":"user","text":"Yes, go on.","at":"2026-01-01T00:00:05Z"}]',
  k.created, k.created, case when k.r < 12 then k.created + interval '5 seconds' end,
  k.created + make_interval(secs => 10 + i % 600), case when k.r < 12 then 5 + i % 600 else 0 end,
  k.created + interval '10 minutes'
from generate_series(1, $3::int) i
cross join lateral (
  select now() - interval '70 days' + interval '30 days' * i / $3::int as created, i % 20 as r
) k`;

const FILL_TOOLS = `
insert into tool_invocations (id, organization_id, call_id, tool_id, tool_name, arguments, request, response_status,
  result, latency_ms, created_at)
select 'tinv_' || substr(c.id, 6), c.organization_id, c.id, 'tool_bench', 'lookup_order', '{"order":"A1"}',
  '{"method":"GET","url":"https://example.com/orders/A1","headers":{},"body":null}', 200, '{"status":"shipped"}',
  120, c.answered_at + interval '3 seconds'
from calls c where c.organization_id = $1 and c.answered_at is not null`;

const FILL_DELIVERIES = `
insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, attempt_count, next_attempt_at,
  payload, created_at, updated_at)
select 'dlv_' || substr(c.id, 6), c.organization_id, $2, c.id, 'msg_' || substr(c.id, 6), s.state,
  case s.state when 'failed' then 3 else 1 end, case s.state when 'pending' then now() + interval '1 day' end,
  '{"event":"call.completed","callId":"' || c.id || '","status":"' || coalesce(c.outcome, '') || '"}',
  c.ended_at, c.ended_at
from calls c
cross join lateral (
  select case right(c.id, 2) when '07' then 'failed' when '13' then 'pending' else 'delivered' end as state
) s
where c.organization_id = $1`;

const FILL_ATTEMPTS = `
insert into delivery_attempts (delivery_id, at, status, latency_ms, error, response_excerpt)
select d.id, d.created_at + make_interval(secs => n * 30), case d.state when 'delivered' then 200 else 503 end, 85,
  case d.state when 'delivered' then null else 'HTTP 503' end, '{"ok":true}'
from deliveries d cross join lateral generate_series(1, d.attempt_count) n
where d.organization_id = $1`;

/** Rows deleted so far from each table, from PostgreSQL's statistics (they lag by up to a second). */
async function deletedRows(client: pg.Client): Promise<Record<string, number>> {
  const { rows } = await client.query<{ relname: string; n: string }>(
    'select relname, n_tup_del as n from pg_stat_user_tables where relname = any($1)',
    [TABLES],
  );
  return Object.fromEntries(rows.map((row) => [row.relname, Number(row.n)]));
}

/**
 * CPU used so far by the PostgreSQL backends connected to this benchmark's database, by pid: the
 * machine's other databases (other people's work) are left out, and so are PostgreSQL's shared
 * background processes (WAL writer, checkpointer, autovacuum), which makes it a slight underestimate.
 */
async function databaseCpuMs(client: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [
    database,
  ]);
  const usage = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = await processCpuMs(pid);
    if (!Number.isNaN(ms)) usage.set(pid, ms);
  }
  return usage;
}

function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

const sumOf = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Old calls still there: the pass is over when only the ones with a pending delivery are left. */
async function oldCallsLeft(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `select count(*) as n from calls where created_at < now() - make_interval(days => ${RETENTION_DAYS})`,
  );
  return Number(rows[0]?.n);
}

async function tableSizesMb(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ relname: string; mb: string }>(
    `select relname, pg_total_relation_size(relname::regclass) / 1048576.0 as mb from unnest($1::text[]) relname`,
    [TABLES],
  );
  const total = rows.reduce((sum, row) => sum + Number(row.mb), 0);
  return `${rows.map((row) => `${row.relname} ${Number(row.mb).toFixed(0)} MB`).join(', ')}; ${total.toFixed(0)} MB in all (tables with their indexes)`;
}

function acceptRow(name: string, result: Measured, baseline?: Measured): Row {
  return {
    ...throughputRow(name, result, baseline ?? null, TARGET_RATIO, 'without pruning'),
    postgresCpuUs: result.postgresCpuUs,
  };
}

export const retention: Benchmark = {
  name: 'retention',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    const adminUrl = new URL(PG_ADMIN_URL);
    if (adminUrl.hostname !== '127.0.0.1') {
      return {
        name: 'retention',
        rows,
        notes,
        failures: [`only a PostgreSQL on 127.0.0.1 is used, not ${adminUrl.host}`],
      };
    }
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    const name = `switchboard_bench_retention_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    const settings = {
      DATABASE_URL: url.toString(),
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
    };
    const client = new pg.Client({ connectionString: url.toString() });
    let server: RunningSwitchboard | undefined;
    // Each load (and each of its two attempts) dials numbers of its own: a number is called once.
    let loads = 0;
    const accept = (running: RunningSwitchboard, agent: Parameters<typeof acceptRequests>[0]) => {
      const first = 400_000_000 + loads++ * 2 * ACCEPT_MAX_REQUESTS;
      return measureSteady(
        (attempt) =>
          load(running.origin, acceptRequests(agent, first + attempt * ACCEPT_MAX_REQUESTS), 200, ACCEPT_MAX_REQUESTS),
        running.child.pid,
      );
    };
    try {
      server = await startSwitchboard('switchboard (PostgreSQL, keeps every call)', settings);
      const apiKey = await signup(server.origin);
      const agent = await createClickToCallAgent(server.origin, apiKey, { rateLimitPerMinute: 1_000_000 });
      const old = await api(server.origin, 'POST', '/v1/agents', {
        apiKey,
        body: { name: 'Old calls', type: 'outbound' },
      });
      if (old.status !== 201) throw new Error(`create agent: ${old.status} ${JSON.stringify(old.body)}`);
      const oldAgentId = (old.body as { id: string }).id;
      const hook = await api(server.origin, 'POST', `/v1/agents/${oldAgentId}/integrations`, {
        apiKey,
        body: { url: 'https://hooks.example.com/retention-bench', enabled: false },
      });
      if (hook.status !== 201) throw new Error(`create integration: ${hook.status}`);
      const integrationId = (hook.body as { id: string }).id;

      await client.connect();
      const [{ organization_id: organizationId }] = (
        await client.query('select organization_id from agents where id = $1', [oldAgentId])
      ).rows;
      const since = performance.now();
      log(`filling ${fmt(CALLS)} calls older than ${RETENTION_DAYS} days`);
      await client.query(FILL_CALLS, [organizationId, oldAgentId, CALLS]);
      const tools = await client.query(FILL_TOOLS, [organizationId]);
      const deliveries = await client.query(FILL_DELIVERIES, [organizationId, integrationId]);
      const attempts = await client.query(FILL_ATTEMPTS, [organizationId]);
      await client.query('vacuum analyze calls, tool_invocations, deliveries, delivery_attempts');
      // These calls' quarter hours count as rolled up long ago (the statistics are not measured here).
      await client.query(
        "update stats_rollup_progress set rolled_until = greatest(rolled_until, now() - interval '1 hour')",
      );
      const pending = Number(
        (await client.query("select count(*) as n from deliveries where state = 'pending'")).rows[0]?.n,
      );
      const filled = CALLS + (tools.rowCount ?? 0) + (deliveries.rowCount ?? 0) + (attempts.rowCount ?? 0);
      notes.push(
        `${fmt(CALLS)} calls, ${fmt(tools.rowCount ?? 0)} tool invocations, ${fmt(deliveries.rowCount ?? 0)} deliveries (${fmt(pending)} pending), ${fmt(attempts.rowCount ?? 0)} delivery attempts written in ${((performance.now() - since) / 1000).toFixed(0)} s`,
      );
      notes.push(`Sizes after the fill: ${await tableSizesMb(client)}.`);

      log('accept path, no pruning');
      const baseline = await accept(server, agent);
      rows.push(acceptRow('accept, no retention (PostgreSQL)', baseline));
      await server.child.stop(15_000);

      server = await startSwitchboard('switchboard (PostgreSQL, SWITCHBOARD_RETENTION_DAYS=30)', {
        ...settings,
        SWITCHBOARD_RETENTION_DAYS: String(RETENTION_DAYS),
        SWITCHBOARD_RETENTION_INTERVAL_MS: '1000',
      });
      const passStarted = performance.now();
      const startCounts = await deletedRows(client);
      while (((await deletedRows(client)).calls ?? 0) <= (startCounts.calls ?? 0)) {
        if (performance.now() - passStarted > 30_000) throw new Error('the retention job did not start');
        await sleep(100);
      }

      log('removal rate, nothing else running');
      const stopCpu = await startCpuWindow(server.child.pid);
      const quietBefore = await deletedRows(client);
      const dbBefore = await databaseCpuMs(client, name);
      await sleep(QUIET_WINDOW_MS);
      const dbMs = cpuDelta(dbBefore, await databaseCpuMs(client, name));
      const quietAfter = await deletedRows(client);
      const cpu = await stopCpu();
      const removedCalls = (quietAfter.calls ?? 0) - (quietBefore.calls ?? 0);
      const removedRows = sumOf(quietAfter) - sumOf(quietBefore);
      const seconds = cpu.elapsedMs / 1000;
      notes.push(
        `Retention alone (${(cpu.elapsedMs / 1000).toFixed(1)} s window of the pass): ${fmt(removedCalls / seconds)} calls/s, ${fmt(removedRows / seconds)} rows/s in all four tables; CPU per removed call: server ${Math.round((cpu.serverMs * 1000) / Math.max(1, removedCalls))} µs, this database's PostgreSQL backends ${Math.round((dbMs * 1000) / Math.max(1, removedCalls))} µs (every postgres process of the machine: ${Math.round((cpu.postgresMs * 1000) / Math.max(1, removedCalls))} µs). ${othersNote(cpu.othersPct)}`,
      );

      log('accept path while pruning');
      const leftBefore = await oldCallsLeft(client);
      // A load that fails (its generator killed on a crowded machine) still lets the pass be timed.
      const during = await accept(server, agent).catch((error: Error) => {
        failures.push(`accept while pruning: ${error.message}`);
        return undefined;
      });
      const leftAfter = await oldCallsLeft(client);
      if (during) rows.push(acceptRow('accept while retention removes old calls (PostgreSQL)', during, baseline));
      notes.push(
        `During that load the job removed ${fmt(leftBefore - leftAfter)} calls; ${fmt(leftAfter - pending)} old calls were still to be removed after it${leftAfter <= pending ? ' (DISTURBED: the pass ended during the load, so the load did not run beside pruning the whole time)' : ''}.`,
      );

      log('waiting for the pass to end');
      while ((await oldCallsLeft(client)) > pending) {
        if (performance.now() - passStarted > PASS_TIMEOUT_MS) throw new Error('the retention pass did not end');
        await sleep(500);
      }
      const passSeconds = (performance.now() - passStarted) / 1000;
      await sleep(1500); // the statistics' lag
      const allRemoved = sumOf(await deletedRows(client)) - sumOf(startCounts);
      rows.push({
        name: `retention pass over ${fmt(CALLS)} old calls, beside one accept load (PostgreSQL)`,
        value: passSeconds,
        unit: 's',
        note: `${fmt((CALLS - pending) / passSeconds)} calls/s, ${fmt(allRemoved / passSeconds)} rows/s on average over the pass.`,
      });

      log('accept path after the pass');
      const after = await accept(server, agent).catch((error: Error) => {
        failures.push(`accept after the pass: ${error.message}`);
        return undefined;
      });
      if (after) {
        rows.push({
          ...acceptRow('accept after the pass, same server (PostgreSQL)', after, baseline),
          target: undefined,
        });
      }

      const left = await client.query<{ calls: string; tools: string; deliveries: string; attempts: string }>(
        `
        select (select count(*) from calls where agent_id = $1) as calls,
          (select count(*) from tool_invocations t join calls c on c.id = t.call_id where c.agent_id = $1) as tools,
          (select count(*) from deliveries where integration_id = $2) as deliveries,
          (select count(*) from delivery_attempts a join deliveries d on d.id = a.delivery_id where d.integration_id = $2) as attempts`,
        [oldAgentId, integrationId],
      );
      const kept = left.rows[0];
      const keptCalls = Number(kept?.calls);
      notes.push(
        `Left of the old calls: ${fmt(keptCalls)} calls (those with a pending delivery: ${fmt(pending)}), ${fmt(Number(kept?.tools))} tool invocations, ${fmt(Number(kept?.deliveries))} deliveries, ${fmt(Number(kept?.attempts))} attempts; ${fmt(filled)} rows were written.`,
      );
      if (keptCalls !== pending)
        failures.push(`expected ${pending} old calls kept (pending deliveries), found ${keptCalls}`);
      notes.push(
        `Sizes after the pass (before any VACUUM FULL: the space is free for new rows, not given back): ${await tableSizesMb(client)}.`,
      );
      for (const row of rows) {
        if (row.note?.includes('DISTURBED'))
          notes.push(`${row.name}: DISTURBED (other processes ≥ ${DISTURBED_PCT}%).`);
      }
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    } finally {
      await server?.child.stop(15_000);
      await client.end().catch(() => {});
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    }
    const statuses = rows.filter((row) => row.note).map((row) => `${row.name}: ${row.note}`);
    return { name: 'retention', rows, notes: [...statuses, ...notes], failures };
  },
};

await runIfMain(import.meta.url, retention);
