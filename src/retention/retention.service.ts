import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RemovedRows, RetentionRepository } from './retention.repository.js';

/**
 * Calls removed per statement: small enough that one batch holds its locks and its share of the
 * database for tens of milliseconds, large enough that a backlog of millions drains in minutes
 * (decision 0052, measured by `npm run bench -- retention`).
 */
export const RETENTION_BATCH_CALLS = 1_000;

/**
 * The pause between two batches of one pass, at least: the accept path and the delivery worker get
 * the database between them (decision 0052).
 */
export const RETENTION_PAUSE_MS = 50;

/**
 * And at least this many times as long as the batch took: a pass holds a database connection at
 * most a sixth of the time, and when the database is busy (batches take longer) it backs off by
 * itself, where a fixed pause would take the same share of a slower database. With 2 (a third),
 * the accept path ran at 0.67× its speed while a pass ran, on two cores (docs/benchmarks.md).
 */
export const RETENTION_PAUSE_FACTOR = 5;

export interface RetentionServiceDeps {
  repository: RetentionRepository;
  /** `SWITCHBOARD_RETENTION_DAYS`. */
  days: number;
  /** Default RETENTION_BATCH_CALLS. */
  batchCalls?: number;
  /** Default RETENTION_PAUSE_MS. */
  pauseMs?: number;
}

/** Removes calls past the retention period, batch by batch (decision 0052). */
export function createRetentionService({
  repository,
  days,
  batchCalls = RETENTION_BATCH_CALLS,
  pauseMs = RETENTION_PAUSE_MS,
}: RetentionServiceDeps) {
  return {
    /**
     * One pass: batches until one comes back short (nothing more is past the period, or what is
     * left must stay), or `signal` is aborted (shutdown). Returns the rows removed.
     */
    async removeExpired(signal?: AbortSignal): Promise<RemovedRows> {
      const total: RemovedRows = { calls: 0, toolInvocations: 0, deliveries: 0, deliveryAttempts: 0 };
      while (!signal?.aborted) {
        const started = performance.now();
        const removed = await repository.removeOldCalls(days, batchCalls);
        const tookMs = performance.now() - started;
        total.calls += removed.calls;
        total.toolInvocations += removed.toolInvocations;
        total.deliveries += removed.deliveries;
        total.deliveryAttempts += removed.deliveryAttempts;
        if (removed.calls < batchCalls) break;
        await sleep(Math.max(pauseMs, tookMs * RETENTION_PAUSE_FACTOR), undefined, { signal }).catch(() => {});
      }
      return total;
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
