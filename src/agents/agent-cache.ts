import type { ChangeFeed } from '../db/change-feed.js';
import type { CallTriggerAgent } from './agents.service.js';

/** The topic agent changes are announced on; the key is the agent id. */
export const AGENT_TOPIC = 'agent';

export interface AgentCacheOptions {
  feed: ChangeFeed;
  /** How long an entry is trusted without hearing of a change, default 60 s: a backstop, not the mechanism. */
  ttlMs?: number;
  /** Entries kept at most, default 10,000; the oldest go first. Unknown tokens are cached too. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  agent: CallTriggerAgent | undefined;
  expiresAt: number;
}

/**
 * Click-to-call agents by the SHA-256 of their API token, so the request path does not read the
 * database. Every agent write announces itself on the change feed (every process hears it) and
 * evicts the agent here; while the feed cannot hear other processes, nothing is served from cache.
 * A token nobody holds is cached as unknown: tokens are random, so no later agent can come to own one.
 */
export function createAgentCache({ feed, ttlMs = 60_000, maxEntries = 10_000, now = Date.now }: AgentCacheOptions) {
  const byToken = new Map<string, Entry>();
  const tokenByAgent = new Map<string, string>();
  // Bumped by every eviction: a load that overlapped one may have read the old row, so it is not kept.
  let generation = 0;

  const clear = () => {
    generation++;
    byToken.clear();
    tokenByAgent.clear();
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

  return {
    async lookup(
      tokenHash: string,
      load: () => Promise<CallTriggerAgent | undefined>,
    ): Promise<CallTriggerAgent | undefined> {
      if (!feed.live) return load();
      const hit = byToken.get(tokenHash);
      if (hit && hit.expiresAt > now()) return hit.agent;
      const startedAt = generation;
      const agent = await load();
      if (startedAt === generation && feed.live) {
        byToken.delete(tokenHash);
        byToken.set(tokenHash, { agent, expiresAt: now() + ttlMs });
        if (agent) tokenByAgent.set(agent.row.id, tokenHash);
        while (byToken.size > maxEntries) {
          const oldest = byToken.keys().next().value as string;
          const entry = byToken.get(oldest);
          byToken.delete(oldest);
          if (entry?.agent) tokenByAgent.delete(entry.agent.row.id);
        }
      }
      return agent;
    },
  };
}

export type AgentCache = ReturnType<typeof createAgentCache>;
