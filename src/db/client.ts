import type { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgDialect, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { type ChangeFeed, createLocalChangeFeed, createPostgresChangeFeed } from './change-feed.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;

/** The query builder every repository takes: a database or a transaction on it, either engine. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface Database {
  readonly db: Db;
  readonly engine: 'pglite' | 'postgres';
  /** How processes sharing this database tell each other what changed (cache invalidation). */
  readonly changes: ChangeFeed;
  /** Throws when the database cannot answer a trivial query within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

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

/** How a statement that got no answer within the pool's timeout fails (node-postgres's own wording). */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

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
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
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

/** Drizzle over an open PGlite instance (in memory for tests, a directory for the embedded mode). */
export function openPglite(client: PGlite): Database {
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  const changes = createLocalChangeFeed();
  return {
    db,
    engine: 'pglite',
    changes,
    ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`select 1`), timeoutMs),
    async close() {
      await changes.close();
      await client.close();
    },
  };
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The rows of a raw `db.execute` result, which node-postgres and PGlite both shape as `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * `db.execute(query)` as a named prepared statement: with PostgreSQL, parsed and planned once per
 * connection and then only bound and run; PGlite runs it as `db.execute` does. For a statement
 * every request sends whose text never changes (its values are parameters), and only where a plan
 * made without the values is as good as one made with them: PostgreSQL may keep a generic plan
 * after five runs. The result is shaped as `db.execute`'s (`rowsOf`).
 */
export function executePrepared(db: Db, name: string, query: SQL): Promise<unknown> {
  return preparedStatement(db, name, query)({});
}

/**
 * `executePrepared`'s statement built once: its values are bound at each run under the names of its
 * placeholders (`sql.placeholder(name)`, `arrayPlaceholder`). For the statements a batch of calls
 * sends on every accept and every end, whose text would otherwise be built and read again at every
 * run (decision 0070). `executePrepared` builds one and runs it at once.
 */
export function preparedStatement(
  db: Db,
  name: string,
  query: SQL,
): (values: Record<string, unknown>) => Promise<unknown> {
  // Drizzle's own query builders prepare by name (`.prepare(name)`); a raw statement has no such
  // call, so it is prepared the way `db.execute` prepares it, with the name given.
  const { dialect } = db as unknown as { dialect: PgDialect };
  const prepared = db._.session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
  return (values) => prepared.execute(values);
}

/** An array read as `(select $n::type[])`, the shape whose length no plan knows (`arrayParam`). */
const ofUnknownLength = (bound: SQLWrapper, type: string): SQL => sql`(select ${bound}::${sql.raw(type)}[])`;

/** `arrayParam` for a `preparedStatement`: the array bound at each run under `name`. */
export const arrayPlaceholder = (name: string, type: string): SQL => ofUnknownLength(sql.placeholder(name), type);

/**
 * An array bound to a prepared statement, written `(select $n::type[])` so that no plan knows its
 * length. PostgreSQL plans a prepared statement with its values (a custom plan) for its first five
 * runs, then keeps the plan made without them (the generic plan) only if that one is estimated no
 * dearer. A custom plan knows how many rows `unnest` of a bound array gives (one, for a call alone)
 * while the generic plan assumes ten, so a statement of batched arrays was planned anew at every
 * run, the parse alone saved. Read through a scalar subquery, the array is of unknown length to both
 * plans, their estimates are the same, and the generic plan is kept (decision 0058).
 */
export const arrayParam = (values: unknown[], type: string): SQL => ofUnknownLength(sql.param(values), type);

/**
 * The condition `switchboard_probe_only(key)` (migration 0014), to write beside each lookup by a
 * unique key in a prepared statement: always true, and declared so costly that the planner only
 * evaluates it on the rows an index finds. Without it, a plan made while the table held a page or
 * two is a sequential scan, and PostgreSQL keeps that plan while the table grows, until it next
 * analyzes the table (decision 0058).
 */
export const probeOnly = (key: SQLWrapper): SQL => sql`switchboard_probe_only(${key})`;

/**
 * Runs `statement` again when PostgreSQL aborted it to break a deadlock or a serialization conflict
 * (both are safe to retry: nothing of the aborted attempt was written), up to three attempts.
 */
export async function retryOnConflict<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 3 || (code !== '40P01' && code !== '40001')) throw error;
    }
  }
}

/** How a request refused by a full pool line fails (decision 0029). */
export const POOL_SATURATED_MESSAGE = 'the database pool is saturated';

/** Connection-level failures node-postgres reports by message only. */
const UNREACHABLE_MESSAGES = [
  POOL_SATURATED_MESSAGE,
  READ_TIMEOUT_MESSAGE,
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

/**
 * Whether a statement failed because the database could not be reached or stopped answering (refused,
 * reset, timed out, shutting down), not because of the statement, however the driver wrapped it.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (/^E[A-Z]+$/.test(code) || code.startsWith('08') || code.startsWith('57P'))) {
      return true;
    }
    if (typeof message === 'string' && UNREACHABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  }
  return false;
}

/**
 * Whether a statement may succeed if sent again later: the database was unreachable, or refused it
 * for the moment (a serialization failure or deadlock, 40xxx; too few resources, 53xxx; a canceled
 * statement or a shutdown, 57xxx; a lock not available, 55P03). Anything else, a value it refuses
 * (22xxx, 23xxx) or a limit it enforces (54xxx), fails the same way every time
 * (docs/decisions/0027-bounded-call-records.md).
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (isDatabaseUnreachable(error)) return true;
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && (/^(40|53|57)/.test(code) || code === '55P03')) return true;
  }
  return false;
}

/** Whether a statement failed on a unique index (PostgreSQL 23505), however the driver wrapped it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}

/**
 * Holds, until the transaction ends, a lock on one organization's `scope` (its phone numbers, its
 * campaigns): writes that check a rule across rows no index states (a count budget, a number bound
 * once) then run one at a time for that organization, in any process.
 */
export async function lockOrganizationScope(
  tx: Pick<Db, 'execute'>,
  scope: string,
  organizationId: string,
): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${scope}:${organizationId}`}, 0))`);
}
