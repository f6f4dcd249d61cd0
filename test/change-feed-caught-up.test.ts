import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../src/db/change-feed.js';
import { openPostgresFeed } from './helpers/postgres-feed.js';
import { startProxyToDatabase, type TcpProxy } from './helpers/tcp-proxy.js';

// ChangeFeed.caughtUp on PostgreSQL (decision 0092): a process that may have missed an announcement
// another process made a moment ago waits for its own notification to come back instead of asking
// the database, and however many wait, one notification is sent per round.

describe.runIf(process.env.TEST_DATABASE_URL)('the PostgreSQL change feed catching up', () => {
  const url = process.env.TEST_DATABASE_URL as string;
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  /** A feed as a process opens it (notifications sent on a pool), counting what it sends. */
  const openFeed = (feedUrl = url) => openPostgresFeed(feedUrl, closers);

  async function delayedFeed(): Promise<{ feed: ChangeFeed; sent: string[]; proxy: TcpProxy }> {
    const proxy = await startProxyToDatabase(url);
    closers.push(() => proxy.close());
    return { ...(await openFeed(proxy.via(url))), proxy };
  }

  it('resolves once every change published before it has reached the subscribers', async () => {
    const { feed: publisher } = await openFeed();
    const { feed: late, proxy } = await delayedFeed();
    const heard: string[] = [];
    late.subscribe(
      'thing',
      (key) => heard.push(key),
      () => {},
    );
    proxy.delayReplies(300);

    await publisher.publish('thing', 'one');
    await publisher.publish('thing', 'two');
    expect(heard).toEqual([]); // still on its way
    expect(await late.caughtUp()).toBe(true);
    expect(heard).toEqual(['one', 'two']);
  });

  it('sends one notification per round however many wait', async () => {
    const { feed, sent } = await openFeed();
    const burst = Array.from({ length: 2000 }, () => feed.caughtUp());
    expect(await Promise.all(burst)).toEqual(Array(2000).fill(true));
    // The first caller's round went at once; the 1,999 who came after it was sent share the next.
    expect(sent).toHaveLength(2);
    expect(new Set(sent).size).toBe(2);
  });

  it('resolves false when the feed cannot tell: closed during a round, or not listening', async () => {
    const { feed, proxy } = await delayedFeed();
    proxy.delayReplies(300);
    const waiting = feed.caughtUp();
    await feed.close();
    expect(await waiting).toBe(false);
    expect(await feed.caughtUp()).toBe(false);
  });
});
