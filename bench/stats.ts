/**
 * The stats benchmark (docs/benchmarks.md#stats): GET /v1/stats over 1,000,000 calls of one
 * organization in 30 days, on PostgreSQL. The server is `node bin/switchboard.js serve` with
 * DATABASE_URL, as the README starts it; the organization, its 5 agents and their webhook
 * integrations are made through the API, then the calls, their tool runs and their deliveries are
 * written by generate_series in SQL (bench/stats.ts, `FILL`). Measured, 20 requests each after 3 of
 * warm-up, one at a time: interval=day and interval=hour over the 30 days, the organization's and
 * one agent's, once the server's rollup job has rolled the quarter hours up (decision 0040). One
 * request before that, reading every call, is timed too, for comparison.
 *
 * Run alone: npx tsx bench/stats.ts (after npm run build), or with every benchmark: npm run bench.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import pg from 'pg';
import { ROOT, runIfMain, sleep } from './lib/children.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';
import { api, signup, startSwitchboard } from './lib/switchboard.js';

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CALLS = Number(process.env.BENCH_STATS_CALLS ?? 1_000_000);
const AGENTS = 5;
const REQUESTS = 20;
const WARMUP = 3;
const TARGET_MS = 300;
/** The rollup job's catch-up after the fill: 1M calls take about a minute on two cores. */
const ROLLUP_TIMEOUT_MS = 15 * 60 * 1000;

const log = (message: string) => process.stderr.write(`[stats] ${message}\n`);

/**
 * 1M calls evenly over the 30 days before now, 5 agents in turn. Of every 20: 12 answered (SOLD,
 * NOT_INTERESTED, CALLBACK, COMPLETED; 5–604 s), 2 not answered, 1 busy, 1 voicemail, 4 failed;
 * the last 50 still in progress. Every answered call ran one tool (1 in 12 failed, 40–939 ms);
 * every ended call has one delivery (about 97 % delivered, 1 % failed, 2 % pending).
 */
const FILL = `
insert into calls (id, organization_id, agent_id, provider, direction, to_number, status, outcome, ended_reason,
  variables, collected_data, transcript, created_at, started_at, answered_at, ended_at, duration_seconds, deadline_at)
select 'call_bench' || lpad(i::text, 10, '0'), $1, ($2::text[])[1 + i % array_length($2::text[], 1)], 'simulator',
  'outbound', '+1415555' || lpad((i % 10000)::text, 4, '0'),
  case when k.open then 'in_progress' else 'ended' end,
  case when k.open then null when k.r < 12 then (array['SOLD','NOT_INTERESTED','CALLBACK','COMPLETED'])[1 + i % 4]
       when k.r < 14 then 'NO_ANSWER' when k.r = 14 then 'BUSY' when k.r = 15 then 'VOICEMAIL' else 'FAILED' end,
  case when k.open then null when k.r < 12 then 'customer-ended-call' when k.r < 14 then 'customer-did-not-answer'
       when k.r = 14 then 'customer-busy' when k.r = 15 then 'voicemail' else 'pipeline-error-openai-llm-failed' end,
  '{"name":"Ada"}', case when k.r < 12 then '{"plan":"pro"}'::jsonb else '{}'::jsonb end,
  '[{"role":"agent","text":"Hello, this is the bench agent calling about your order.","at":"2026-01-01T00:00:00Z"},{"role":"user","text":"Yes, go on.","at":"2026-01-01T00:00:05Z"}]',
  k.created, k.created, case when k.r < 12 then k.created + interval '5 seconds' end,
  case when not k.open then k.created + make_interval(secs => 10 + i % 600) end,
  case when k.open then null when k.r < 12 then 5 + i % 600 else 0 end,
  k.created + interval '10 minutes'
from generate_series(1, $3::int) i
cross join lateral (
  select now() - interval '30 days' + interval '30 days' * i / $3::int as created, i % 20 as r, i > $3::int - 50 as open
) k`;

