/**
 * Rows one pruning statement removes at most: a pass that falls behind (a minute of idempotency
 * keys at a busy hour) is many short statements, each holding its locks and its share of the log
 * briefly, rather than one long one.
 */
export const PRUNE_BATCH_ROWS = 1000;

/**
 * Removes rows nobody can use any more (expired idempotency keys, spent rate-limit windows, old
 * login failures) a batch at a time, until a batch comes back short or the jobs stop; returns how
 * many went (decision 0088).
 */
export async function pruneInBatches(
  removeBatch: (limit: number) => Promise<number>,
  signal?: AbortSignal,
  limit = PRUNE_BATCH_ROWS,
): Promise<number> {
  let removed = 0;
  while (!signal?.aborted) {
    const batch = await removeBatch(limit);
    removed += batch;
    if (batch < limit) break;
  }
  return removed;
}
