/**
 * The delivery claim behind a backlog (docs/benchmarks.md#the-delivery-claim-behind-a-backlog,
 * decision 0114). One integration's receiver is slower than its calls end: its due deliveries are
 * the oldest in the queue, and the worker may take no more of them (it holds its 16). Ten deliveries
 * of another integration are due behind them. On PostgreSQL and on PGlite, through the deliveries
 * repository, the statement every worker runs at each call that ends:
 *  - the ten claimed with nothing else due, for reference;
 *  - baseline: the ten claimed behind 1,000 due deliveries of the first, already more than the head
 *    of the queue a claim reads (four times its limit of 200);
 *  - the ten claimed behind BENCH_CLAIM_BACKLOG (default 200,000), the table analyzed each time.
 *    Target: the claim's median ≥ 0.5× the baseline's speed: a claim does not grow with the backlog.
 * The rows are written by generate_series with the foreign keys off (their calls and integrations
 * unchecked): what the claim reads is in question, not the send.
 *
 * Run alone: npx tsx bench/claim-backlog.ts, or npm run bench -- claim-backlog.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createDeliveriesRepository } from '../src/deliveries/deliveries.repository.js';
import { runIfMain } from './lib/children.js';
import { benchEngines, ENGINE_LABEL, openBenchDatabase } from './lib/database.js';
import { percentile } from './lib/paced.js';
import type { Benchmark, BenchmarkResult, Row } from './lib/report.js';

const BACKLOG = Number(process.env.BENCH_CLAIM_BACKLOG ?? 200_000);
const CLAIMS = 40;
const TARGET_RATIO = 0.5;

const log = (message: string) => process.stderr.write(`[claim-backlog] ${message}\n`);

async function bulk(database: Database, statement: string): Promise<void> {
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql.raw(statement));
  });
}

/** `CLAIMS` claims of the ten behind, each after they are made due again; their durations in ms, sorted. */
async function claimTimes(database: Database, room: Map<string, number>): Promise<number[]> {
  const deliveries = createDeliveriesRepository(database.db);
  const times: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    await database.db.execute(
      sql`update deliveries set next_attempt_at = now() - interval '1 second' where integration_id = 'intg_behind'`,
    );
    const started = performance.now();
    const { dueCount } = await deliveries.claim({
      limit: 200,
      perIntegration: 16,
      room,
      leaseSeconds: 50,
      lookAheadMs: 5000,
    });
    times.push(performance.now() - started);
    if (dueCount !== 10) throw new Error(`the claim saw ${dueCount} due deliveries it may take, not the 10 behind`);
  }
  return times.sort((a, b) => a - b);
}

export const claimBacklog: Benchmark = {
  name: 'claim-backlog',
  async run(): Promise<BenchmarkResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    for (const engine of benchEngines()) {
      const label = ENGINE_LABEL[engine];
      const { database, cleanup } = await openBenchDatabase(engine, 'claimbacklog');
      try {
        await migrate(database.db);
        await bulk(
          database,
          `insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
           select 'dlv_behind' || g, 'org_bench', 'intg_behind', 'call_behind' || g, 'msg_behind' || g, 'pending', now()
           from generate_series(1, 10) g`,
        );
        log(`${label}: claims with nothing else due`);
        const alone = await claimTimes(database, new Map());
        rows.push({
          name: `claim of 10 with nothing else due (${label})`,
          value: percentile(alone, 0.5),
          unit: 'ms',
          p50Ms: percentile(alone, 0.5),
          p99Ms: percentile(alone, 0.99),
        });
        let written = 0;
        const behind = async (backlog: number) => {
          log(`${label}: ${backlog.toLocaleString('en-US')} due deliveries of an integration with no room`);
          const filling = performance.now();
          await bulk(
            database,
            `insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
             select 'dlv_slow' || g, 'org_bench', 'intg_slow', 'call_slow' || g, 'msg_slow' || g, 'pending',
                    now() - interval '1 hour' + g * interval '1 ms'
             from generate_series(${written + 1}, ${backlog}) g`,
          );
          written = backlog;
          await database.db.execute(sql`analyze deliveries`);
          notes.push(
            `${label}: the backlog of ${backlog.toLocaleString('en-US')} written and analyzed in ${((performance.now() - filling) / 1000).toFixed(1)} s.`,
          );
          return claimTimes(database, new Map([['intg_slow', 0]]));
        };
        const baseline = await behind(1000);
        const p50 = percentile(baseline, 0.5);
        rows.push({
          name: `claim of 10 behind 1,000 due of an integration with no room (${label})`,
          value: p50,
          unit: 'ms',
          p50Ms: p50,
          p99Ms: percentile(baseline, 0.99),
        });
        const large = await behind(BACKLOG);
        const largeP50 = percentile(large, 0.5);
        const ratio = p50 / largeP50;
        rows.push({
          name: `claim of 10 behind ${BACKLOG.toLocaleString('en-US')} due of an integration with no room (${label})`,
          value: largeP50,
          unit: 'ms',
          ratio,
          p50Ms: largeP50,
          p99Ms: percentile(large, 0.99),
          target: { text: `≥ ${TARGET_RATIO}× (median)`, pass: ratio >= TARGET_RATIO },
          note: `${CLAIMS} claims each; "× floor" is the median behind 1,000 over this one's`,
        });
      } catch (error) {
        failures.push(`${label}: ${(error as Error).message}`);
      } finally {
        await database.close();
        await cleanup();
      }
    }
    return { name: 'claim-backlog', rows, notes, failures };
  },
};

await runIfMain(import.meta.url, claimBacklog);
