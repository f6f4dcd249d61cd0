import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalChangeFeed } from '../src/db/change-feed.js';
import { createDueSignal, DELIVERIES_DUE_TOPIC } from '../src/deliveries/due-signal.js';
import { openPostgresFeed } from './helpers/postgres-feed.js';
import { until } from './helpers/wait.js';

// The "deliveries due" signal (decision 0113): a process's workers hear its own announcement once,
// at once, and not a second time when it comes back through the feed; the other processes hear it
// through the feed. Each wake is a claim: a second one for the same end found nothing.

const failOnError = (error: unknown) => {
  throw error;
};

describe('the deliveries-due signal', () => {
  it('wakes this process once per announcement with the embedded database', async () => {
    const feed = createLocalChangeFeed();
    const due = createDueSignal(feed, failOnError);
    let woken = 0;
    due.subscribe(() => woken++);
    due.announce();
    await due.announceNow();
    expect(woken).toBe(2);
    await feed.close();
  });

  describe.runIf(process.env.TEST_DATABASE_URL)('on PostgreSQL, between processes', () => {
    const url = process.env.TEST_DATABASE_URL as string;
    const closers: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const close of closers.reverse()) await close();
    });

    /** A process's feed and signal, as deliveries.module.ts builds them, and how often its worker was woken. */
    async function openProcess() {
      const { feed } = await openPostgresFeed(url, closers);
      const due = createDueSignal(feed, failOnError);
      const opened = { feed, due, woken: 0 };
      due.subscribe(() => opened.woken++);
      return opened;
    }

    it("wakes its own workers once, and the other processes' through the feed", async () => {
      const one = await openProcess();
      const other = await openProcess();
      one.due.announce();
      expect(one.woken).toBe(1);
      // Once the announcement has reached both feeds, its echo has had every chance to wake `one` again.
      await until('the other process to hear it', async () => other.woken === 1);
      expect(await one.feed.caughtUp()).toBe(true);
      expect(one.woken).toBe(1);

      await other.due.announceNow();
      expect(other.woken).toBe(2);
      await until('the first process to hear it', async () => one.woken === 2);
      expect(await other.feed.caughtUp()).toBe(true);
      expect(other.woken).toBe(2);
    });

    it('takes an announcement without a sender (an earlier version) as another process’s', async () => {
      const one = await openProcess();
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      closers.push(() => pool.end());
      // As an earlier version announced (postgres-change-feed.ts's channel, the topic, an empty key).
      await pool.query('select pg_notify($1, $2)', ['switchboard_changes', `${DELIVERIES_DUE_TOPIC}:`]);
      await until('the announcement to arrive', async () => one.woken === 1);
    });
  });
});
