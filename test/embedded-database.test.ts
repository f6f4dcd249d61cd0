import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/client.js';
import { openEmbeddedPostgres, releaseInstallBundle } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

// The embedded database as `serve` opens it: a new data dir, its cluster created, then migrated. By
// initdb, not from the build's template, which comes migrated already (decision 0083): here the
// migrations run in one transaction as they do wherever there is no template.
describe('the embedded database', () => {
  let dir: string;
  let client: PGlite;
  let applied: string[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-embedded-'));
    client = await openEmbeddedPostgres(path.join(dir, 'pgdata'), { template: null });
    applied = await migrate(openPglite(client).db);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is sized for its one backend (decision 0060) and migrates a new database in one transaction', async () => {
    const setting = async (name: string) =>
      (await client.query<{ value: string }>('select current_setting($1) as value', [name])).rows[0]?.value;
    expect(await setting('max_connections')).toBe('5');
    expect(await setting('shared_buffers')).toBe('4MB');
    expect(applied.length).toBeGreaterThan(10);
  }, 60_000);

  it('still lets one transaction lock four times the relations the migrations made', async () => {
    const made = (
      await client.query<{ n: number }>(
        `select count(*)::int as n from pg_class c join pg_namespace s on s.oid = c.relnamespace
         where s.nspname in ('public', 'pg_toast') and c.oid >= 16384`,
      )
    ).rows[0]?.n as number;
    expect(made).toBeGreaterThan(100);
    const tables = Math.ceil((4 * made) / 2); // each table with its key: two relations locked
    await client.query('begin');
    try {
      for (let i = 0; i < tables; i++) await client.query(`create table lock_room_${i} (id int primary key)`);
      const held = (await client.query<{ n: number }>('select count(*)::int as n from pg_locks')).rows[0]?.n as number;
      expect(held).toBeGreaterThanOrEqual(2 * tables);
    } finally {
      await client.query('rollback');
    }
  }, 120_000);

  it("keeps of PostgreSQL's installation only the files it reads, each in memory of its own (decision 0081)", async () => {
    const { FS } = client.Module;
    const exists = (file: string) => FS.analyzePath(file, false).exists;
    for (const unread of [
      '/pglite/share/postgresql/postgres.bki',
      '/pglite/share/postgresql/information_schema.sql',
      '/pglite/icu/icudt76l/coll/ucadata.icu',
      '/pglite/lib/postgresql/utf8_and_sjis.so',
      '/pglite/lib/postgresql/pgxs/src/Makefile.global',
    ]) {
      expect(exists(unread), unread).toBe(false);
    }
    const zoneFile = '/pglite/share/postgresql/timezone/Pacific/Chatham';
    const zone = (FS.lookupPath(zoneFile, {}).node as { contents?: Uint8Array }).contents as Uint8Array;
    expect(zone.buffer.byteLength).toBe(zone.byteLength);
    expect(Buffer.from(FS.readFile(zoneFile)).subarray(0, 4).toString()).toBe('TZif');
    // Nothing is left in the package's buffer to release.
    expect(releaseInstallBundle(client)).toBe(0);

    // What a running database reads is still there: a time zone read for the first time, the list of
    // them all, the abbreviations, PL/pgSQL.
    await client.query(`set timezone = 'Pacific/Chatham'`);
    try {
      const offset = await client.query<{ offset: string }>(
        `select to_char(timestamptz '2026-01-01 00:00Z', 'TZH:TZM') as offset`,
      );
      expect(offset.rows[0]?.offset).toBe('+13:45');
    } finally {
      await client.query('reset timezone');
    }
    const zones = await client.query<{ n: number }>('select count(*)::int as n from pg_timezone_names');
    expect(zones.rows[0]?.n).toBeGreaterThan(400);
    const abbreviation = await client.query<{ at: string }>(`select (timestamptz '2026-07-01 12:00 EDT')::text as at`);
    expect(abbreviation.rows[0]?.at).toBe('2026-07-01 16:00:00+00');
    await client.query('do $$ begin perform 1; end $$');
  }, 60_000);
});
