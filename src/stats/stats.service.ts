import { isStatementTimedOut } from '../db/client.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { formatCount } from '../lib/format-count.js';
import type { BucketRow, StatsRepository } from './stats.repository.js';
import { SLOT_MS } from './stats.repository.js';
import { MAX_INTERVALS, type StatsBucket, type StatsQuery, type StatsView } from './stats.schemas.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long after its end a quarter hour waits before it is rolled up: its calls' late reports have come. */
export const ROLLUP_DELAY_MS = 60 * 60 * 1000;
/**
 * Calls one rollup step reads; a step is one transaction, which must end well within the database
 * timeout (SWITCHBOARD_DATABASE_TIMEOUT_MS, 1.5 s by default) on a busy machine.
 */
const ROLLUP_STEP_CALLS = 5_000;
/** How long one run of the rollup job keeps stepping, so that shutdown never waits long for it. */
const ROLLUP_RUN_MS = 5_000;
/**
 * Retry-After of a period not rolled up yet: a run of the rollup job (every 10 s, 5 s of steps)
 * rolls up tens of thousands of calls, so a minute is several runs.
 */
const CATCHING_UP_RETRY_SECONDS = 60;
/** The bounds of a catch-up's steps, in calls (the job's steps are ROLLUP_STEP_CALLS). */
const CATCH_UP_MIN_STEP_CALLS = 500;
const CATCH_UP_MAX_STEP_CALLS = 200_000;

export interface StatsServiceDeps {
  repository: StatsRepository;
  now?: () => Date;
}

/** An IANA name as people write them (Europe/Paris, UTC, America/Argentina/Buenos_Aires), not an offset or a POSIX rule. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;

function knownToJavaScript(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const badZone = () =>
  validationError([{ path: 'query.timezone', message: 'is not a time zone name (IANA), e.g. Europe/Paris or UTC' }]);

const isUnknownZoneError = (error: unknown) =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: string }).code === '22023' &&
  /time zone/i.test(String((error as { message?: string }).message));

/**
 * The percentile `p` of a histogram (its buckets' values in order, their counts) by nearest rank:
 * the value of the first bucket where the running count reaches p × the count; null when empty.
 */
export function percentileOf(values: number[] | null, counts: number[] | null, p: number): number | null {
  if (!values || !counts) return null;
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let running = 0;
  for (let i = 0; i < values.length; i++) {
    running += counts[i] ?? 0;
    if (running >= rank) return values[i] ?? null;
  }
  return null;
}

const share = (part: number, whole: number) => (whole > 0 ? part / whole : null);
const round2 = (value: number) => Math.round(value * 100) / 100;

/** A row of sums as the API shows it. */
function bucketOf(row: BucketRow | undefined): StatsBucket {
  const n = (value: number | null | undefined) => Number(value ?? 0);
  const answeredByOutcome = row?.answered_by_outcome ?? {};
  const answeredEnded = Object.values(answeredByOutcome).reduce((sum, count) => sum + count, 0);
  const runs = n(row?.tool_runs);
  const toolFailed = n(row?.tool_failed);
  const durationCount = n(row?.duration_count);
  return {
    calls: n(row?.calls),
    byOutcome: row?.by_outcome ?? {},
    results: {
      answered: n(row?.answered),
      noAnswer: n(row?.no_answer),
      busy: n(row?.busy),
      voicemail: n(row?.voicemail),
      failed: n(row?.failed),
      open: n(row?.open),
    },
    conversion: Object.fromEntries(
      Object.entries(answeredByOutcome).map(([outcome, count]) => [outcome, count / answeredEnded]),
    ),
    duration: {
      averageSeconds: durationCount > 0 ? round2(n(row?.duration_sum) / durationCount) : null,
      p90Seconds: percentileOf(row?.duration_values ?? null, row?.duration_counts ?? null, 0.9),
    },
    tools: {
      runs,
      succeeded: runs - toolFailed,
      failed: toolFailed,
      successRate: share(runs - toolFailed, runs),
      p50LatencyMs: percentileOf(row?.latency_values ?? null, row?.latency_counts ?? null, 0.5),
      p95LatencyMs: percentileOf(row?.latency_values ?? null, row?.latency_counts ?? null, 0.95),
    },
    deliveries: {
      delivered: n(row?.deliveries_delivered),
      failed: n(row?.deliveries_failed),
      pending: n(row?.deliveries_pending),
    },
  };
}

