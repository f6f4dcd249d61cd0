import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthRepository } from '../src/auth/auth.repository.js';
import { createClickToCallRepository } from '../src/click-to-call/click-to-call.repository.js';
import { rowsOf } from '../src/db/client.js';
import { pruneInBatches } from '../src/jobs/prune.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { until } from './helpers/wait.js';

/**
 * What nobody reads any more is removed by the worker (decision 0088): idempotency keys past their
 * 24 h, rate-limit windows past two minutes, login failures past a day; what is still read stays.
 */

/** `count` of a statement that selects one. */
async function countOf(t: TestApp, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = rowsOf<{ count: number }>(await t.db.database.db.execute(query));
  return Number(row?.count);
}

/** `rows` idempotency keys of `agentId` named `<prefix><n>`, expired a minute ago. */
async function expiredKeys(t: TestApp, agentId: string, prefix: string, rows: number) {
  await t.db.database.db.execute(sql`
    insert into idempotency_keys (agent_id, key, request_hash, state, expires_at)
    select ${agentId}, ${prefix} || g, 'hash', 'completed', now() - interval '1 minute'
    from generate_series(1, ${rows}) g`);
}

describe('pruning, by the worker', () => {
  let t: TestApp;
  let org: Org;

  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_PRUNE_INTERVAL_MS: '100' });
    org = await t.signup();
  }, 60_000);
  afterAll(() => t?.close());

  it('removes expired keys, spent windows and old login failures, batch after batch, and keeps the rest', async () => {
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org);
    const call = (key: string, phone: string) =>
      t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone }, headers: { 'idempotency-key': key } });
    const keptPhone = nextPhone();
    const kept = await call('kept', keptPhone);
    const expiredPhone = nextPhone();
    const expired = await call('expired', expiredPhone);
    expect([kept.status, expired.status]).toEqual([200, 200]);
    await t.waitForCall(org, kept.body.callId);
    await t.waitForCall(org, expired.body.callId);
    const db = t.db.database.db;
    await db.execute(sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'expired'`);
    await expiredKeys(t, agent.id, `bulk-`, 2500);
    // A window that started 3 minutes ago is spent; one 90 s ago is not (two minutes are kept).
    await db.execute(sql`
      insert into rate_limit_windows (agent_id, window_start, count)
      values (${agent.id}, now() - interval '3 minutes', 5), (${agent.id}, now() - interval '90 seconds', 5)`);
    // A failed log-in, and one remembered from 25 hours ago.
    expect((await t.request('POST', '/v1/login', { body: { email: org.user.email, password: 'wrong' } })).status).toBe(
      401,
    );
    await db.execute(
      sql`insert into login_failures (key, window_start, count) values ('old', now() - interval '25 hours', 3)`,
    );

    await until('the expired rows to be pruned', async () => {
      const left = await countOf(
        t,
        sql`select (select count(*) from idempotency_keys where expires_at < now())
          + (select count(*) from rate_limit_windows where window_start < now() - interval '2 minutes')
          + (select count(*) from login_failures where key = 'old') as count`,
      );
      return left === 0;
    });

    expect(await countOf(t, sql`select count(*) as count from idempotency_keys where key = 'kept'`)).toBe(1);
    expect(
      await countOf(
        t,
        sql`select count(*) as count from rate_limit_windows
          where agent_id = ${agent.id} and window_start >= now() - interval '2 minutes'`,
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(await countOf(t, sql`select count(*) as count from login_failures`)).toBeGreaterThanOrEqual(1);
    // Through the API: the kept key still replays its call; the expired one starts a new call.
    const replay = await call('kept', keptPhone);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.callId).toBe(kept.body.callId);
    const again = await call('expired', expiredPhone);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.callId).not.toBe(expired.body.callId);
  });
});

describe('pruning, a batch at a time', () => {
  let t: TestApp;
  let org: Org;

  beforeAll(async () => {
    // The api role runs no jobs: only the statements below prune.
    t = await startTestApp({ SWITCHBOARD_ROLE: 'api' });
    org = await t.signup();
  }, 60_000);
  afterAll(() => t?.close());

  it('removes at most a batch per statement, and batches until one comes back short', async () => {
    const agent = await t.createAgent(org);
    const repository = createClickToCallRepository(t.db.database.db);
    await expiredKeys(t, agent.id, 'batch-', 2500);
    expect(await repository.pruneIdempotencyKeys(new Date(), 1000)).toBe(1000);
    const batches: number[] = [];
    const removed = await pruneInBatches(async (limit) => {
      const batch = await repository.pruneIdempotencyKeys(new Date(), limit);
      batches.push(batch);
      return batch;
    });
    expect({ removed, batches }).toEqual({ removed: 1500, batches: [1000, 500] });
    expect(await repository.pruneIdempotencyKeys(new Date(), 1000)).toBe(0);
  });

  it('stops between batches once the jobs stop', async () => {
    const agent = await t.createAgent(org);
    const repository = createClickToCallRepository(t.db.database.db);
    await expiredKeys(t, agent.id, 'stopped-', 30);
    const stopping = new AbortController();
    const removed = await pruneInBatches(
      async (limit) => {
        const batch = await repository.pruneIdempotencyKeys(new Date(), limit);
        stopping.abort();
        return batch;
      },
      stopping.signal,
      10,
    );
    expect(removed).toBe(10);
    expect(await countOf(t, sql`select count(*) as count from idempotency_keys where key like 'stopped-%'`)).toBe(20);
  });

  it('keeps what is not yet past its time', async () => {
    const auth = createAuthRepository(t.db.database.db);
    const db = t.db.database.db;
    await db.execute(sql`
      insert into login_failures (key, window_start, count)
      values ('batch-old', now() - interval '2 hours', 1), ('batch-new', now(), 1)`);
    expect(await auth.pruneAttempts(new Date(Date.now() - 3600_000), 1000)).toBe(1);
    expect(
      rowsOf<{ key: string }>(await db.execute(sql`select key from login_failures where key like 'batch-%'`)).map(
        (row) => row.key,
      ),
    ).toEqual(['batch-new']);
  });

  it.runIf(process.env.TEST_DATABASE_URL)('skips rows another statement holds, without waiting for it', async () => {
    const agent = await t.createAgent(org);
    const repository = createClickToCallRepository(t.db.database.db);
    await pruneInBatches((limit) => repository.pruneIdempotencyKeys(new Date(), limit)); // the other tests' leftovers
    await expiredKeys(t, agent.id, 'held-', 5);
    const removed = await t.db.database.db.transaction(async (tx) => {
      await tx.execute(sql`select key from idempotency_keys where key = 'held-1' for update`);
      return repository.pruneIdempotencyKeys(new Date(), 1000);
    });
    expect(removed).toBe(4);
    expect(await countOf(t, sql`select count(*) as count from idempotency_keys where key like 'held-%'`)).toBe(1);
  });
});
