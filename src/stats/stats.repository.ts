import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/client.js';
import { callResultSql } from './call-results.js';

/** Quarter hours: every time zone's hours and days begin on one (decision 0040). */
export const SLOT_MS = 15 * 60 * 1000;
const SLOT = sql`interval '15 minutes'`;
const SLOT_ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;
/** The lock a rollup takes exclusively and the deliveries trigger shares (drizzle/0011_stats.sql). */
export const ROLLUP_LOCK = 1398030676;

export type StatsInterval = 'hour' | 'day';

/** The sums of one interval (or of them all, `bucket` null) as the statement returns them. */
export interface BucketRow {
  bucket: string | null;
  calls: number;
  answered: number;
  no_answer: number;
  busy: number;
  voicemail: number;
  failed: number;
  open: number;
  by_outcome: Record<string, number> | null;
  answered_by_outcome: Record<string, number> | null;
  duration_sum: number | null;
  duration_count: number;
  /** The durations' histogram: the values its buckets stand for, in order, and their counts. */
  duration_values: number[] | null;
  duration_counts: number[] | null;
  tool_runs: number;
  tool_failed: number;
  latency_values: number[] | null;
  latency_counts: number[] | null;
  deliveries_delivered: number;
  deliveries_failed: number;
  deliveries_pending: number;
}

/**
 * The statistics of the calls `source` selects, grouped by `keys` (columns `source` gives): one
 * row per group, with the columns of `call_stats_slots`. `source` yields each call's `id`,
 * `organization_id`, `status`, `answered_at`, `outcome`, `ended_reason`, `duration_seconds` and
 * the keys; tool runs and deliveries are those of its calls, in the same organization.
 */
function aggregateSql(source: SQL, keys: string[]): SQL {
  const k = sql.raw(keys.join(', '));
  const kq = sql.raw(keys.map((key) => `k.${key}`).join(', '));
  const on = (alias: string) => sql.raw(keys.map((key) => `g.${key} = ${alias}.${key}`).join(' and '));
  return sql`
    with c as (${source}),
    k as (select c.*, ${callResultSql()} as result from c),
    base as (
      select ${k}, count(*)::int as calls,
        count(*) filter (where result = 'answered')::int as answered,
        count(*) filter (where result = 'noAnswer')::int as no_answer,
        count(*) filter (where result = 'busy')::int as busy,
        count(*) filter (where result = 'voicemail')::int as voicemail,
        count(*) filter (where result = 'failed')::int as failed,
        count(*) filter (where result = 'open')::int as open,
        coalesce(sum(duration_seconds) filter (where result = 'answered' and status = 'ended'), 0)::bigint as duration_sum,
        count(duration_seconds) filter (where result = 'answered' and status = 'ended')::int as duration_count
      from k group by ${k}
    ),
    outcomes as (
      select ${k}, jsonb_object_agg(outcome, n) as by_outcome,
        jsonb_object_agg(outcome, answered_n) filter (where answered_n > 0) as answered_by_outcome
      from (
        select ${k}, outcome, count(*)::int as n, count(*) filter (where result = 'answered')::int as answered_n
        from k where status = 'ended' and outcome is not null group by ${k}, outcome
      ) o group by ${k}
    ),
    durations as (
      select ${k}, array_agg(b order by b) as buckets, array_agg(n order by b) as counts
      from (
        select ${k}, switchboard_stats_bucket(duration_seconds) as b, count(*)::int as n
        from k where result = 'answered' and status = 'ended' and duration_seconds is not null group by ${k}, b
      ) d group by ${k}
    ),
    -- Each call's own tool runs and deliveries, found through their call_id indexes: however many
    -- the tables hold, only these calls' rows are read ("offset 0" keeps the planner from turning
    -- the lookups into a join that reads the whole table).
    runs as (
      select k.*, t.error, t.latency_ms from k
      cross join lateral (
        select error, latency_ms from tool_invocations t where t.call_id = k.id and t.organization_id = k.organization_id
        offset 0
      ) t
    ),
    tools as (select ${k}, count(*)::int as tool_runs, count(error)::int as tool_failed from runs group by ${k}),
    latencies as (
      select ${k}, array_agg(b order by b) as buckets, array_agg(n order by b) as counts
      from (
        select ${k}, switchboard_stats_bucket(latency_ms) as b, count(*)::int as n
        from runs group by ${k}, b
      ) l group by ${k}
    ),
    dels as (
      select ${kq},
        count(*) filter (where d.state = 'delivered')::int as deliveries_delivered,
        count(*) filter (where d.state = 'failed')::int as deliveries_failed,
        count(*) filter (where d.state = 'pending')::int as deliveries_pending
      from k cross join lateral (
        select state from deliveries d where d.call_id = k.id and d.organization_id = k.organization_id
        offset 0
      ) d group by ${kq}
    )
    select ${sql.raw(keys.map((key) => `g.${key}`).join(', '))}, g.calls, g.answered, g.no_answer, g.busy, g.voicemail,
      g.failed, g.open,
      coalesce(x1.by_outcome, '{}'::jsonb) as by_outcome,
      coalesce(x1.answered_by_outcome, '{}'::jsonb) as answered_by_outcome,
      g.duration_sum, g.duration_count,
      coalesce(x2.buckets, '{}'::int[]) as duration_buckets, coalesce(x2.counts, '{}'::int[]) as duration_counts,
      coalesce(x3.tool_runs, 0) as tool_runs, coalesce(x3.tool_failed, 0) as tool_failed,
      coalesce(x4.buckets, '{}'::int[]) as latency_buckets, coalesce(x4.counts, '{}'::int[]) as latency_counts,
      coalesce(x5.deliveries_delivered, 0) as deliveries_delivered,
      coalesce(x5.deliveries_failed, 0) as deliveries_failed,
      coalesce(x5.deliveries_pending, 0) as deliveries_pending
    from base g
    left join outcomes x1 on ${on('x1')}
    left join durations x2 on ${on('x2')}
    left join tools x3 on ${on('x3')}
    left join latencies x4 on ${on('x4')}
    left join dels x5 on ${on('x5')}`;
}

