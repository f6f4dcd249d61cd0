/**
 * The agent's rate limit (ctc:010) as an in-process budget leased from the database in chunks
 * (decision 0051). The database keeps one counter per agent and minute, shared by every process;
 * a process asks it for several requests' worth at a time and hands them out from memory, so an
 * agent's busy minute costs a handful of statements instead of one per request.
 *
 * What holds across processes: no more than `limit` requests are let through in a window, however
 * many processes share the database, because every token was first added to the shared counter.
 * What it costs: tokens a process leased and did not use are lost when the window ends, so with
 * several busy processes an agent may be refused a little before its limit — never after it. The
 * chunk starts at one request each window and doubles while the agent stays busy, up to a
 * twentieth of the limit, which bounds that loss to 5 % of the limit per other process (and to
 * nothing at all for a limit under 40, whose chunk is always 1).
 */

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The largest chunk a process leases, as a share of the limit: its loss at a window's end. */
const CHUNK_SHARE_OF_LIMIT = 20;

export interface RateLimitCounter {
  /**
   * Adds `requests` to the agent's counter for the window starting at `windowStart` (created at
   * `requests` if absent) and returns the counter after the addition, in one statement.
   */
  countRequests(agentId: string, windowStart: Date, requests: number): Promise<number>;
}

interface Budget {
  windowStart: number;
  limit: number;
  /** Requests leased from the database and not yet let through. */
  tokens: number;
  /** The database's counter reached the limit: nothing more this window. */
  exhausted: boolean;
  /** The next lease's size. */
  chunk: number;
  leasing?: Promise<void>;
}

export type RateLimitAnswer = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function createRateLimiter(counter: RateLimitCounter) {
  const budgets = new Map<string, Budget>();
  let currentWindow = 0;

  /** The agent's budget for this window and limit; a new window or a changed limit starts afresh. */
  function budgetOf(agentId: string, windowStart: number, limit: number): Budget {
    if (windowStart !== currentWindow) {
      // A new minute: last minute's budgets are worth nothing, and forgetting them bounds the map
      // to the agents seen this minute.
      currentWindow = windowStart;
      for (const [id, budget] of budgets) if (budget.windowStart < windowStart && !budget.leasing) budgets.delete(id);
    }
    const known = budgets.get(agentId);
    if (known && known.windowStart === windowStart && known.limit === limit) return known;
    // A limit changed mid-window drops the tokens leased under the old one: the shared counter
    // already holds them, so a lowered limit is never exceeded.
    const fresh: Budget = { windowStart, limit, tokens: 0, exhausted: false, chunk: 1 };
    budgets.set(agentId, fresh);
    return fresh;
  }

  async function lease(agentId: string, budget: Budget): Promise<void> {
    const asked = budget.chunk;
    const after = await counter.countRequests(agentId, new Date(budget.windowStart), asked);
    const before = after - asked;
    budget.tokens += Math.max(0, Math.min(asked, budget.limit - before));
    if (after >= budget.limit) budget.exhausted = true;
    budget.chunk = Math.min(asked * 2, Math.max(1, Math.floor(budget.limit / CHUNK_SHARE_OF_LIMIT)));
  }

  return {
    /**
     * Counts one request against the agent's limit at `at` (ms). Throws when the database could not
     * be asked; every request waiting on that lease gets the same error.
     */
    async take(agentId: string, limit: number, at: number): Promise<RateLimitAnswer> {
      const windowStart = at - (at % RATE_LIMIT_WINDOW_MS);
      for (;;) {
        const budget = budgetOf(agentId, windowStart, limit);
        if (budget.tokens > 0) {
          budget.tokens -= 1;
          return { allowed: true };
        }
        if (budget.exhausted) {
          return {
            allowed: false,
            retryAfterSeconds: Math.max(1, Math.ceil((windowStart + RATE_LIMIT_WINDOW_MS - at) / 1000)),
          };
        }
        // One lease at a time per agent: the requests arriving meanwhile wait for it and share it.
        budget.leasing ??= lease(agentId, budget).finally(() => {
          budget.leasing = undefined;
        });
        await budget.leasing;
      }
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