/**
 * [from, to) less the quarter hours already rolled up (epoch ms, sorted): the time ranges whose
 * calls are read one by one.
 */
export function liveRanges(from: string, to: string, rolled: number[]): [string, string][] {
  const ranges: [string, string][] = [];
  let cursor = from;
  let cursorMs = Date.parse(from);
  for (const slot of rolled) {
    if (slot > cursorMs) ranges.push([cursor, new Date(slot).toISOString()]);
    cursorMs = slot + SLOT_MS;
    cursor = new Date(cursorMs).toISOString();
  }
  if (cursorMs < Date.parse(to)) ranges.push([cursor, to]);
  return ranges;
}

/** GET /v1/stats (docs/interface.md#stats, decision 0040) and the rollup that keeps it fast. */
export function createStatsService({ repository, now = () => new Date() }: StatsServiceDeps) {
  /**
   * After the statistics outlasted the database timeout: when part of the period is due for the
   * rollup but not rolled up yet, its calls were read one by one (a large history met for the
   * first time, docs/scaling.md). That ends as the rollup catches up, so it is said as such
   * (api:unavailable, 503, Retry-After), not as a failure of the server (decision 0102).
   */
  async function refuseWhileCatchingUp(from: string, to: string): Promise<void> {
    const rolledUntil = await repository.rolledUntil();
    if (!rolledUntil) return;
    const behind = Date.parse(rolledUntil);
    const due = now().getTime() - ROLLUP_DELAY_MS;
    if (behind < due && Date.parse(from) < due && Date.parse(to) > behind) {
      throw new ApiError(
        'unavailable',
        `The statistics of this period are not rolled up yet: the rollup has reached ${rolledUntil}, ` +
          'and reading the calls after it one by one outlasted the database timeout. ' +
          'Ask again in a minute (Retry-After), or for a shorter period.',
        [],
        CATCHING_UP_RETRY_SECONDS,
      );
    }
  }

  return {
    async get(organizationId: string, query: StatsQuery): Promise<StatsView> {
      const to = query.to ?? now().toISOString();
      const from = query.from ?? new Date(Date.parse(to) - 7 * DAY_MS).toISOString();
      const interval = query.interval ?? 'day';
      const timezone = query.timezone ?? 'UTC';
      const agentId = query.agentId;
      if (Date.parse(from) >= Date.parse(to)) {
        throw validationError([{ path: 'query.from', message: 'must be before to' }]);
      }
      if (!ZONE_NAME.test(timezone) || !knownToJavaScript(timezone)) throw badZone();
      if (agentId && !(await repository.agentExists(organizationId, agentId))) throw notFound('Agent');

      let starts: string[];
      try {
        starts = await repository.intervalStarts({ from, to, interval, timezone }, MAX_INTERVALS + 1);
      } catch (error) {
        if (isUnknownZoneError(error)) throw badZone();
        throw error;
      }
      if (starts.length > MAX_INTERVALS) {
        const message = `covers more than ${formatCount(MAX_INTERVALS)} intervals of one ${interval}`;
        throw validationError([
          { path: 'query.from', message: `${message}: choose a later from` },
          {
            path: 'query.interval',
            message: interval === 'hour' ? `${message}: choose interval=day` : `${message}: choose a shorter period`,
          },
        ]);
      }

      const rolled = await repository.rolledUpSlots(organizationId, agentId, from, to);
      let rows: BucketRow[];
      try {
        rows = await repository.statistics(
          { organizationId, agentId, from, to, interval, timezone },
          { from, to },
          liveRanges(from, to, rolled),
        );
      } catch (error) {
        // Asked of the database after the timeout: one that stopped answering fails here as before.
        if (isStatementTimedOut(error)) await refuseWhileCatchingUp(from, to);
        throw error;
      }
      const byStart = new Map<number, BucketRow>();
      let totals: BucketRow | undefined;
      for (const row of rows) {
        if (row.bucket === null) totals = row;
        else byStart.set(new Date(row.bucket).getTime(), row);
      }
      return {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        interval,
        timezone,
        agentId: agentId ?? null,
        intervals: starts.map((start) => ({ start, ...bucketOf(byStart.get(Date.parse(start))) })),
        totals: bucketOf(totals),
      };
    },

    /**
     * The rollup job's run: quarter hours that ended more than ROLLUP_DELAY_MS ago, step by step,
     * for at most ROLLUP_RUN_MS. Then where the rollup stands.
     */
    async rollUp(): Promise<RollupState> {
      const started = Date.now();
      let more = true;
      while (more && Date.now() - started < ROLLUP_RUN_MS) {
        more = await repository.rollUp(new Date(now().getTime() - ROLLUP_DELAY_MS), ROLLUP_STEP_CALLS);
      }
      const rolledUntil = await repository.rolledUntil();
      const behindMs = rolledUntil ? Math.max(0, now().getTime() - ROLLUP_DELAY_MS - Date.parse(rolledUntil)) : 0;
      return { rolledUntil, behindMs, stillStepping: more };
    },

    /**
     * Every quarter hour that is due, rolled up at once (`switchboard stats rollup`, decision 0103):
     * for a database that held a large history when it first met the rollup, which the job would
     * take half an hour per ten million calls to reach. Steps double while they take under half of
     * `stepBudgetMs` and halve past it, from the job's 5,000 calls up to 200,000; a step the
     * database cancelled at its timeout changes nothing and is tried again at a quarter of its size.
     * Each step is the job's own, so a server running beside it rolls up nothing twice.
     */
    async catchUp({ stepBudgetMs, onStep }: CatchUpOptions): Promise<CatchUpResult> {
      const until = new Date(now().getTime() - ROLLUP_DELAY_MS);
      let size = ROLLUP_STEP_CALLS;
      let steps = 0;
      let retried = 0;
      for (let more = true; more; ) {
        const started = Date.now();
        try {
          more = await repository.rollUp(until, size);
        } catch (error) {
          if (!isStatementTimedOut(error) || size <= CATCH_UP_MIN_STEP_CALLS) throw error;
          size = Math.max(CATCH_UP_MIN_STEP_CALLS, Math.floor(size / 4));
          retried++;
          continue;
        }
        const tookMs = Date.now() - started;
        steps++;
        onStep?.({ steps, stepCalls: size, tookMs, rolledUntil: await repository.rolledUntil() });
        if (tookMs < stepBudgetMs / 2) size = Math.min(CATCH_UP_MAX_STEP_CALLS, size * 2);
        else if (tookMs > stepBudgetMs) size = Math.max(CATCH_UP_MIN_STEP_CALLS, Math.floor(size / 2));
      }
      const limit = new Date(Math.floor(until.getTime() / SLOT_MS) * SLOT_MS).toISOString();
      return { steps, retried, rolledUntil: await repository.rolledUntil(), until: limit };
    },
  };
}

export interface RollupState {
  /** Where the rollup stands (undefined before the stats migration's row exists). */
  rolledUntil: string | undefined;
  /** How much of what is due it has still to reach (0 to 15 minutes when it keeps up). */
  behindMs: number;
  /**
   * True when the run ended for lack of time with more ready (a history being caught up); false
   * when nothing more is ready, caught up or waiting at a quarter hour with a call still open.
   */
  stillStepping: boolean;
}

export interface CatchUpOptions {
  /** How long one step should take: long steps hold back the deliveries' state changes meanwhile. */
  stepBudgetMs: number;
  /** After each step: how far the rollup has come. */
  onStep?: (step: { steps: number; stepCalls: number; tookMs: number; rolledUntil: string | undefined }) => void;
}

export interface CatchUpResult {
  steps: number;
  /** Steps the database cancelled at its timeout, each tried again smaller. */
  retried: number;
  /** Where the rollup stands now: at `until`, or before it at a quarter hour with a call still open. */
  rolledUntil: string | undefined;
  /** The end of the last quarter hour due when the catch-up began (it ended an hour before). */
  until: string;
}

export type StatsService = ReturnType<typeof createStatsService>;