const FILL_TOOLS = `
insert into tool_invocations (id, organization_id, call_id, tool_id, tool_name, arguments, request, response_status,
  result, error, latency_ms, created_at)
select 'tinv_' || substr(c.id, 6), c.organization_id, c.id, 'tool_bench', 'lookup_order', '{"order":"A1"}',
  '{"method":"GET","url":"https://example.com/orders/A1","headers":{},"body":null}',
  case when n % 12 = 3 then 500 else 200 end, '{"status":"shipped"}',
  case when n % 12 = 3 then 'HTTP 500' end, 40 + (n * 7919) % 900, c.answered_at + interval '3 seconds'
from (select c.*, right(c.id, 10)::bigint as n from calls c where c.organization_id = $1 and c.answered_at is not null) c`;

const FILL_DELIVERIES = `
insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, attempt_count, created_at, updated_at)
select 'dlv_' || substr(c.id, 6), c.organization_id, i.id, c.id, 'msg_' || substr(c.id, 6),
  case when right(c.id, 2) = '07' then 'failed' when right(c.id, 2) in ('13', '14') then 'pending' else 'delivered' end,
  1, c.ended_at, c.ended_at
from calls c join integrations i on i.agent_id = c.agent_id
where c.organization_id = $1 and c.status = 'ended'`;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;

