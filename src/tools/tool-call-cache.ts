import { randomBytes } from 'node:crypto';
import { AGENT_TOPIC } from '../agents/agent-cache.js';
import type { ChangeFeed } from '../db/change-feed.js';
import type { CallToolContext, ToolRow } from './tools.repository.js';

/** The topic tool changes are announced on; the key is the tool id. */
export const TOOL_TOPIC = 'tool';
/** Calls whose collected values grew: `<process>:<call id>,<call id>…` (a process skips its own). */
export const CALL_VALUES_TOPIC = 'call-values';

/** Call ids per announcement: a NOTIFY payload must stay under 8,000 bytes. */
const IDS_PER_ANNOUNCEMENT = 100;

export interface ToolCallCacheOptions {
  feed: ChangeFeed;
  /** How long an entry is trusted without hearing of a change, default 60 s: a backstop, not the mechanism. */
  ttlMs?: number;
  /** Calls, and agent-and-name pairs, kept at most, default 10,000 each; the oldest go first. */
  maxEntries?: number;
  now?: () => number;
}

/** What a tool call needs of its call; everything but the collected values is fixed when the call starts. */
export type CallInfo = Omit<CallToolContext, 'tool'>;

interface Timed<T> {
  value: T;
  expiresAt: number;
}

/**
 * What every tool call of a call reads, kept in memory so that a live call's tool calls do not wait
 * for the database: each call's values, and the tool attached to an agent under a name. Changes to
 * tools and agents (every process hears them on the change feed) and calls' newly collected values
 * (announced by the process that recorded them) evict entries; while the feed cannot hear the
 * other processes, nothing is served from here.
 */
export function createToolCallCache({
  feed,
  ttlMs = 60_000,
  maxEntries = 10_000,
  now = Date.now,
}: ToolCallCacheOptions) {
  const calls = new Map<string, Timed<CallInfo>>();
  const tools = new Map<string, Timed<ToolRow | null>>();
  const processId = randomBytes(6).toString('hex');
  // Bumped by every eviction of tools: a load that overlapped one may have read the old row.
  let toolsGeneration = 0;

  const toolKey = (agentId: string, name: string) => `${agentId}\0${name}`;
  const forgetTools = () => {
    toolsGeneration++;
    tools.clear();
  };
  const clearAll = () => {
    forgetTools();
    calls.clear();
  };
  // Tool and agent changes are rare: each empties the tool entries rather than tracking which it touched.
  feed.subscribe(TOOL_TOPIC, forgetTools, clearAll);
  feed.subscribe(AGENT_TOPIC, forgetTools, clearAll);
  feed.subscribe(
    CALL_VALUES_TOPIC,
    (key) => {
      const [origin, ids = ''] = key.split(':');
      if (origin === processId) return;
      for (const id of ids.split(',')) calls.delete(id);
    },
    clearAll,
  );

  const put = <T>(map: Map<string, Timed<T>>, key: string, value: T) => {
    map.delete(key);
    map.set(key, { value, expiresAt: now() + ttlMs });
    while (map.size > maxEntries) map.delete(map.keys().next().value as string);
  };
  const fresh = <T>(entry: Timed<T> | undefined): entry is Timed<T> => entry !== undefined && entry.expiresAt > now();

  return {
    /** The call's values and the tool under `name` attached to its agent; `load` reads both when needed. */
    async context(
      callId: string,
      name: string,
      load: () => Promise<CallToolContext | undefined>,
    ): Promise<CallToolContext | undefined> {
      if (feed.live) {
        const call = calls.get(callId);
        if (fresh(call)) {
          const tool = tools.get(toolKey(call.value.agentId, name));
          if (fresh(tool)) return { ...call.value, tool: tool.value };
        }
      }
      const generation = toolsGeneration;
      const loaded = await load();
      if (!loaded || !feed.live) return loaded;
      const { tool, ...info } = loaded;
      if (info.status !== 'ended') put(calls, callId, info);
      if (generation === toolsGeneration) put(tools, toolKey(info.agentId, name), tool);
      return loaded;
    },

    /** Values a tool run of the call collected, known here before they are written. */
    addValues(callId: string, values: Record<string, unknown>): void {
      const call = calls.get(callId);
      if (call) call.value = { ...call.value, toolValues: { ...call.value.toolValues, ...values } };
    },

    /** Tells the other processes that these calls' collected values changed (after they are written). */
    async announceValues(callIds: string[]): Promise<void> {
      for (let i = 0; i < callIds.length; i += IDS_PER_ANNOUNCEMENT) {
        await feed.publish(CALL_VALUES_TOPIC, `${processId}:${callIds.slice(i, i + IDS_PER_ANNOUNCEMENT).join(',')}`);
      }
    },

    /** The call ended (here): its tool calls are refused from now on, so its entry goes. */
    forgetCall(callId: string): void {
      calls.delete(callId);
    },
  };
}

export type ToolCallCache = ReturnType<typeof createToolCallCache>;
