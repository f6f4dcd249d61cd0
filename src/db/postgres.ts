/**
 * The shared PostgreSQL server's side of the database, through node-postgres. Apart from client.ts
 * so that a process on the embedded database never loads node-postgres (decision 0081).
 */
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { type Database, type Db, POOL_SATURATED_MESSAGE, READ_TIMEOUT_MESSAGE, withTimeout } from './client.js';
import { createPostgresChangeFeed } from './postgres-change-feed.js';
import * as schema from './schema/index.js';

export interface PostgresOptions {
  url: string;
  /** Connections in the pool, default 10. */
  poolSize?: number;
  /**
   * Requests that may wait for a pool connection, default 50 per connection: beyond, a request
   * fails at once ("the database pool is saturated") instead of waiting out the connect timeout in a
   * line that only grows (decision 0029).
   */
  maxWaiting?: number;
  /**
   * How long connecting or one statement may take before it fails, default 1500 ms (see
   * `SWITCHBOARD_DATABASE_TIMEOUT_MS`): a database that stopped answering must cost a request an
   * error, never a hang.
   */
  timeoutMs?: number;
}

/** The default of `PostgresOptions.timeoutMs`, as of `SWITCHBOARD_DATABASE_TIMEOUT_MS`. */
const DEFAULT_DATABASE_TIMEOUT_MS = 1500;

/** A statement got no answer in time: its connection is dropped, failing it and whatever waits behind it. */
const readTimedOut = (client: FaultTolerantClient): void => {
  client.connection.stream.destroy(new Error(READ_TIMEOUT_MESSAGE));
};

type QueryCallback = (error: Error | undefined, result?: unknown) => void;

interface ClientOptions {
  /** How long a statement may wait for its answer before it fails and its connection is dropped. */
  readTimeoutMs?: number;
}

/**
 * A node-postgres client fit for a database that can vanish (decision 0023):
 * - a connection lost while the client is checked out (in a transaction) is an `error` event with
 *   no listener, which would crash the process; its statements fail with the error anyway;
 * - a statement that gets no answer within `readTimeoutMs` fails, and its connection is dropped (it
 *   would stay waiting for that answer, and every later statement behind it).
 *
 * The read timeout is ours, not node-postgres's `query_timeout`: with that option (as with the
 * promise node-postgres makes when no callback is given), what a statement read outlived the
 * scavenges and was promoted, one page of rows after another, until a mark-compact freed it, so a
 * page of calls met 4-10 ms scavenges (docs/benchmarks.md, "Again on 2026-11-28"). So every
 * statement is sent with a callback, and its promise, when the caller wants one, is made here.
 */
class FaultTolerantClient extends pg.Client {
  private readonly readTimeoutMs: number | undefined;

  constructor(config?: string | (pg.ClientConfig & ClientOptions)) {
    super(config);
    this.readTimeoutMs = typeof config === 'object' ? config.readTimeoutMs : undefined;
    this.on('error', () => {});
  }

  // biome-ignore lint/suspicious/noExplicitAny: the same overloads as pg.Client's query
  override query(config: any, values?: any, callback?: any): any {
    const send = super.query as (config: unknown, values?: unknown, callback?: unknown) => unknown;
    // A submittable (a cursor, a stream) keeps its own protocol: as node-postgres sends it.
    if (this.readTimeoutMs === undefined || typeof config?.submit === 'function') {
      return send.call(this, config, values, callback);
    }
    const given = typeof values === 'function' ? undefined : values;
    // The caller's callback, else one that settles the promise this returns.
    let answer: QueryCallback = typeof values === 'function' ? values : callback;
    let result: Promise<unknown> | undefined;
    if (!answer) {
      result = new Promise((resolve, reject) => {
        answer = (error, rows) => (error ? reject(error) : resolve(rows));
      });
    }
    const timer = setTimeout(readTimedOut, this.readTimeoutMs, this);
    try {
      send.call(this, config, given, (error: Error | undefined, rows?: unknown) => {
        clearTimeout(timer);
        answer(error, rows);
      });
    } catch (error) {
      // Refused before it was sent (no text, a callback that is not one): nothing to time.
      clearTimeout(timer);
      throw error;
    }
    return result;
  }
}

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * drizzle-orm (0.45) sends a transaction's BEGIN before the `try` whose `finally` releases the
 * client: a BEGIN that fails, as every statement does while the database is away, would keep its
 * client checked out for good, and ten such would leave the pool serving nothing once the database
 * is back. So a checked-out client whose first statement fails is released here, with the error
 * (the pool discards it), and a release by the caller afterwards is ignored.
 */
