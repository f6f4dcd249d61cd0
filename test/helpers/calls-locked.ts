import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { TestDatabase } from './database.js';

/**
 * `read` with `calls` locked by another transaction, so that the statistics' read of it waits past
 * the database timeout as a long history read call by call does, and the stats rollup's progress at
 * `rolledUntil` (set once the lock is held: the rollup job's step reads `calls` too, so it cannot
 * move it meanwhile). PostgreSQL only. The lock is let go when `read` has ended.
 */
export async function whileCallsLocked<T>(db: TestDatabase, rolledUntil: string, read: () => Promise<T>): Promise<T> {
  const locker = new pg.Client({ connectionString: db.url as string });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table calls in access exclusive mode');
    await db.database.db.execute(
      sql`update stats_rollup_progress set rolled_until = ${rolledUntil}::timestamptz where id = 1`,
    );
    return await read();
  } finally {
    await locker.query('rollback');
    await locker.end();
  }
}
