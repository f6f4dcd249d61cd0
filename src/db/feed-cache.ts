import type { ChangeFeed } from './change-feed.js';

export interface FeedCacheOptions<T> {
  /** The change feed's topic whose keys are this cache's: a change heard forgets that key. */
  topic: string;
  feed: ChangeFeed;
  /** The value for a key, read from the database; undefined is kept too (there is none). */
  load: (key: string) => Promise<T | undefined>;
  /** How long a value is trusted without hearing of a change, default 60 s: a backstop. */
  ttlMs?: number;
  /** Keys kept at most, default 10,000; the oldest go first. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Values read from the database, kept in memory until the change feed announces a change to their
 * key (in any process) or `ttlMs` passes. While the feed cannot hear the other processes nothing is
 * served from here (every read loads). Loads of one key at once are shared, and a load that overlapped
 * a change heard is returned but not kept: it may have read the old row.
 */
export function createFeedCache<T>({
  topic,
  feed,
  load,
  ttlMs = 60_000,
  maxEntries = 10_000,
  now = Date.now,
}: FeedCacheOptions<T>) {
  const values = new Map<string, { value: T | undefined; expiresAt: number }>();
  const loading = new Map<string, { generation: number; done: Promise<T | undefined> }>();
  // Bumped by every change heard: a load that overlapped one may have read the old value.
  let generation = 0;
  feed.subscribe(
    topic,
    (key) => {
      generation++;
      values.delete(key);
    },
    () => {
      generation++;
      values.clear();
    },
  );

  function remember(key: string, value: T | undefined): void {
    values.delete(key);
    values.set(key, { value, expiresAt: now() + ttlMs });
    while (values.size > maxEntries) values.delete(values.keys().next().value as string);
  }

  return {
    async get(key: string): Promise<T | undefined> {
      const known = values.get(key);
      if (known && known.expiresAt > now() && feed.live) return known.value;
      const inFlight = loading.get(key);
      if (inFlight && inFlight.generation === generation) return inFlight.done;
      const startedAt = generation;
      const done = load(key)
        .then((value) => {
          if (startedAt === generation && feed.live) remember(key, value);
          return value;
        })
        .finally(() => {
          if (loading.get(key)?.done === done) loading.delete(key);
        });
      loading.set(key, { generation: startedAt, done });
      return done;
    },
  };
}

export type FeedCache<T> = ReturnType<typeof createFeedCache<T>>;