async function timeRequests(origin: string, apiKey: string, path: string): Promise<{ p50: number; p99: number }> {
  const once = async () => {
    const since = performance.now();
    const answer = await api(origin, 'GET', path, { apiKey });
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return performance.now() - since;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

export const stats: Benchmark = {
  name: 'stats',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    const adminUrl = new URL(PG_ADMIN_URL);
    if (adminUrl.hostname !== '127.0.0.1') {
      return { name: 'stats', rows, notes, failures: [`only a PostgreSQL on 127.0.0.1 is used, not ${adminUrl.host}`] };
    }
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    const name = `switchboard_bench_stats_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    try {
      const databaseEnv = {
        DATABASE_URL: url.toString(),
        SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      };
      const server = await startSwitchboard('switchboard (PostgreSQL, stats)', {
        ...databaseEnv,
        SWITCHBOARD_SIGNUP: 'open',
      });
      try {
        const apiKey = await signup(server.origin);
        const agentIds: string[] = [];
        for (let i = 0; i < AGENTS; i++) {
          const agent = await api(server.origin, 'POST', '/v1/agents', {
            apiKey,
            body: { name: `Stats agent ${i + 1}`, type: 'outbound' },
          });
          if (agent.status !== 201) throw new Error(`create agent: ${agent.status} ${JSON.stringify(agent.body)}`);
          const id = (agent.body as { id: string }).id;
          agentIds.push(id);
          const integration = await api(server.origin, 'POST', `/v1/agents/${id}/integrations`, {
            apiKey,
            body: { url: 'https://hooks.example.com/stats-bench', enabled: false },
          });
          if (integration.status !== 201) throw new Error(`create integration: ${integration.status}`);
        }
        await client.connect();
        const [{ organization_id: organizationId }] = (
          await client.query('select organization_id from agents where id = $1', [agentIds[0]])
        ).rows;
        let since = performance.now();
        log(`filling ${CALLS.toLocaleString('en-US')} calls`);
        await client.query(FILL, [organizationId, agentIds, CALLS]);
        const tools = await client.query(FILL_TOOLS, [organizationId]);
        const deliveries = await client.query(FILL_DELIVERIES, [organizationId]);
        await client.query('vacuum analyze calls, tool_invocations, deliveries');
        // The server's rollup job has already looked at the last 30 days and found nothing: start it
        // over, as on a database that held these calls when the stats migration ran.
        await client.query("update stats_rollup_progress set rolled_until = 'epoch'");
        notes.push(
          `${CALLS.toLocaleString('en-US')} calls, ${tools.rowCount?.toLocaleString('en-US')} tool runs, ${deliveries.rowCount?.toLocaleString('en-US')} deliveries written in ${((performance.now() - since) / 1000).toFixed(0)} s`,
        );

        const to = new Date().toISOString();
        const from = new Date(Date.parse(to) - 30 * 24 * 3600 * 1000).toISOString();
        const period = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
        since = performance.now();
        const live = await api(server.origin, 'GET', `/v1/stats?${period}&interval=day`, { apiKey });
        rows.push({
          name: '30 days by the day, before the rollup (every call read)',
          value: live.status === 200 ? performance.now() - since : null,
          unit: 'ms',
        });
        if (live.status !== 200) {
          notes.push(
            `before the rollup: ${live.status} ${(live.body as { code?: string } | null)?.code ?? ''} after ${(performance.now() - since).toFixed(0)} ms (the database timeout, SWITCHBOARD_DATABASE_TIMEOUT_MS, stops the statement; decision 0102)`,
          );
        }

        log('waiting for the rollup job');
        since = performance.now();
        const caughtUp = async () =>
          (
            await client.query(
              "select rolled_until >= date_bin('15 minutes', now() - interval '1 hour', timestamptz '2000-01-01 00:00:00+00') - interval '15 minutes' as done from stats_rollup_progress",
            )
          ).rows[0]?.done === true;
        while (!(await caughtUp())) {
          if (performance.now() - since > ROLLUP_TIMEOUT_MS) throw new Error('the rollup job did not catch up');
          await sleep(1000);
        }
        const jobSeconds = (performance.now() - since) / 1000;
        notes.push(`the rollup job caught up with the 30 days in ${jobSeconds.toFixed(0)} s`);

        const measured: [string, string][] = [
          ['30 days by the day', `${period}&interval=day`],
          ['30 days by the hour', `${period}&interval=hour`],
          ['30 days by the day, one agent', `${period}&interval=day&agentId=${agentIds[0]}`],
          ['30 days by the hour, one agent', `${period}&interval=hour&agentId=${agentIds[0]}`],
          ['30 days by the hour, Asia/Kolkata', `${period}&interval=hour&timezone=Asia/Kolkata`],
        ];
        for (const [label, query] of measured) {
          const { p50, p99 } = await timeRequests(server.origin, apiKey, `/v1/stats?${query}`);
          rows.push({
            name: `${label} (PostgreSQL)`,
            value: p50,
            unit: 'ms',
            p50Ms: p50,
            p99Ms: p99,
            target: { text: `p50 < ${TARGET_MS} ms`, pass: p50 < TARGET_MS },
          });
        }
        const answer = await api(server.origin, 'GET', `/v1/stats?${period}&interval=day`, { apiKey });
        const totals = (answer.body as { totals: { calls: number } }).totals;
        notes.push(`GET /v1/stats counted ${totals.calls.toLocaleString('en-US')} calls in the 30 days`);
        notes.push(`${WARMUP} requests of warm-up, then ${REQUESTS} one at a time; value = p50`);

        // The same 30 days rolled up again by `switchboard stats rollup` (decision 0103), the server
        // and its rollup job running beside it, as on an operator's database after an upgrade.
        log('switchboard stats rollup over the same 30 days');
        await client.query('delete from call_stats_slots where organization_id = $1', [organizationId]);
        await client.query("update stats_rollup_progress set rolled_until = 'epoch'");
        since = performance.now();
        const command = await promisify(execFile)(
          process.execPath,
          [path.join(ROOT, 'bin/switchboard.js'), 'stats', 'rollup'],
          { env: { PATH: process.env.PATH ?? '', ...databaseEnv }, timeout: ROLLUP_TIMEOUT_MS },
        );
        const commandSeconds = (performance.now() - since) / 1000;
        rows.push({
          name: '30 days rolled up again by `switchboard stats rollup`, server running (× the job)',
          value: commandSeconds,
          unit: 's',
          ratio: commandSeconds / jobSeconds,
        });
        notes.push(`switchboard stats rollup: ${command.stdout.trim()}`);
      } finally {
        await server.child.stop(10_000);
      }
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    } finally {
      await client.end().catch(() => {});
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    }
    return { name: 'stats', rows, notes, failures };
  },
};

await runIfMain(import.meta.url, stats);
