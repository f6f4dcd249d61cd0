import pg from 'pg';
import type { ChangeFeed } from './change-feed.js';

const CHANNEL = 'switchboard_changes';

/** How often the listening connection is checked when nothing else crosses it. */
const HEARTBEAT_MS = 5000;

/**
 * LISTEN/NOTIFY on one dedicated connection, reconnected after a failure. While it is down the feed
 * is not live and every subscriber is reset on reconnect, since notifications sent meanwhile are lost.
 * A connection that only listens never learns that the network lost it (no error comes, nothing
 * more either): a statement every few seconds with a timeout tells (decision 0023).
 */
export function createPostgresChangeFeed(options: {
  url: string;
  /** Sends the NOTIFY; the pool's connection, so a publish never waits for the listener. */
  notify: (channel: string, payload: string) => Promise<void>;
  /** How long connecting or the heartbeat may take before the connection is given up. */
  timeoutMs: number;
  onError?: (error: unknown) => void;
}): ChangeFeed {
  const { timeoutMs } = options;
  const subscribers = new Map<string, { onChange: (key: string) => void; onReset: () => void }[]>();
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const resetAll = () => {
    for (const list of subscribers.values()) for (const s of list) s.onReset();
  };

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    });
    const lost = (error?: unknown) => {
      if (client !== next) return;
      client = undefined;
      clearInterval(heartbeat);
      // Subscribers learn once that they may miss changes, not at every failed attempt to reconnect.
      if (live) resetAll();
      live = false;
      if (error) options.onError?.(error);
      // With a statement under way (the heartbeat), end() drops the connection rather than wait.
      next.end().catch(() => {});
      if (!closed) retry = setTimeout(connect, 1000);
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => {
      const payload = message.payload ?? '';
      const at = payload.indexOf(':');
      if (at < 0) return;
      const topic = payload.slice(0, at);
      for (const s of subscribers.get(topic) ?? []) s.onChange(payload.slice(at + 1));
    });
    try {
      client = next;
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
      heartbeat = setInterval(() => {
        next.query('select 1').catch(lost);
      }, HEARTBEAT_MS);
      // Whatever was cached before this connection listened may be stale.
      resetAll();
      live = true;
    } catch (error) {
      lost(error);
    }
  };
  void connect();

  return {
    get live() {
      return live;
    },
    async publish(topic, key) {
      // This process hears its own NOTIFY too, but only after a round trip: apply it at once.
      for (const s of subscribers.get(topic) ?? []) s.onChange(key);
      await options.notify(CHANNEL, `${topic}:${key}`);
    },
    subscribe(topic, onChange, onReset) {
      subscribers.set(topic, [...(subscribers.get(topic) ?? []), { onChange, onReset }]);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const current = client;
      client = undefined;
      live = false;
      await current?.end().catch(() => {});
    },
  };
}
