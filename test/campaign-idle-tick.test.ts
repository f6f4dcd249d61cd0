import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaignScheduler } from '../src/campaigns/scheduler.js';
import { createSchedulerRepository } from '../src/campaigns/scheduler.repository.js';
import type { Db } from '../src/db/client.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { until } from './helpers/wait.js';

/**
 * What a scheduler's tick asks the database while no campaign is under way (decision 0078): one
 * statement. The app runs in the api role, so that its own scheduler is not running; the scheduler
 * under test is built here over the app's database, with Drizzle's `execute` counted.
 */
describe('campaign scheduler, idle', () => {
  let t: TestApp;
  let org: Org;
  const statements: string[] = [];
  /** The scheduler's clock: a Monday, 10:00 UTC, inside the campaign's window. */
  const at = new Date('2030-01-07T10:00:00Z');

  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_ROLE: 'api' });
    org = await t.signup();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  function schedulerCounting() {
    const db = t.db.database.db;
    const counted = new Proxy(db, {
      get(target, property) {
        if (property === 'execute') {
          return (query: Parameters<Db['execute']>[0]) => {
            statements.push('execute');
            return target.execute(query);
          };
        }
        if (property === 'transaction') statements.push('transaction');
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const notExpected = () => {
      throw new Error('no call is placed or ended in this test');
    };
    return createCampaignScheduler({
      repository: createSchedulerRepository(counted),
      clickToCall: { acceptCampaignCalls: notExpected, startCampaignCall: notExpected },
      calls: { failStart: notExpected },
      now: () => at,
      intervalMs: 1000,
      leaseSeconds: 60,
      onError: (error) => {
        throw error;
      },
    });
  }

  it('asks one statement a tick with no campaign running and no attempt open, and all it needs once one runs', async () => {
    const scheduler = schedulerCounting();
    for (let tick = 0; tick < 3; tick++) await scheduler.tick();
    expect(statements).toEqual(['execute', 'execute', 'execute']);

    // A running campaign whose one contact is on the do-not-call list: the tick places nothing,
    // skips the contact and completes the campaign, which takes the steps the idle ticks left out.
    const phone = nextPhone();
    expect((await t.request('POST', '/v1/suppressions', { headers: org.auth, body: { phone } })).status).toBe(201);
    const agent = await t.createAgent(org, {});
    const created = await t.request('POST', '/v1/campaigns', {
      headers: org.auth,
      body: { name: 'Idle', agentId: agent.id, window: { days: ['mon'], start: '09:00', end: '17:00' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    const added = await t.request('POST', `/v1/campaigns/${id}/contacts`, { headers: org.auth, body: [{ phone }] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await t.request('POST', `/v1/campaigns/${id}/start`, { headers: org.auth })).status).toBe(200);

    statements.length = 0;
    await scheduler.tick();
    expect(statements.length).toBeGreaterThan(1);
    const campaign = await t.request('GET', `/v1/campaigns/${id}`, { headers: org.auth });
    expect(campaign.body.state).toBe('completed');
    const contacts = await t.request('GET', `/v1/campaigns/${id}/contacts`, { headers: org.auth });
    expect(contacts.body.data.map((c: { state: string; reason: string }) => [c.state, c.reason])).toEqual([
      ['skipped', 'on the do-not-call list'],
    ]);

    // Completed, the campaign leaves the scheduler nothing to do again.
    statements.length = 0;
    await scheduler.tick();
    expect(statements).toEqual(['execute']);
  });

  it('looks once in 5 s with nothing under way, at once when a campaign starts (announced on the change feed), and every interval while one runs', async () => {
    const errors: unknown[] = [];
    const repository = createSchedulerRepository(t.db.database.db);
    let passes = 0;
    const work = repository.work;
    repository.work = () => {
      passes++;
      return work();
    };
    const notExpected = () => {
      throw new Error('no call is placed in this test');
    };
    const scheduler = createCampaignScheduler({
      repository,
      clickToCall: { acceptCampaignCalls: notExpected, startCampaignCall: notExpected },
      calls: { failStart: notExpected },
      now: () => at,
      intervalMs: 50,
      leaseSeconds: 60,
      // Where the app announces a started campaign, as every worker hears it (decision 0087).
      changes: t.db.database.changes,
      onError: (error) => errors.push(error),
    });
    scheduler.start();
    try {
      // Nothing under way (the campaign above completed): one pass 50 ms after the start, then 5 s.
      await until('the first pass', () => passes === 1);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(passes).toBe(1);

      // A campaign started through the API (its window closed on the scheduler's Monday, so nothing
      // is placed): the announcement wakes the scheduler, which then looks every interval again.
      const agent = await t.createAgent(org, {});
      const created = await t.request('POST', '/v1/campaigns', {
        headers: org.auth,
        body: { name: 'Tuesdays', agentId: agent.id, window: { days: ['tue'], start: '09:00', end: '17:00' } },
      });
      const id = created.body.id;
      await t.request('POST', `/v1/campaigns/${id}/contacts`, { headers: org.auth, body: [{ phone: nextPhone() }] });
      expect((await t.request('POST', `/v1/campaigns/${id}/start`, { headers: org.auth })).status).toBe(200);
      await until('passes every interval', () => passes >= 6);
      expect(errors).toEqual([]);
      expect((await t.request('POST', `/v1/campaigns/${id}/cancel`, { headers: org.auth })).status).toBe(200);
    } finally {
      await scheduler.stop();
    }
  });
});
