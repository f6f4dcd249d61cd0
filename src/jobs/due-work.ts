/**
 * How soon to look again at work that is due but could not be claimed: another worker claimed it
 * and has not committed yet, so it is neither ours nor leased.
 */
const CLAIMED_ELSEWHERE_PAUSE_MS = 100;

/**
 * Does the work due now (publishing agents, binding numbers), claimed a batch at a time, and returns
 * in how many milliseconds the next piece falls due, or undefined when nothing waits. With nothing
 * due it asks one statement, `nextDueInMs`, and claims nothing (decision 0086).
 */
export async function workThroughDue<T>({
  nextDueInMs,
  claimDue,
  handle,
}: {
  /** By the database's clock; undefined when nothing is pending. */
  nextDueInMs: () => Promise<number | undefined>;
  claimDue: () => Promise<T[]>;
  handle: (claimed: T) => Promise<void>;
}): Promise<number | undefined> {
  const dueInMs = await nextDueInMs();
  if (dueInMs === undefined || dueInMs > 0) return dueInMs;
  for (;;) {
    const claimed = await claimDue();
    for (const item of claimed) await handle(item);
    if (claimed.length > 0) continue;
    const next = await nextDueInMs();
    return next !== undefined && next <= 0 ? CLAIMED_ELSEWHERE_PAUSE_MS : next;
  }
}
