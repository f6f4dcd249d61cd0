import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

/**
 * The campaign scheduler (decision 0049) through the API, with a fake clock for the scheduler's
 * decisions (windows, pacing, re-dials); the simulator's calls run for real.
 */
describe('campaign scheduler', () => {
  let t: TestApp;
  let org: Org;
  let clock = new Date('2027-01-04T10:00:00Z');
  const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const ALL_DAY = { days: EVERY_DAY, start: '00:00', end: '23:59' };

  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_CAMPAIGN_INTERVAL_MS: '20' }, undefined, { now: () => clock });
    org = await t.signup();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const set = (iso: string) => {
    clock = new Date(iso);
  };
  const advance = (ms: number) => {
    clock = new Date(clock.getTime() + ms);
  };

  async function agent(simulator: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
    return t.createAgent(org, { simulator, ...extra });
  }

  async function createCampaign(agentId: string, body: Record<string, unknown> = {}) {
    const response = await t.request('POST', '/v1/campaigns', {
      headers: org.auth,
      body: { name: 'Leads', agentId, window: ALL_DAY, callsPerMinute: 6000, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  async function addContacts(campaignId: string, contacts: Record<string, unknown>[]) {
    const response = await t.request('POST', `/v1/campaigns/${campaignId}/contacts`, {
      headers: org.auth,
      body: contacts,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.errors).toEqual([]);
  }

  async function action(campaignId: string, name: 'start' | 'pause' | 'resume' | 'cancel') {
    const response = await t.request('POST', `/v1/campaigns/${campaignId}/${name}`, { headers: org.auth });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  async function campaign(campaignId: string) {
    const response = await t.request('GET', `/v1/campaigns/${campaignId}`, { headers: org.auth });
    expect(response.status).toBe(200);
    return response.body;
  }

  async function contacts(campaignId: string): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const response = await t.request('GET', `/v1/campaigns/${campaignId}/contacts?limit=100${query}`, {
        headers: org.auth,
      });
      expect(response.status).toBe(200);
      all.push(...response.body.data);
      cursor = response.body.nextCursor;
    } while (cursor);
    return all;
  }

  /** Polls until `check` returns something truthy (each poll may also assert invariants). */
  async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const byPhone = (list: any[], phone: string) => list.find((c) => c.phone === phone);
  const completed = (campaignId: string) =>
    until(`campaign ${campaignId} completed`, async () => {
      const c = await campaign(campaignId);
      return c.state === 'completed' && c;
    });

  /**
   * Proof that the scheduler made full passes after now: a campaign of one contact started now is
   * placed, settled and completed by later passes. What it did not do for another campaign by
   * then, it did not do for want of time.
   */
  async function schedulerPassed() {
    const probe = await agent();
    const c = await createCampaign(probe.id, { name: 'probe' });
    await addContacts(c.id, [{ phone: nextPhone() }]);
    await action(c.id, 'start');
    await completed(c.id);
    // And one more pass after the one that completed it.
    const again = await createCampaign(probe.id, { name: 'probe' });
    await addContacts(again.id, [{ phone: nextPhone() }]);
    await action(again.id, 'start');
    await completed(again.id);
  }

  it('calls a contact once, answered: done, and completes the campaign', async () => {
    set('2027-01-04T10:00:00Z');
    const a = await agent();
    const c = await createCampaign(a.id);
    const phone = nextPhone();
    await addContacts(c.id, [{ phone, variables: { name: 'Ada' } }]);
    await action(c.id, 'start');
    const done = await completed(c.id);
    expect(done.counts).toMatchObject({ total: 1, done: 1, pending: 0, calling: 0, retrying: 0 });
    expect(done.endedAt).not.toBeNull();
    const [contact] = await contacts(c.id);
    expect(contact).toMatchObject({ state: 'done', phone, reason: null });
    expect(contact.attempts).toHaveLength(1);
    expect(contact.attempts[0]).toMatchObject({ number: 1, state: 'ended', result: 'answered' });
    const call = await t.request('GET', `/v1/calls/${contact.attempts[0].callId}`, { headers: org.auth });
    expect(call.body).toMatchObject({ to: phone, campaignId: c.id, contactId: contact.id, status: 'ended' });
  });

  for (const [day, before, opening] of [
    ['spring-forward', '2027-03-14T12:59:00Z', '2027-03-14T13:00:00.000Z'],
    ['fall-back', '2027-11-07T13:59:00Z', '2027-11-07T14:00:00.000Z'],
  ] as const) {
    it(`places nothing before 09:00 in America/New_York on the ${day} day and starts at 09:00`, async () => {
      set(before);
      const a = await agent();
      const c = await createCampaign(a.id, {
        timezone: 'America/New_York',
        window: { days: EVERY_DAY, start: '09:00', end: '18:00' },
      });
      const phone = nextPhone();
      await addContacts(c.id, [{ phone }]);
      await action(c.id, 'start');
      // The scheduler looked at the contact and put it off to the window's opening, 09:00 local.
      const waiting = await until('the contact put off', async () => {
        const [contact] = await contacts(c.id);
        return contact.dueAt === opening && contact;
      });
      expect(waiting).toMatchObject({ state: 'pending', attempts: [] });
      await schedulerPassed();
      expect((await contacts(c.id))[0]).toMatchObject({ state: 'pending', attempts: [] });
      set(opening);
      await completed(c.id);
      expect((await contacts(c.id))[0]).toMatchObject({ state: 'done' });
    });
  }

  it("calls each contact within the window of its own time zone, else the campaign's", async () => {
    set('2027-01-04T10:00:00Z'); // Monday: 10:00 UTC, 15:30 in Kolkata, 02:00 in Los Angeles
    const a = await agent();
    const c = await createCampaign(a.id, {
      timezone: 'UTC',
      window: { days: EVERY_DAY, start: '09:00', end: '17:00' },
    });
    const [plain, kolkata, angeles] = [nextPhone(), nextPhone(), nextPhone()];
    await addContacts(c.id, [
      { phone: plain },
      { phone: kolkata, timezone: 'Asia/Kolkata' },
      { phone: angeles, timezone: 'America/Los_Angeles' },
    ]);
    await action(c.id, 'start');
    const list = await until('two called, one put off', async () => {
      const list = await contacts(c.id);
      return byPhone(list, plain).state === 'done' &&
        byPhone(list, kolkata).state === 'done' &&
        byPhone(list, angeles).dueAt === '2027-01-04T17:00:00.000Z'
        ? list
        : undefined;
    });
    expect(byPhone(list, angeles)).toMatchObject({ state: 'pending', attempts: [] });
    set('2027-01-04T17:00:00Z'); // 09:00 in Los Angeles, 17:00 UTC (the campaign's window has closed)
    await completed(c.id);
  });

  it('re-dials no answer after delayMinutes, then fails: "no answer after 3 attempts"', async () => {
    set('2027-01-05T10:00:00Z');
    const a = await agent({ answer: 'no_answer' });
    const c = await createCampaign(a.id, {
      retry: { noAnswer: 2, busy: 0, voicemail: 0, failed: 0, delayMinutes: 5 },
    });
    const phone = nextPhone();
    await addContacts(c.id, [{ phone }]);
    await action(c.id, 'start');
    for (let attempt = 1; attempt <= 2; attempt++) {
      const contact = await until(`attempt ${attempt} settled`, async () => {
        const [contact] = await contacts(c.id);
        // (The contact and its attempts are two reads: both must show the settled attempt.)
        return (
          contact.state === 'retrying' &&
          contact.attempts[attempt - 1]?.state === 'ended' &&
          contact.dueAt === new Date(clock.getTime() + 5 * 60_000).toISOString() &&
          contact
        );
      });
      expect(contact.attempts).toHaveLength(attempt);
      expect(contact.attempts[attempt - 1]).toMatchObject({ number: attempt, state: 'ended', result: 'noAnswer' });
      // Not before the delay.
      await schedulerPassed();
      expect((await contacts(c.id))[0].attempts).toHaveLength(attempt);
      advance(5 * 60_000);
    }
    await completed(c.id);
    const [contact] = await contacts(c.id);
    expect(contact).toMatchObject({ state: 'failed', reason: 'no answer after 3 attempts' });
    expect(contact.attempts.map((x: any) => [x.number, x.result])).toEqual([
      [1, 'noAnswer'],
      [2, 'noAnswer'],
      [3, 'noAnswer'],
    ]);
    expect(new Set(contact.attempts.map((x: any) => x.callId)).size).toBe(3);
  });

  it('follows the retry policy by result: busy and voicemail', async () => {
    set('2027-01-05T12:00:00Z');
    const busyAgent = await agent({ answer: 'busy' });
    const busy = await createCampaign(busyAgent.id, {
      retry: { noAnswer: 2, busy: 1, voicemail: 0, failed: 0, delayMinutes: 1 },
    });
    await addContacts(busy.id, [{ phone: nextPhone() }]);
    await action(busy.id, 'start');
    await until('busy retried once', async () => (await contacts(busy.id))[0].state === 'retrying');
    advance(60_000);
    await completed(busy.id);
    expect((await contacts(busy.id))[0]).toMatchObject({ state: 'failed', reason: 'busy after 2 attempts' });

    const voicemailAgent = await agent({ answer: 'voicemail' });
    const voicemail = await createCampaign(voicemailAgent.id);
    await addContacts(voicemail.id, [{ phone: nextPhone() }]);
    await action(voicemail.id, 'start');
    await completed(voicemail.id);
    const [contact] = await contacts(voicemail.id);
    expect(contact).toMatchObject({ state: 'failed', reason: 'voicemail after 1 attempt' });
    expect(contact.attempts).toHaveLength(1);
    expect(contact.attempts[0].result).toBe('voicemail');
  });

  it('never places more than callsPerMinute a minute', async () => {
    set('2027-01-06T10:00:00Z');
    const a = await agent();
    const c = await createCampaign(a.id, { callsPerMinute: 2, concurrency: 10 });
    await addContacts(
      c.id,
      Array.from({ length: 5 }, () => ({ phone: nextPhone() })),
    );
    await action(c.id, 'start');
    const called = async () => (await contacts(c.id)).filter((x) => x.attempts.length > 0).length;
    await until('the first call', async () => (await called()) >= 1);
    await schedulerPassed();
    expect(await called()).toBe(1);
    advance(30_000);
    await until('the second call', async () => (await called()) >= 2);
    await schedulerPassed();
    expect(await called()).toBe(2);
    // A minute idle saves up no calls: one second's worth at most (here one call), then one per 30 s.
    advance(60_000);
    await until('the third call', async () => (await called()) >= 3);
    await schedulerPassed();
    expect(await called()).toBe(3);
    advance(30_000);
    await until('the fourth call', async () => (await called()) >= 4);
    await schedulerPassed();
    expect(await called()).toBe(4);
    advance(30_000);
    await completed(c.id);
  });

  it('never has more than `concurrency` calls in progress', async () => {
    set('2027-01-06T12:00:00Z');
    const a = await agent({ delayMs: 300 });
    const c = await createCampaign(a.id, { concurrency: 3 });
    await addContacts(
      c.id,
      Array.from({ length: 10 }, () => ({ phone: nextPhone() })),
    );
    await action(c.id, 'start');
    let most = 0;
    const final = await until(
      'the campaign completed',
      async () => {
        const [view, calls] = await Promise.all([
          campaign(c.id),
          t.request('GET', `/v1/calls?agentId=${a.id}&limit=100`, { headers: org.auth }),
        ]);
        const open = calls.body.data.filter((call: any) => call.status !== 'ended').length;
        most = Math.max(most, open, view.counts.calling);
        expect(open).toBeLessThanOrEqual(3);
        expect(view.counts.calling).toBeLessThanOrEqual(3);
        return view.state === 'completed' && view;
      },
      30_000,
    );
    expect(final.counts.done).toBe(10);
    expect(most).toBeGreaterThan(1);
    for (const contact of await contacts(c.id)) expect(contact.attempts).toHaveLength(1);
  });

  it("shares the agent's maxConcurrentCalls with click to call", async () => {
    set('2027-01-06T14:00:00Z');
    const {
      agent: a,
      apiToken,
      apiSecret,
    } = await t.agentWithCredentials(org, {
      simulator: { delayMs: 400 },
      maxConcurrentCalls: 2,
    });
    // A click-to-call call holds one of the two.
    const clicked = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(clicked.status).toBe(200);
    const c = await createCampaign(a.id, { concurrency: 5 });
    await addContacts(
      c.id,
      Array.from({ length: 6 }, () => ({ phone: nextPhone() })),
    );
    await action(c.id, 'start');
    await until(
      'the campaign completed',
      async () => {
        const [view, calls] = await Promise.all([
          campaign(c.id),
          t.request('GET', `/v1/calls?agentId=${a.id}&limit=100`, { headers: org.auth }),
        ]);
        expect(calls.body.data.filter((call: any) => call.status !== 'ended').length).toBeLessThanOrEqual(2);
        return view.state === 'completed' && view;
      },
      30_000,
    );
    expect((await campaign(c.id)).counts.done).toBe(6);
  });

  it('pause stops new calls, resume goes on; cancel skips the rest while the call under way finishes', async () => {
    set('2027-01-07T10:00:00Z');
    const a = await agent({ delayMs: 500 });
    const c = await createCampaign(a.id, { concurrency: 1 });
    await addContacts(
      c.id,
      Array.from({ length: 3 }, () => ({ phone: nextPhone() })),
    );
    await action(c.id, 'start');
    await until('a call in progress', async () => (await campaign(c.id)).counts.calling === 1);
    await action(c.id, 'pause');
    await until('that call done', async () => (await campaign(c.id)).counts.done === 1);
    await schedulerPassed();
    expect((await campaign(c.id)).counts).toMatchObject({ done: 1, pending: 2, calling: 0 });
    await action(c.id, 'resume');
    await until('the next call', async () => (await campaign(c.id)).counts.calling === 1);
    await action(c.id, 'cancel');
    const cancelled = await until('the call under way done', async () => {
      const view = await campaign(c.id);
      return view.counts.done === 2 && view;
    });
    expect(cancelled).toMatchObject({ state: 'cancelled' });
    expect(cancelled.counts).toMatchObject({ done: 2, skipped: 1, pending: 0, calling: 0 });
    const skipped = (await contacts(c.id)).find((x) => x.state === 'skipped');
    expect(skipped).toMatchObject({ reason: 'campaign cancelled', attempts: [] });
  });

  it('skips a contact on the do-not-call list', async () => {
    set('2027-01-07T12:00:00Z');
    const listed = nextPhone();
    const added = await t.request('POST', '/v1/suppressions', { headers: org.auth, body: { phone: listed } });
    expect(added.status).toBe(201);
    const a = await agent();
    const c = await createCampaign(a.id);
    const other = nextPhone();
    await addContacts(c.id, [{ phone: listed }, { phone: other }]);
    await action(c.id, 'start');
    await completed(c.id);
    const list = await contacts(c.id);
    expect(byPhone(list, listed)).toMatchObject({ state: 'skipped', reason: 'on the do-not-call list', attempts: [] });
    expect(byPhone(list, other)).toMatchObject({ state: 'done' });
  });

  it('tries a refused start again a minute later, and fails the contact after three refusals', async () => {
    set('2027-01-08T10:00:00Z');
    const a = await agent({ answer: 'fail_to_start' });
    const c = await createCampaign(a.id);
    await addContacts(c.id, [{ phone: nextPhone() }]);
    await action(c.id, 'start');
    for (let refusal = 1; refusal <= 2; refusal++) {
      const contact = await until(`refusal ${refusal}`, async () => {
        const [contact] = await contacts(c.id);
        // (The contact and its attempts are two reads: both must show the refusal.)
        return (
          contact.state === 'pending' &&
          contact.attempts[refusal - 1]?.state === 'not_started' &&
          contact.dueAt === new Date(clock.getTime() + 60_000).toISOString() &&
          contact
        );
      });
      expect(contact.attempts).toHaveLength(refusal);
      expect(contact.attempts[refusal - 1]).toMatchObject({ number: refusal, state: 'not_started' });
      advance(60_000);
    }
    await completed(c.id);
    const [contact] = await contacts(c.id);
    expect(contact.state).toBe('failed');
    expect(contact.reason).toMatch(/^the provider refused the call: /);
    expect(contact.attempts.map((x: any) => x.state)).toEqual(['not_started', 'not_started', 'not_started']);
    for (const attempt of contact.attempts) {
      const call = await t.request('GET', `/v1/calls/${attempt.callId}`, { headers: org.auth });
      expect(call.body).toMatchObject({ status: 'ended', outcome: 'FAILED', endedReason: 'failed_to_start' });
    }
  });

  it('puts a contact off a minute while its number has a call in progress (click to call)', async () => {
    set('2027-01-08T12:00:00Z');
    const { agent: a, apiToken, apiSecret } = await t.agentWithCredentials(org, { simulator: { delayMs: 1500 } });
    const phone = nextPhone();
    const clicked = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(clicked.status).toBe(200);
    const c = await createCampaign(a.id);
    await addContacts(c.id, [{ phone }]);
    await action(c.id, 'start');
    const contact = await until('the contact put off', async () => {
      const [contact] = await contacts(c.id);
      return contact.dueAt === '2027-01-08T12:01:00.000Z' && contact;
    });
    expect(contact).toMatchObject({ state: 'pending', attempts: [] });
    await t.waitForCall(org, clicked.body.callId);
    advance(60_000);
    await completed(c.id);
    expect((await contacts(c.id))[0]).toMatchObject({ state: 'done' });
  });

  it('places nothing while its agent is disabled, and goes on once it is enabled', async () => {
    set('2027-01-07T14:00:00Z');
    const a = await agent();
    const c = await createCampaign(a.id);
    await addContacts(c.id, [{ phone: nextPhone() }]);
    const off = await t.request('PATCH', `/v1/agents/${a.id}`, { headers: org.auth, body: { enabled: false } });
    expect(off.status).toBe(200);
    await action(c.id, 'start');
    await schedulerPassed();
    expect(await campaign(c.id)).toMatchObject({ state: 'running', counts: { pending: 1, calling: 0 } });
    const on = await t.request('PATCH', `/v1/agents/${a.id}`, { headers: org.auth, body: { enabled: true } });
    expect(on.status).toBe(200);
    // The disabled agent is looked at again after 30 s of the scheduler's clock.
    advance(30_000);
    await completed(c.id);
  });
});
