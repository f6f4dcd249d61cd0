import type { ChangeFeed } from '../db/change-feed.js';
import type { CallTriggerAgent } from './agents.service.js';

/** The topic agent changes are announced on; the key is the agent id. */
export const AGENT_TOPIC = 'agent';

/**
 * The topic a newly issued click-to-call token is announced on (an agent created, credentials
 * issued or rotated); the key is the SHA-256 of the token, as stored in `agents.api_token_hash`.
 */
export const AGENT_TOKEN_TOPIC = 'agent-token';

/** Refused when too many token lookups already wait for the database: the request answers ctc:002. */
export class TokenLookupsBusyError extends Error {
  constructor() {
    super('too many click-to-call token lookups are waiting for the database');
    this.name = 'TokenLookupsBusyError';
  }
}

export interface AgentCacheOptions {
  feed: ChangeFeed;
  /**
   * Every click-to-call token hash there is (a superset does no harm), for the index that refuses a
   * token nobody was ever issued without asking the database. Without it, every unseen token costs
   * one lookup (through the limit below).
   */
  loadTokenHashes?: () => Promise<string[]>;
  /**
   * Whether other processes can issue tokens (PostgreSQL), default false (the embedded database has
   * one process). Then a token missing from the index may have been issued elsewhere a moment ago,
   * its announcement still on the way: it is refused only once the feed has caught up
   * (`ChangeFeed.caughtUp`, decision 0092).
   */
  sharedDatabase?: boolean;
  /** How long an agent is trusted without hearing of a change, default 60 s: a backstop, not the mechanism. */
  ttlMs?: number;
  /** Agents kept at most, default 10,000; the oldest go first. Unknown tokens cannot push them out. */
  maxEntries?: number;
  /** How long a token the database did not know stays refused without asking again, default 10 min. */
  unknownTtlMs?: number;
  /** Unknown tokens kept at most, default 50,000 (about 6 MB); the oldest go first. */
  maxUnknown?: number;
  /** Token lookups sent to the database at once, default 4 (of the pool's 10 connections). */
  maxConcurrentLoads?: number;
  /** Lookups waiting for one of those beyond which the next is refused at once, default 64. */
  maxWaitingLoads?: number;
  now?: () => number;
}

interface Entry {
  agent: CallTriggerAgent;
  expiresAt: number;
}

/** The index keeps the first 16 hex digits (64 bits) of each hash: a collision only costs a lookup. */
const indexKey = (tokenHash: string) => tokenHash.slice(0, 16);

/** After a failed index load, the next attempt waits this long (lookups go to the database meanwhile). */
const INDEX_RETRY_MS = 5000;

/**
 * Click-to-call agents by the SHA-256 of their API token, so the request path does not read the
 * database (decisions 0007 and 0029). Three layers, so that hostile traffic is cheap to refuse:
 * - known agents, evicted when the change feed announces a write to them;
 * - an index of every token hash ever issued: a token outside it was never issued and is refused
 *   without a query (tokens are random, so guessing one is hopeless); newly issued tokens are added
 *   from the change feed (`AGENT_TOKEN_TOPIC`), in every process;
 * - tokens the database did not know (a rotated or deleted agent's), kept apart from the agents so a
 *   flood of them cannot push the agents out.
 * Lookups that do reach the database share one in-flight query per token and at most
 * `maxConcurrentLoads` at once, so no flood can take the pool. While the feed cannot hear other
 * processes nothing is served from cache (lookups still go through the limit).
 */
