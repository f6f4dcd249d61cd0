import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { type Database, type Db, openPglite, rowsOf } from '../../src/db/client.js';
import { releaseInstallBundle, START_PARAMS } from '../../src/db/embedded.js';
import { openPostgres } from '../../src/db/postgres.js';
import { databaseUrlWithName } from './database-url.js';

export interface TestDatabase {
  database: Database;
  engine: 'pglite' | 'postgres';
  /** For PostgreSQL: a URL other processes can share. */
  url: string | null;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file: PGlite by default, PostgreSQL when TEST_DATABASE_URL is set. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const template = inject('pgTemplate');
  if (serverUrl && template) {
    const name = `sb_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${template}`);
        break;
      } catch (error) {
        // Two files copying the template at the same instant: PostgreSQL refuses one; try again.
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
    const url = databaseUrlWithName(serverUrl, name);
    // Generous: test files run in parallel on a busy machine, and the production default (1.5 s, so
    // that an unreachable database costs an error, not a hang) is tested on its own by
    // database-faults.test.ts through server processes.
    const database = openPostgres({ url, timeoutMs: 10_000 });
    return {
      database,
      engine: 'postgres',
      url,
      async drop() {
        await database.close().catch(() => {});
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dumpPath = inject('pgliteDump');
  if (!dumpPath) throw new Error('global setup did not prepare a database');
  // Opened as `serve` opens its data dir: its small buffer pool also starts in half the time.
  const client = await PGlite.create({ loadDataDir: new Blob([readFileSync(dumpPath)]), startParams: START_PARAMS });
  // And with what `serve` keeps of PostgreSQL's installation, so every test reads only that.
  releaseInstallBundle(client);
  const database = openPglite(client);
  return { database, engine: 'pglite', url: null, drop: () => database.close() };
}

/**
 * For a describe block on PostgreSQL: a fresh database of its own and one client connected to it,
 * opened before the block's tests and dropped after. One connection, so that a test can read the
 * statistics of its own transaction (`pg_stat_get_xact_*`) around a repository's statement.
 */
export function ownPostgresClient(): () => pg.Client {
  let test: TestDatabase | undefined;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    test = await createTestDatabase();
    client = new pg.Client({ connectionString: test.url as string });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await test?.drop();
  });
  return () => {
    if (!client) throw new Error('the database is opened before the tests');
    return client;
  };
}

/**
 * The plan of `query` as run with sequential and bitmap scans off, as JSON text: for checking that
 * an index-only scan read none of its rows from the heap (`"Heap Fetches":0`).
 */
export async function indexScanPlan(db: Db, query: SQL): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    await tx.execute(sql`set local enable_bitmapscan = off`);
    const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(await tx.execute(sql`explain (analyze, format json) ${query}`));
    return JSON.stringify(row?.['QUERY PLAN']);
  });
}
