import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// Decision 0108: the columns that hold a call's report, its outcome's payload and what tools and
// receivers answered are compressed with lz4 where the database has it; elsewhere they keep pglz.
const LARGE_COLUMNS = [
  'calls.transcript',
  'calls.collected_data',
  'calls.provisional_end',
  'deliveries.payload',
  'delivery_attempts.response_excerpt',
  'tool_invocations.arguments',
  'tool_invocations.request',
  'tool_invocations.response_excerpt',
  'tool_invocations.result',
];

describe('compression of the large columns', () => {
  let test: TestDatabase;

  beforeAll(async () => {
    test = await createTestDatabase();
  });

  afterAll(async () => {
    await test.drop();
  });

  it('is lz4 where the database has lz4, and the default elsewhere', async () => {
    const db = test.database.db;
    const [setting] = rowsOf<{ methods: string[] }>(
      await db.execute(sql`select enumvals as methods from pg_settings where name = 'default_toast_compression'`),
    );
    const hasLz4 = setting?.methods.includes('lz4') ?? false;
    // PGlite is built without lz4; a server PostgreSQL 14 or later usually with it (Debian's, the official images).
    if (test.engine === 'pglite') expect(hasLz4).toBe(false);
    const columns = rowsOf<{ name: string; method: string }>(
      await db.execute(sql`
        select c.relname || '.' || a.attname as name, a.attcompression::text as method
        from pg_attribute a join pg_class c on c.oid = a.attrelid
        where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped`),
    );
    const compressed = columns.filter((c) => c.method === 'l').map((c) => c.name);
    expect(compressed.sort()).toEqual(hasLz4 ? [...LARGE_COLUMNS].sort() : []);
  });
});