class FaultTolerantPool extends pg.Pool {
  /** Requests waiting for a connection beyond which the next fails at once (decision 0029). */
  maxWaiting = Number.POSITIVE_INFINITY;

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    // A full line would only time out later, one request after another: answer now, while the
    // connections serve those already waiting.
    if (this.waitingCount >= this.maxWaiting) {
      const error = new Error(POOL_SATURATED_MESSAGE);
      if (callback) {
        process.nextTick(() => callback(error, undefined, () => {}));
        return undefined;
      }
      return Promise.reject(error);
    }
    if (callback) {
      // The callback form is pool.query's, which releases the client on every failure itself.
      super.connect(callback);
      return undefined;
    }
    return super.connect().then((client) => {
      const release = client.release.bind(client);
      let released = false;
      client.release = (error?: Error | boolean) => {
        if (released) return;
        released = true;
        release(error);
      };
      const query = client.query;
      // biome-ignore lint/suspicious/noExplicitAny: the same overloads as pg.Client's query
      client.query = (...args: any[]): any => {
        client.query = query;
        const result = (query as (...a: unknown[]) => unknown).apply(client, args);
        if (result instanceof Promise) {
          result.catch((error: unknown) => client.release(error instanceof Error ? error : new Error(String(error))));
        }
        return result;
      };
      return client;
    });
  }
}

/**
 * A node-postgres pool behind Drizzle. Connecting and each statement fail after `timeoutMs` rather
 * than hang: on the client (the answer may never come) and on the server (`statement_timeout`, so a
 * statement the client gave up on is not committed behind its back).
 */
export function openPostgres({
  url,
  poolSize = 10,
  maxWaiting = 50 * poolSize,
  timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS,
}: PostgresOptions): Database {
  const config: pg.PoolConfig & ClientOptions = {
    Client: FaultTolerantClient,
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    // The pool gives its options to each client it makes (FaultTolerantClient's read timeout).
    readTimeoutMs: timeoutMs,
    statement_timeout: timeoutMs,
    idleTimeoutMillis: 30_000,
  };
  const pool = new FaultTolerantPool(config);
  pool.maxWaiting = maxWaiting;
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const changes = createPostgresChangeFeed({
    url,
    timeoutMs,
    notify: async (channel, payload) => {
      // Named, so each connection parses it once: a busy process sends several a second.
      await pool.query({ name: 'pg_notify', text: 'select pg_notify($1, $2)', values: [channel, payload] });
    },
  });
  return {
    db,
    engine: 'postgres',
    changes,
    ping: (pingTimeoutMs = timeoutMs) => withTimeout(db.execute(sql`select 1`), pingTimeoutMs),
    async close() {
      await changes.close();
      await pool.end();
    },
  };
}

/**
 * Runs `work` on a connection of its own, with no limit on how long a statement takes: migrations
 * wait for another process's lock and may rewrite whole tables, which the pool's timeouts would cut.
 */
export async function withUnlimitedConnection<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection lost mid-work fails the statement under way; the event must not crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(drizzlePg(client, { schema }) as unknown as Db);
  } finally {
    await client.end().catch(() => {});
  }
}
