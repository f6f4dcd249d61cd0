import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, openPglite } from '../../src/db/client.js';
import { openEmbeddedPostgres } from '../../src/db/embedded.js';
import { openPostgres } from '../../src/db/postgres.js';

export type Engine = 'postgresql' | 'pglite';

export const ENGINE_LABEL: Record<Engine, string> = { postgresql: 'PostgreSQL', pglite: 'PGlite' };

const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The engines to measure: `BENCH_ENGINES` (comma list), default both. */
export function benchEngines(): Engine[] {
  return (process.env.BENCH_ENGINES ?? 'postgresql,pglite').split(',') as Engine[];
}

/** A fresh database of the engine (a new PostgreSQL database, or PGlite in a temporary directory), dropped by `cleanup`. */
export async function openBenchDatabase(
  engine: Engine,
  purpose: string,
): Promise<{ database: Database; cleanup(): Promise<void> }> {
  if (engine === 'pglite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), `switchboard-bench-${purpose}-`));
    const database = openPglite(await openEmbeddedPostgres(path.join(dir, 'pgdata')));
    return {
      database,
      async cleanup() {
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const name = `switchboard_bench_${purpose}_${randomBytes(6).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    // Seeding writes thousands of rows per statement: not bound by the server's statement timeout.
    database: openPostgres({ url: url.toString(), timeoutMs: 60_000 }),
    async cleanup() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