/** The columns of a rolled-up quarter hour after its keys (a computed row also has `open`). */
const STORED_COLUMNS = `calls, answered, no_answer, busy, voicemail, failed, by_outcome, answered_by_outcome,
  duration_sum, duration_count, duration_buckets, duration_counts, tool_runs, tool_failed,
  latency_buckets, latency_counts, deliveries_delivered, deliveries_failed, deliveries_pending`;

/**
 * The value a histogram bucket stands for: itself below 16, else the middle of its range; the same
 * as `switchboard_stats_bucket_value` (drizzle/0011_stats.sql), whose buckets `switchboard_stats_bucket`
 * makes: below 16 each value is its own bucket, above it every power of two is cut in 8.
 */
export function bucketValue(b: number): number {
  if (b < 16) return b;
  const power = Math.floor((b - 16) / 8) + 1;
  return (8 + ((b - 16) % 8)) * 2 ** power + Math.floor((2 ** power - 1) / 2);
}

/** A histogram being added up: count per bucket. */
type Histogram = Map<number, number>;

/** Adds the pairs of two comma lists (buckets, counts) as `string_agg` wrote them to `into`; returns it. */
function addPairs(into: Histogram, buckets: string | null, counts: string | null): Histogram {
  if (!buckets || !counts) return into;
  const b = buckets.split(',');
  const n = counts.split(',');
  for (let i = 0; i < b.length; i++) {
    const bucket = Number(b[i]);
    into.set(bucket, (into.get(bucket) ?? 0) + Number(n[i]));
  }
  return into;
}

/** Adds one histogram's counts to another's. */
function addInto(into: Histogram, from: Histogram): void {
  for (const [bucket, n] of from) into.set(bucket, (into.get(bucket) ?? 0) + n);
}

/** A histogram as the service reads it: the buckets' values in order, and their counts. */
function valuesAndCounts(histogram: Histogram): { values: number[] | null; counts: number[] | null } {
  if (histogram.size === 0) return { values: null, counts: null };
  const buckets = [...histogram.keys()].sort((a, b) => a - b);
  return { values: buckets.map(bucketValue), counts: buckets.map((b) => histogram.get(b) as number) };
}

/**
 * `work` in a transaction without PostgreSQL's JIT compiler: these statements' estimated cost
 * (large, over tables of millions of rows) would have it compile them for seconds, while they
 * read only a few thousand rows (decision 0040).
 */
