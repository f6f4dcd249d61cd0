import type { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
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
}

/** A node-postgres pool behind Drizzle. Queries fail after 5 s without a connection rather than hang. */
export function openPostgres({ url, poolSize = 10 }: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const changes = createPostgresChangeFeed({
    url,
    notify: async (channel, payload) => {
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
  });
  return {
    db,
    engine: 'postgres',
    changes,
    ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`select 1`), timeoutMs),
    async close() {
      await changes.close();
      await pool.end();
    },
  };
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

/** Whether a statement failed on a unique index (PostgreSQL 23505), however the driver wrapped it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === '23505') return true;
  }
  return false;
}