export function createAgentCache({
  feed,
  loadTokenHashes,
  sharedDatabase = false,
  ttlMs = 60_000,
  maxEntries = 10_000,
  unknownTtlMs = 10 * 60_000,
  maxUnknown = 50_000,
  maxConcurrentLoads = 4,
  maxWaitingLoads = 64,
  now = Date.now,
}: AgentCacheOptions) {
  const byToken = new Map<string, Entry>();
  const tokenByAgent = new Map<string, string>();
  const unknown = new Map<string, number>();
  const inFlight = new Map<string, Promise<CallTriggerAgent | undefined>>();
  // Bumped by every eviction: a load that overlapped one may have read the old row, so it is not kept.
  let generation = 0;

  const index = new Set<string>();
  let indexReady = false;
  let indexLoading = false;
  let indexFailedAt = Number.NEGATIVE_INFINITY;
  // Bumped by every reset: an index load that overlapped one may have missed an announcement.
  let indexEpoch = 0;

  let running = 0;
  const waiting: (() => void)[] = [];

  const clear = () => {
    generation++;
    indexEpoch++;
    byToken.clear();
    tokenByAgent.clear();
    unknown.clear();
    index.clear();
    indexReady = false;
  };
  feed.subscribe(
    AGENT_TOPIC,
    (agentId) => {
      generation++;
      const token = tokenByAgent.get(agentId);
      if (token !== undefined) byToken.delete(token);
      tokenByAgent.delete(agentId);
    },
    clear,
  );
  feed.subscribe(
    AGENT_TOKEN_TOPIC,
    (tokenHash) => {
      generation++;
      unknown.delete(tokenHash);
      index.add(indexKey(tokenHash));
    },
    clear,
  );

  function loadIndex(): void {
    if (!loadTokenHashes || indexReady || indexLoading || now() - indexFailedAt < INDEX_RETRY_MS) return;
    indexLoading = true;
    const epoch = indexEpoch;
    loadTokenHashes().then(
      (hashes) => {
        indexLoading = false;
        if (epoch !== indexEpoch || !feed.live) return;
        // A union: tokens announced while the load ran are in the set already.
        for (const hash of hashes) index.add(indexKey(hash));
        indexReady = true;
      },
      () => {
        indexLoading = false;
        indexFailedAt = now();
      },
    );
  }

  /** Runs `load` when fewer than `maxConcurrentLoads` run; waits in line, or is refused when the line is full. */
  async function limited<T>(load: () => Promise<T>): Promise<T> {
    if (running >= maxConcurrentLoads) {
      if (waiting.length >= maxWaitingLoads) throw new TokenLookupsBusyError();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running++;
    }
    try {
      return await load();
    } finally {
      // The slot passes to the next in line, or is given back.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }

  function remember(tokenHash: string, agent: CallTriggerAgent | undefined): void {
    if (!agent) {
      unknown.delete(tokenHash);
      unknown.set(tokenHash, now() + unknownTtlMs);
      if (unknown.size > maxUnknown) unknown.delete(unknown.keys().next().value as string);
      return;
    }
    byToken.delete(tokenHash);
    byToken.set(tokenHash, { agent, expiresAt: now() + ttlMs });
    tokenByAgent.set(agent.row.id, tokenHash);
    while (byToken.size > maxEntries) {
      const oldest = byToken.keys().next().value as string;
      const entry = byToken.get(oldest);
      byToken.delete(oldest);
      if (entry) tokenByAgent.delete(entry.agent.row.id);
    }
  }

  /** One query per token however many requests wait for it, through the limit; kept unless it overlapped a change. */
  function loadOnce(
    tokenHash: string,
    load: () => Promise<CallTriggerAgent | undefined>,
  ): Promise<CallTriggerAgent | undefined> {
    const pending = inFlight.get(tokenHash);
    if (pending) return pending;
    const startedAt = generation;
    const loading = limited(load)
      .then((agent) => {
        if (startedAt === generation && feed.live) remember(tokenHash, agent);
        return agent;
      })
      .finally(() => inFlight.delete(tokenHash));
    inFlight.set(tokenHash, loading);
    return loading;
  }

  type Seen = { state: 'known'; agent: CallTriggerAgent } | { state: 'unknown' | 'catch-up' | 'load' };

  /**
   * What memory alone says of a token: `known` (a cached agent), `unknown` (refused, no query
   * needed), `catch-up` (missing from the index on a shared database: unknown unless its
   * announcement is still on the way) or `load` (the database must tell).
   */
  function peek(tokenHash: string): Seen {
    if (!feed.live) return { state: 'load' };
    const hit = byToken.get(tokenHash);
    if (hit && hit.expiresAt > now()) return { state: 'known', agent: hit.agent };
    const unknownUntil = unknown.get(tokenHash);
    if (unknownUntil !== undefined) {
      if (unknownUntil > now()) return { state: 'unknown' };
      unknown.delete(tokenHash);
    }
    loadIndex();
    if (!hit && indexReady && !index.has(indexKey(tokenHash))) {
      // Never issued. Alone on its database, this process hears of every token as it is issued;
      // on a shared one, another process may have issued it a moment ago (decision 0092).
      return { state: sharedDatabase ? 'catch-up' : 'unknown' };
    }
    return { state: 'load' };
  }

  /**
   * `peek` once the feed has caught up with every announcement made before now: a token issued by
   * another process before this request was sent is in the index by then. No query, whatever the
   * number of tokens waiting (one notification per 100 ms at most); still missing, it is unknown.
   */
  async function peekCaughtUp(tokenHash: string): Promise<Seen> {
    await feed.caughtUp();
    const seen = peek(tokenHash);
    return seen.state === 'catch-up' ? { state: 'unknown' } : seen;
  }

  return {
    /**
     * Whether the token is refused from memory alone (no agent has it), without a query; a promise
     * when memory has to wait for the change feed first (a shared database, decision 0092).
     */
    isSurelyUnknown(tokenHash: string): boolean | Promise<boolean> {
      const seen = peek(tokenHash);
      if (seen.state !== 'catch-up') return seen.state === 'unknown';
      return peekCaughtUp(tokenHash).then((caughtUp) => caughtUp.state === 'unknown');
    },

    async lookup(
      tokenHash: string,
      load: () => Promise<CallTriggerAgent | undefined>,
    ): Promise<CallTriggerAgent | undefined> {
      let seen = peek(tokenHash);
      if (seen.state === 'catch-up') seen = await peekCaughtUp(tokenHash);
      switch (seen.state) {
        case 'known':
          return seen.agent;
        case 'unknown':
        case 'catch-up':
          return undefined;
        case 'load':
          return feed.live ? loadOnce(tokenHash, load) : limited(load);
      }
    },
  };
}

export type AgentCache = ReturnType<typeof createAgentCache>;
