import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { indexScanPlan } from './helpers/database.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// Decision 0069: the deliveries table keeps room on each new page (fillfactor 80), as calls do
// (decision 0068). A delivery is inserted small, then claimed and settled, updates that cannot be
// HOT. With full pages, each new delivery went into a gap the free-space map knew of in an older
// page: the worker's queue was spread over a few deliveries a page, each page read and written
// again at every claim and every result. Checked here on a table as an install from before the
// migration has it: older, settled deliveries on full pages, vacuumed.
let t: TestApp;
let org: Org;
let hooks: Receiver;

const OLD_DELIVERIES = 2_000;
const NEW_CALLS = 150;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  hooks = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await hooks.close();
});

describe("the deliveries table's pages", () => {
  it('deliveries made after older, full pages were vacuumed go to new pages: the old ones stay all-visible', async () => {
    const db = t.db.database.db;
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org, {
      simulator: { delayMs: 0 },
      rateLimitPerMinute: null,
    });
    const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: org.auth,
      body: { url: `${hooks.url}/outcomes` },
    });
    expect(integration.status).toBe(201);
    const [migrated] = rowsOf<{ reloptions: string[] | null }>(
      await db.execute(sql`select reloptions from pg_class where oid = 'deliveries'::regclass`),
    );
    expect(migrated?.reloptions).toEqual(['fillfactor=80']);

    // The older deliveries, written before the migration and settled long ago: pages packed full,
    // with the gaps that rows of varied sizes leave (payloads of 1 to 20 transcript turns).
    await db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, outcome, variables,
        collected_data, transcript, created_at, started_at, ended_at, deadline_at)
      select 'call_old' || lpad(i::text, 18, '0'), ${org.organization.id}, ${agent.id}, 'simulator',
        '+1415555' || lpad(i::text, 4, '0'), 'ended', 'completed', '{}', '{}', '[]',
        now() - interval '30 days' + i * interval '1 second', now() - interval '30 days', now() - interval '30 days',
        now() - interval '29 days'
      from generate_series(1, ${OLD_DELIVERIES}::int) i`);
    await db.execute(sql`alter table deliveries set (fillfactor = 100)`);
    await db.execute(sql`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, claim, attempt_count,
        payload, created_at, updated_at)
      select 'dlv_old' || lpad(i::text, 19, '0'), ${org.organization.id}, ${integration.body.id},
        'call_old' || lpad(i::text, 18, '0'), 'msg_old' || lpad(i::text, 19, '0'), 'delivered', 1, 1,
        (select jsonb_build_object('type', 'call.ended', 'data', jsonb_build_object('transcript',
           jsonb_agg(jsonb_build_object('role', 'agent', 'text', md5(i::text || '.' || g::text)))))::text
           from generate_series(1, 1 + (i * 7) % 20) g),
        now() - interval '29 days', now() - interval '29 days'
      from generate_series(1, ${OLD_DELIVERIES}::int) i`);
    await db.execute(sql.raw(`alter table deliveries set (${migrated?.reloptions?.join(', ')})`));
    await db.execute(sql`vacuum deliveries`);
    // The older deliveries' last page is not full, and new rows may go there as to any page with
    // room: the pages before it are the full ones.
    const [tail] = rowsOf<{ page: number; last: string; before: number }>(
      await db.execute(sql`
        with placed as (select (ctid::text::point)[0]::int as page, id from deliveries)
        select max(page) as page,
               (select min(id) from placed where page = (select max(page) from placed)) as last,
               (select count(*)::int from placed where page < (select max(page) from placed)) as before
        from placed`),
    );
    if (!tail) throw new Error('no deliveries');
    expect(tail.before).toBeGreaterThan(OLD_DELIVERIES * 0.9);
    const oldDeliveriesPlan = () =>
      indexScanPlan(
        db,
        sql`select count(*) from deliveries where organization_id = ${org.organization.id} and id >= 'dlv_old' and id < ${tail.last}`,
      );
    // Where this starts from: the full pages all-visible. A transaction of the app's background work
    // open while `vacuum` ran (on two busy cores it can be) keeps vacuum from marking them: again.
    await expect
      .poll(async () => {
        await db.execute(sql`vacuum deliveries`);
        return oldDeliveriesPlan();
      })
      .toContain('"Heap Fetches":0');

    // New calls through click to call, each ended by the simulator at once, its outcome delivered.
    // Their deliveries' ids (`dlv_` and the time) sort before the older ones' (`dlv_old…`).
    const placed: string[] = [];
    for (let i = 0; i < NEW_CALLS; i++) {
      const answer = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      placed.push(answer.body.callId);
    }
    await until(
      'every outcome delivered',
      async () => {
        const [row] = rowsOf<{ delivered: number }>(
          await db.execute(sql`
            select count(*)::int as delivered from deliveries
            where integration_id = ${integration.body.id} and state = 'delivered' and id < 'dlv_old'`),
        );
        return row?.delivered === NEW_CALLS;
      },
      30_000,
    );
    expect(hooks.requests).toHaveLength(NEW_CALLS);

    // Where each new delivery's row is now, claimed and settled: none on the older, full pages.
    const [where] = rowsOf<{ old: number; fresh: number }>(
      await db.execute(sql`
        select count(*) filter (where (ctid::text::point)[0] < ${tail.page})::int as old,
               count(*) filter (where (ctid::text::point)[0] >= ${tail.page})::int as fresh
        from deliveries where integration_id = ${integration.body.id} and id < 'dlv_old'`),
    );
    expect(where).toEqual({ old: 0, fresh: NEW_CALLS });

    // And nothing was written on the full pages meanwhile (a row put there, then moved on): an
    // index-only scan of their deliveries still reads none of them from the heap.
    const plan = await oldDeliveriesPlan();
    expect(plan).toContain('"Node Type":"Index Only Scan"');
    expect(plan).toContain(`"Actual Rows":${tail.before}`);
    expect(plan).toContain('"Heap Fetches":0');
  });
});
