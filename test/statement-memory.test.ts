import v8 from 'node:v8';
import vm from 'node:vm';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { openPostgres } from '../src/db/postgres.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

// What a statement reads must be garbage as soon as its caller is done with it. With node-postgres's
// own read timeout (`query_timeout`) or its own promise, every statement's rows outlived the next
// scavenges and were promoted to the old generation, where only a mark-compact frees them: on the
// calls list, a 4-10 ms scavenge every 25 pages (docs/benchmarks.md, "Again on 2026-11-28").
// Measured here without timing: the old generation's growth over scavenges forced after statements.

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

/** Statements in a batch, and batches measured. */
const BATCH = 10;
const BATCHES = 20;
/** Text each statement reads: 2 rows of 128 KB. */
const READ_BYTES = 2 * 128 * 1000;
const readSome = sql`select repeat(md5(random()::text), 4000) as text from generate_series(1, 2)`;

const oldSpaceUsed = () =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;

/**
 * How much the old generation grows over a batch of statements followed by two scavenges, the
 * median of `BATCHES` batches: a mark-compact V8 starts on its own frees old garbage in a batch or
 * two, which the median leaves out.
 */
async function promotedPerBatch(statement: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2 * BATCH; i++) await statement();
  gc({ type: 'major' });
  const grown: number[] = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    const before = oldSpaceUsed();
    for (let i = 0; i < BATCH; i++) await statement();
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    grown.push(oldSpaceUsed() - before);
  }
  grown.sort((a, b) => a - b);
  return grown[BATCHES / 2] ?? 0;
}

describe.runIf(process.env.TEST_DATABASE_URL)('what a PostgreSQL statement reads', () => {
  let t: TestDatabase;
  /**
   * Opened as the server opens it, with the default timeout (1.5 s): node-postgres's `query_timeout`
   * kept the rows with that value, not with the suite's generous 10 s.
   */
  let database: Database;
  beforeAll(async () => {
    t = await createTestDatabase();
    database = openPostgres({ url: t.url as string });
  });
  afterAll(async () => {
    await database.close();
    await t.drop();
  });

  it('is not kept past the statement, sent by the pool or in a transaction', async () => {
    const read = BATCH * READ_BYTES;
    const byPool = await promotedPerBatch(() => database.db.execute(readSome));
    const inTransaction = await promotedPerBatch(() => database.db.transaction((tx) => tx.execute(readSome)));
    console.info('promoted per batch reading', read, 'bytes:', JSON.stringify({ byPool, inTransaction }));
    // Kept, every statement's rows would be promoted: the whole of `read`.
    expect(byPool).toBeLessThan(read / 4);
    expect(inTransaction).toBeLessThan(read / 4);
  }, 60_000);
});
