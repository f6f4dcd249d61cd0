import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ChangeFeed } from './change-feed.js';

const CHANNEL = 'switchboard_changes';

/** How often the listening connection is checked when nothing else crosses it. */
const HEARTBEAT_MS = 5000;

/** The topic of `caughtUp`'s own notifications (no subscriber has it); the key is `<feed id>.<number>`. */
const CAUGHT_UP_TOPIC = 'feed-caught-up';

/** `caughtUp` sends one notification per this long at most, whoever waits (10 a second). */
const CAUGHT_UP_INTERVAL_MS = 100;

/** Callers waiting for the next `caughtUp` beyond which the next is told false at once. */
const MAX_CAUGHT_UP_WAITERS = 10_000;

interface Round {
  resolve: (caughtUp: boolean) => void;
  promise: Promise<boolean>;
  waiters: number;
}

const newRound = (): Round => {
  let resolve!: (caughtUp: boolean) => void;
  const promise = new Promise<boolean>((r) => {
    resolve = r;
  });
  return { resolve, promise, waiters: 0 };
};

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

  // caughtUp (decision 0092): this process NOTIFYs a key of its own and waits to hear it back.
  // PostgreSQL delivers notifications in the order their transactions committed, so by then every
  // change published before the NOTIFY was sent has reached the subscribers. One round is under way
  // at a time; callers that come meanwhile wait for the next, sent after they came.
  const feedId = randomBytes(6).toString('hex');
  let roundNumber = 0;
  let sent: { round: Round; key: string; timer: NodeJS.Timeout } | undefined;
  let nextRound: Round | undefined;
  let nextTimer: NodeJS.Timeout | undefined;
  let lastSentAt = Number.NEGATIVE_INFINITY;

  const finishRound = (key: string | undefined, caughtUp: boolean) => {
    if (!sent || (key !== undefined && key !== sent.key)) return;
    const { round, timer } = sent;
    sent = undefined;
    clearTimeout(timer);
    round.resolve(caughtUp);
    sendRound();
  };
  function sendRound(): void {
    if (sent || nextTimer || !nextRound) return;
    const wait = lastSentAt + CAUGHT_UP_INTERVAL_MS - Date.now();
    if (wait > 0) {
      nextTimer = setTimeout(() => {
        nextTimer = undefined;
        sendRound();
      }, wait);
      return;
    }
    const round = nextRound;
    nextRound = undefined;
    if (!live) {
      round.resolve(false);
      return;
    }
    const key = `${feedId}.${++roundNumber}`;
    lastSentAt = Date.now();
    sent = { round, key, timer: setTimeout(() => finishRound(key, false), timeoutMs) };
    options.notify(CHANNEL, `${CAUGHT_UP_TOPIC}:${key}`).catch(() => finishRound(key, false));
  }
  /** Tells every caller waiting that the feed cannot say (the connection is lost, or the feed closed). */
  const abandonRounds = () => {
    clearTimeout(nextTimer);
    nextTimer = undefined;
    nextRound?.resolve(false);
    nextRound = undefined;
    finishRound(undefined, false);
  };

  const resetAll = () => {
    abandonRounds();
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
      if (topic === CAUGHT_UP_TOPIC) return finishRound(payload.slice(at + 1), true);
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
    caughtUp() {
      if (!live) return Promise.resolve(false);
      nextRound ??= newRound();
      if (nextRound.waiters >= MAX_CAUGHT_UP_WAITERS) return Promise.resolve(false);
      nextRound.waiters++;
      const { promise } = nextRound;
      sendRound();
      return promise;
    },
    async close() {
      closed = true;
      abandonRounds();
      clearTimeout(retry);
      clearInterval(heartbeat);
      const current = client;
      client = undefined;
      live = false;
      await current?.end().catch(() => {});
    },
  };
}
