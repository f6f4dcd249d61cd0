import { EventEmitter } from 'node:events';

/**
 * Tells every process sharing the database that something it may have cached changed. With
 * PostgreSQL it is LISTEN/NOTIFY on a dedicated connection (postgres-change-feed.ts); with the
 * embedded database there is only this process (below). `live` is false while a process cannot
 * hear the others (its listening connection is down): caches must then not be trusted.
 */
export interface ChangeFeed {
  readonly live: boolean;
  /** Announces a change to every process, this one included. */
  publish(topic: string, key: string): Promise<void>;
  /** `onChange(key)` for each change; `onReset()` when changes may have been missed. */
  subscribe(topic: string, onChange: (key: string) => void, onReset: () => void): void;
  /**
   * Resolves true once every change published, by any process, before this call has reached this
   * process's subscribers; false when the feed cannot tell (not live, reset meanwhile, closed, or
   * too slow): a reader that missed something can wait for this instead of asking the database.
   */
  caughtUp(): Promise<boolean>;
  close(): Promise<void>;
}

/** One process alone on its database (the embedded PGlite): changes never come from elsewhere. */
export function createLocalChangeFeed(): ChangeFeed {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    live: true,
    async publish(topic, key) {
      events.emit(topic, key);
    },
    subscribe(topic, onChange) {
      events.on(topic, onChange);
    },
    // Publishing reaches every subscriber before it returns: nothing is ever on its way.
    async caughtUp() {
      return true;
    },
    async close() {
      events.removeAllListeners();
    },
  };
}