async function withoutJit<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  let failed: { error: unknown } | undefined;
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`set local jit = off`);
      try {
        return await work(tx as unknown as Db);
      } catch (error) {
        failed = { error };
        throw error;
      }
    });
  } catch (error) {
    // A statement that got no answer in time drops its connection (the pool's read timeout), so
    // the ROLLBACK after it fails too, and Drizzle throws that instead: the statement's own error
    // says why (decision 0102).
    throw failed ? failed.error : error;
  }
}

export interface StatsQuery {
  organizationId: string;
  agentId?: string;
  from: string;
  to: string;
  interval: StatsInterval;
  timezone: string;
}

export function createStatsRepository(db: Db) {
  return {
    /** Whether the agent is the organization's (deleted or not: its calls are still counted). */
    async agentExists(organizationId: string, agentId: string): Promise<boolean> {
      const result = await db.execute(
        sql`select 1 from agents where id = ${agentId} and organization_id = ${organizationId}`,
      );
      return rowsOf(result).length > 0;
    },

    /**
     * The start of every interval from the one `from` falls in up to `to` (excluded), in the time
     * zone, oldest first; at most `limit`. Throws the database's error for an unknown time zone.
     */
    async intervalStarts(query: Omit<StatsQuery, 'organizationId'>, limit: number): Promise<string[]> {
      const { from, to, interval, timezone } = query;
      // Days are counted on the local calendar (a day of a clock change is 23 or 25 hours); hours
      // are counted in elapsed time, so the hour repeated when clocks go back is two intervals.
      const series =
        interval === 'day'
          ? sql`select (d::timestamp at time zone ${timezone}) as start
              from generate_series((${from}::timestamptz at time zone ${timezone})::date,
                ((${to}::timestamptz - interval '1 microsecond') at time zone ${timezone})::date, interval '1 day') d`
          : sql`select date_trunc('hour', h, ${timezone}) as start
              from generate_series(date_trunc('hour', ${from}::timestamptz, ${timezone}),
                ${to}::timestamptz - interval '1 microsecond', interval '1 hour') h`;
      const result = await db.execute(sql`select start from (${series}) s order by start limit ${limit}`);
      return rowsOf<{ start: string | Date }>(result).map((row) => new Date(row.start).toISOString());
    },

    /** The quarter hours of [from, to) already rolled up for the organization (or one agent), as epoch ms. */
    async rolledUpSlots(organizationId: string, agentId: string | undefined, from: string, to: string) {
      const result = await db.execute(sql`
        select extract(epoch from slot_start) * 1000 as at from call_stats_slots
        where organization_id = ${organizationId} and agent_id = ${agentId ?? ''}
          and slot_start >= ${from}::timestamptz and slot_start + ${SLOT} <= ${to}::timestamptz
        order by slot_start`);
      return rowsOf<{ at: string | number }>(result).map((row) => Number(row.at));
    },

    /** Where the rollup has reached: every quarter hour that ended before it is rolled up. */
    async rolledUntil(): Promise<string | undefined> {
      const [progress] = rowsOf<{ rolled_until: string | Date }>(
        await db.execute(sql`select rolled_until from stats_rollup_progress where id = 1`),
      );
      return progress ? new Date(progress.rolled_until).toISOString() : undefined;
    },

    /**
     * The statistics per interval and in all (`bucket` null): the rolled-up quarter hours `rolled`
     * added up, and the calls of the `live` time ranges read one by one.
     */
    async statistics(query: StatsQuery, rolled: { from: string; to: string }, live: [string, string][]) {
      const { organizationId, agentId, interval, timezone } = query;
      const unit = sql`${interval}`;
      // Each range read through calls_org_created_idx ("offset 0": the planner cannot tell the
      // ranges are short, and with an agent's filter it would rather scan the whole table).
      const liveSource = sql`
        select c.id, c.organization_id, c.status, c.answered_at, c.outcome, c.ended_reason, c.duration_seconds,
          date_trunc(${unit}, c.created_at, ${timezone}) as bucket
        from jsonb_to_recordset(${JSON.stringify(live.map(([s, e]) => ({ s, e })))}::jsonb) r(s timestamptz, e timestamptz)
        cross join lateral (
          select * from calls c
          where c.organization_id = ${organizationId} and c.created_at >= r.s and c.created_at < r.e
            ${agentId ? sql`and c.agent_id = ${agentId}` : sql``}
          offset 0
        ) c`;
      const cols = sql.raw(STORED_COLUMNS);
      // The totals' row has no bucket: joined on a key that can be hashed ("is not distinct from" cannot).
      const same = (alias: string) =>
        sql.raw(`coalesce(${alias}.bucket, '-infinity') = coalesce(s.bucket, '-infinity')`);
      const statement = sql`
        with parts as (
          select date_trunc(${unit}, slot_start, ${timezone}) as bucket, ${cols}, 0 as open
          from call_stats_slots
          where organization_id = ${organizationId} and agent_id = ${agentId ?? ''}
            and slot_start >= ${rolled.from}::timestamptz and slot_start + ${SLOT} <= ${rolled.to}::timestamptz
          union all
          select bucket, ${cols}, open from (${aggregateSql(liveSource, ['bucket'])}) l
        ),
        sums as (
          select bucket, sum(calls)::int as calls, sum(answered)::int as answered, sum(no_answer)::int as no_answer,
            sum(busy)::int as busy, sum(voicemail)::int as voicemail, sum(failed)::int as failed, sum(open)::int as open,
            sum(duration_sum)::float8 as duration_sum, sum(duration_count)::int as duration_count,
            sum(tool_runs)::int as tool_runs, sum(tool_failed)::int as tool_failed,
            sum(deliveries_delivered)::int as deliveries_delivered, sum(deliveries_failed)::int as deliveries_failed,
            sum(deliveries_pending)::int as deliveries_pending
          from parts group by grouping sets ((bucket), ())
        ),
        outcome_counts as (
          select bucket, jsonb_object_agg(key, n) as by_outcome from (
            select bucket, key, sum(value::int)::int as n from parts, jsonb_each_text(by_outcome)
            group by grouping sets ((bucket, key), (key))
          ) o group by bucket
        ),
        answered_outcome_counts as (
          select bucket, jsonb_object_agg(key, n) as answered_by_outcome from (
            select bucket, key, sum(value::int)::int as n from parts, jsonb_each_text(answered_by_outcome)
            group by grouping sets ((bucket, key), (key))
          ) o group by bucket
        ),
        -- The histograms of each interval's parts as text, added up by the service: unnesting them
        -- into rows and grouping those in SQL cost more than the rest of the statement (decision 0040).
        histograms as (
          select bucket,
            string_agg(array_to_string(duration_buckets, ','), ',') filter (where cardinality(duration_buckets) > 0) as duration_b,
            string_agg(array_to_string(duration_counts, ','), ',') filter (where cardinality(duration_buckets) > 0) as duration_n,
            string_agg(array_to_string(latency_buckets, ','), ',') filter (where cardinality(latency_buckets) > 0) as latency_b,
            string_agg(array_to_string(latency_counts, ','), ',') filter (where cardinality(latency_buckets) > 0) as latency_n
          from parts group by bucket
        )
        select s.*, o.by_outcome, a.answered_by_outcome, h.duration_b, h.duration_n, h.latency_b, h.latency_n
        from sums s
        left join outcome_counts o on ${same('o')}
        left join answered_outcome_counts a on ${same('a')}
        left join histograms h on h.bucket = s.bucket`;
      type Row = Omit<BucketRow, 'duration_values' | 'duration_counts' | 'latency_values' | 'latency_counts'> & {
        duration_b: string | null;
        duration_n: string | null;
        latency_b: string | null;
        latency_n: string | null;
      };
      const rows = rowsOf<Row>(await withoutJit(db, (tx) => tx.execute(statement)));
      const withHistograms = (
        { duration_b, duration_n, latency_b, latency_n, ...sums }: Row,
        durations: Histogram,
        latencies: Histogram,
      ): BucketRow => {
        const d = valuesAndCounts(durations);
        const l = valuesAndCounts(latencies);
        return {
          ...sums,
          duration_values: d.values,
          duration_counts: d.counts,
          latency_values: l.values,
          latency_counts: l.counts,
        };
      };
      // Each interval's histograms read once; the totals' are all of them added up.
      const allDurations: Histogram = new Map();
      const allLatencies: Histogram = new Map();
      const buckets: BucketRow[] = [];
      let totals: Row | undefined;
      for (const row of rows) {
        if (row.bucket === null) {
          totals = row;
          continue;
        }
        const durations = addPairs(new Map(), row.duration_b, row.duration_n);
        const latencies = addPairs(new Map(), row.latency_b, row.latency_n);
        addInto(allDurations, durations);
        addInto(allLatencies, latencies);
        buckets.push(withHistograms(row, durations, latencies));
      }
      if (totals) buckets.push(withHistograms(totals, allDurations, allLatencies));
      return buckets;
    },

    /**
     * One step of the rollup (decision 0040): the quarter hours from where the last step stopped,
     * about `maxCalls` calls' worth and none ending after `until`, written for every organization
     * and agent. A quarter hour with a call still open stops the rollup there until it ends. Returns
     * whether more is ready now.
     */
    async rollUp(until: Date, maxCalls: number): Promise<boolean> {
      return withoutJit(db, async (tx) => {
        const [progress] = rowsOf<{ rolled_until: string; limit: string; first: string | null }>(
          await tx.execute(sql`
            select p.rolled_until, l.limit, (
              select date_bin(${SLOT}, created_at, ${SLOT_ORIGIN}) from calls
              where created_at >= p.rolled_until and created_at < l.limit order by created_at limit 1
            ) as first
            from stats_rollup_progress p
            cross join lateral (select date_bin(${SLOT}, ${until.toISOString()}::timestamptz, ${SLOT_ORIGIN}) as limit) l
            where p.id = 1 for update of p`),
        );
        if (!progress) return false;
        if (!progress.first) {
          await tx.execute(
            sql`update stats_rollup_progress set rolled_until = greatest(rolled_until, ${progress.limit}::timestamptz) where id = 1`,
          );
          return false;
        }
        // Exclusive, and only once there is something to write (most runs, between quarter hours, have
        // nothing): a delivery changing state meanwhile waits, then updates the rows written here. Taken
        // with nothing to do, it held every delivery's state change back while it waited its turn. The
        // statements below read after it is held; the progress row above is locked against other steps.
        await tx.execute(sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`);
        const first = new Date(progress.first).toISOString();
        const limit = new Date(progress.limit).toISOString();
        const [step] = rowsOf<{ end: string | null }>(
          await tx.execute(sql`
            select date_bin(${SLOT}, created_at, ${SLOT_ORIGIN}) as end from calls
            where created_at >= ${first}::timestamptz and created_at < ${limit}::timestamptz
            order by created_at offset ${maxCalls} limit 1`),
        );
        let end = step?.end ? new Date(step.end).toISOString() : limit;
        // A quarter hour with more calls than a step takes is still taken whole.
        if (end <= first) end = new Date(Date.parse(first) + SLOT_MS).toISOString();
        const callsOf = (agentKey: SQL) => sql`
          select c.id, c.organization_id, c.status, c.answered_at, c.outcome, c.ended_reason, c.duration_seconds,
            ${agentKey} as agent_id, date_bin(${SLOT}, c.created_at, ${SLOT_ORIGIN}) as slot_start
          from calls c where c.created_at >= ${first}::timestamptz and c.created_at < ${end}::timestamptz`;
        // Each call twice: for its agent's row and for its organization's ('').
        const source = sql`${callsOf(sql`c.agent_id`)} union all ${callsOf(sql`''::text`)}`;
        const cols = sql.raw(STORED_COLUMNS);
        const [written] = rowsOf<{ blocked: string | null }>(
          await tx.execute(sql`
            with slot_rows as (${aggregateSql(source, ['organization_id', 'agent_id', 'slot_start'])}),
            written as (
              insert into call_stats_slots (organization_id, agent_id, slot_start, ${cols})
              select organization_id, agent_id, slot_start, ${cols}
              from slot_rows where open = 0
              on conflict do nothing
            )
            select min(slot_start) filter (where open > 0) as blocked from slot_rows`),
        );
        const blocked = written?.blocked ? new Date(written.blocked).toISOString() : null;
        await tx.execute(
          sql`update stats_rollup_progress set rolled_until = ${blocked ?? end}::timestamptz where id = 1`,
        );
        return !blocked && end < limit;
      });
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
