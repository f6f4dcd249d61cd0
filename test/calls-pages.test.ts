import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { indexScanPlan } from './helpers/database.js';

// Decision 0068: the calls table keeps room on each new page (fillfactor 80). A call is inserted
// small and updated as it ends, an update that cannot be HOT; with full pages, the insert took a gap
// the free-space map knew of in an older page, and each such page stopped being all-visible, so the
// lists' index-only scans (the capped total, decision 0053) read the heap again. Checked here on a
// table as an install from before the migration has it: older calls on full pages, vacuumed.
let t: TestApp;
let org: Org;

const OLD_CALLS = 2_000;
const NEW_CALLS = 150;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(async () => {
  await t.close();
});

describe("the calls table's pages", () => {
  it('calls accepted and ended after older, full pages were vacuumed go to new pages: the old ones stay all-visible', async () => {
    const db = t.db.database.db;
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org, {
      simulator: { delayMs: 0 },
      rateLimitPerMinute: null,
    });
    const [migrated] = rowsOf<{ reloptions: string[] | null }>(
      await db.execute(sql`select reloptions from pg_class where oid = 'calls'::regclass`),
    );
    expect(migrated?.reloptions).toEqual(['fillfactor=80']);

    // The older calls, written before the migration: pages packed full, with the gaps that rows of
    // varied sizes leave (transcripts of 1 to 40 turns).
    await db.execute(sql`alter table calls set (fillfactor = 100)`);
    await db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, outcome, variables,
        collected_data, transcript, created_at, started_at, ended_at, deadline_at)
      select 'call_old' || lpad(i::text, 18, '0'), ${org.organization.id}, ${agent.id}, 'simulator',
        '+1415555' || lpad(i::text, 4, '0'), 'ended', 'completed', '{}', '{}',
        (select jsonb_agg(jsonb_build_object('role', 'agent', 'text', md5(i::text || '.' || g::text), 'at', '2026-01-01T00:00:00Z'))
           from generate_series(1, 1 + (i * 7) % 40) g),
        now() - interval '30 days' + i * interval '1 second', now() - interval '30 days', now() - interval '30 days',
        now() - interval '29 days'
      from generate_series(1, ${OLD_CALLS}::int) i`);
    await db.execute(sql.raw(`alter table calls set (${migrated?.reloptions?.join(', ')})`));
    await db.execute(sql`vacuum calls`);
    // The older calls' last page is not full, and new rows may go there as to any page with room:
    // the pages before it are the full ones, holding the calls created before its first.
    const [tail] = rowsOf<{ page: number; from: string; before: number }>(
      await db.execute(sql`
        with placed as (select (ctid::text::point)[0]::int as page, created_at from calls)
        select max(page) as page,
               (select min(created_at) from placed where page = (select max(page) from placed))::text as from,
               (select count(*)::int from placed where page < (select max(page) from placed)) as before
        from placed`),
    );
    if (!tail) throw new Error('no calls');
    expect(tail.before).toBeGreaterThan(OLD_CALLS * 0.9);
    const oldCallsPlan = () =>
      indexScanPlan(
        db,
        sql`select count(*) from calls where organization_id = ${org.organization.id} and created_at < ${tail.from}::timestamptz`,
      );
    // Where this starts from: the full pages all-visible. A transaction of the app's background work
    // open while `vacuum` ran (on two busy cores it can be) keeps vacuum from marking them: again.
    await expect
      .poll(async () => {
        await db.execute(sql`vacuum calls`);
        return oldCallsPlan();
      })
      .toContain('"Heap Fetches":0');
    const since = new Date();

    // New calls through click to call, each ended by the simulator at once.
    const placed: string[] = [];
    for (let i = 0; i < NEW_CALLS; i++) {
      const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      placed.push(answer.body.callId);
    }
    for (const id of placed) await t.waitForCall(org, id);

    // Where each new call's row is now: none on the older, full pages.
    const [where] = rowsOf<{ old: number; fresh: number }>(
      await db.execute(sql`
        select count(*) filter (where (ctid::text::point)[0] < ${tail.page})::int as old,
               count(*) filter (where (ctid::text::point)[0] >= ${tail.page})::int as fresh
        from calls where created_at >= ${since.toISOString()}::timestamptz`),
    );
    expect(where).toEqual({ old: 0, fresh: NEW_CALLS });

    // And nothing was written on the full pages meanwhile (an insert there, its row then moved): an
    // index-only scan of their calls still reads none of them from the heap.
    const plan = await oldCallsPlan();
    expect(plan).toContain('"Node Type":"Index Only Scan"');
    expect(plan).toContain(`"Actual Rows":${tail.before}`);
    expect(plan).toContain('"Heap Fetches":0');
  });
});
