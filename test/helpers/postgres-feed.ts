import pg from 'pg';
import { createPostgresChangeFeed } from '../../src/db/postgres-change-feed.js';
import { until } from './wait.js';

/**
 * A PostgreSQL change feed as a process opens it: its notifications sent on a pool of its own,
 * each payload it sends noted in `sent`. Resolves once the feed listens; `closers` gets what closes
 * the pool and the feed.
 */
export async function openPostgresFeed(url: string, closers: (() => Promise<unknown>)[]) {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const sent: string[] = [];
  const feed = createPostgresChangeFeed({
    url,
    timeoutMs: 5000,
    notify: async (channel, payload) => {
      sent.push(payload);
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
  });
  closers.push(
    () => pool.end(),
    () => feed.close(),
  );
  await until('the feed to listen', async () => feed.live);
  return { feed, sent };
}
