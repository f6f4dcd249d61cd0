import type { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { PgDatabase, PgDialect, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { type ChangeFeed, createLocalChangeFeed } from './change-feed.js';
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

/** Resolves when `promise` does; rejects if it has not within `ms`. */
export async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
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
 * The one `due_in_ms` a statement selects (a due time less `now()`, in milliseconds, by the
 * database's clock) as a number; undefined when it is null (nothing is due at all).
 */
export async function selectDueInMs(db: Db, query: SQL): Promise<number | undefined> {
  const [row] = rowsOf<{ due_in_ms: unknown }>(await db.execute(query));
  return row?.due_in_ms == null ? undefined : Number(row.due_in_ms);
}

/**
 * Deletes up to `limit` rows of `table` whose `column` (a timestamp) is before `before`, rows another
 * statement holds skipped; returns how many went. For pruning a table a batch at a time
 * (`pruneInBatches`); `column` should lead an index, so each batch reads only what it removes.
 */
export async function deleteBatchBefore(
  db: Db,
  table: SQLWrapper,
  column: SQLWrapper,
  before: Date,
  limit: number,
): Promise<number> {
  const [row] = rowsOf<{ removed: number }>(
    await db.execute(sql`
      with gone as (
        delete from ${table} where ctid = any(array(
          select ctid from ${table} where ${column} < ${before.toISOString()}::timestamptz
          limit ${limit} for update skip locked))
        returning 1
      )
      select count(*)::int as removed from gone`),
  );
  return Number(row?.removed ?? 0);
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

/** How a statement that got no answer within the pool's timeout fails (node-postgres's own wording). */
export const READ_TIMEOUT_MESSAGE = 'Query read timeout';

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

/**
 * Whether a statement outlasted the database timeout: PostgreSQL cancelled it at its
 * `statement_timeout` (57014), or no answer came within the pool's read timeout (the same length,
 * so either may come first), however the driver wrapped it. The second is also how a database that
 * stopped answering fails; a caller that must tell the two apart asks the database something after.
 */
export function isStatementTimedOut(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === '57014' || (typeof message === 'string' && message.startsWith(READ_TIMEOUT_MESSAGE))) return true;
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
