import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let owner: Org;
let stranger: Org;
let agentId: string;
let inboundAgentId: string;
let strangerAgentId: string;

// Far in the future: a started campaign places no call while these tests look at its states.
const LATER = '2099-01-01T09:00:00.000Z';

const get = (path: string, org: Org = owner) => t.request('GET', path, { headers: org.auth });
const post = (path: string, body?: unknown, org: Org = owner) => t.request('POST', path, { headers: org.auth, body });
const patch = (path: string, body: unknown, org: Org = owner) => t.request('PATCH', path, { headers: org.auth, body });
const del = (path: string, org: Org = owner) => t.request('DELETE', path, { headers: org.auth });

async function campaign(body: Record<string, unknown> = {}) {
  const created = await post('/v1/campaigns', { name: 'Spring leads', agentId, startAt: LATER, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function withContacts(body: Record<string, unknown> = {}, phones = ['+14155550101', '+14155550102']) {
  const created = await campaign(body);
  const added = await post(
    `/v1/campaigns/${created.id}/contacts`,
    phones.map((phone) => ({ phone })),
  );
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  return created;
}

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signup('Owner');
  stranger = await t.signup('Stranger');
  agentId = (await t.createAgent(owner, { type: 'outbound', name: 'Caller' })).id;
  inboundAgentId = (await t.createAgent(owner, { type: 'inbound', name: 'Front desk' })).id;
  strangerAgentId = (await t.createAgent(stranger)).id;
});
afterAll(() => t.close());

describe('creating a campaign', () => {
  it('fills in the defaults and starts as a draft with no contacts', async () => {
    const created = await post('/v1/campaigns', { name: '  Spring leads  ', agentId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^cmp_/),
      name: 'Spring leads',
      agentId,
      timezone: 'UTC',
      window: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '18:00' },
      concurrency: 1,
      callsPerMinute: 10,
      retry: { noAnswer: 2, busy: 2, voicemail: 0, failed: 0, delayMinutes: 60 },
      doNotCallOutcomes: [],
      startAt: null,
      state: 'draft',
      counts: { total: 0, pending: 0, calling: 0, retrying: 0, done: 0, skipped: 0, failed: 0 },
      startedAt: null,
      endedAt: null,
    });
    expect((await get(`/v1/campaigns/${created.body.id}`)).body).toEqual(created.body);
  });

  it('keeps every setting given', async () => {
    const body = {
      name: 'Berlin',
      agentId,
      timezone: 'Europe/Berlin',
      window: { days: ['sat', 'sun'], start: '10:30', end: '23:59' },
      concurrency: 1000,
      callsPerMinute: 6000,
      retry: { noAnswer: 10, busy: 0, voicemail: 1, failed: 3, delayMinutes: 10080 },
      doNotCallOutcomes: ['DO_NOT_CALL'],
      startAt: LATER,
    };
    const created = await post('/v1/campaigns', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(body);
  });

  it.each([
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, '$.timezone'],
    ['an offset for a time zone', { timezone: '+02:00' }, '$.timezone'],
    ['a UTC offset for a time zone', { timezone: 'UTC+2' }, '$.timezone'],
    ['no days', { window: { days: [], start: '09:00', end: '18:00' } }, '$.window.days'],
    ['a day twice', { window: { days: ['mon', 'mon'], start: '09:00', end: '18:00' } }, '$.window.days[1]'],
    ['a day that is not one', { window: { days: ['monday'], start: '09:00', end: '18:00' } }, '$.window.days[0]'],
    ['a start after the end', { window: { days: ['mon'], start: '18:00', end: '09:00' } }, '$.window.end'],
    ['a start equal to the end', { window: { days: ['mon'], start: '09:00', end: '09:00' } }, '$.window.end'],
    ['an hour past 23', { window: { days: ['mon'], start: '09:00', end: '24:00' } }, '$.window.end'],
    ['a time without its colon', { window: { days: ['mon'], start: '0900', end: '18:00' } }, '$.window.start'],
    ['concurrency 0', { concurrency: 0 }, '$.concurrency'],
    ['a huge concurrency', { concurrency: 1_000_000 }, '$.concurrency'],
    ['callsPerMinute 0', { callsPerMinute: 0 }, '$.callsPerMinute'],
    [
      'a retry count over 10',
      { retry: { noAnswer: 11, busy: 2, voicemail: 0, failed: 0, delayMinutes: 60 } },
      '$.retry.noAnswer',
    ],
    [
      'a retry delay of 0',
      { retry: { noAnswer: 1, busy: 2, voicemail: 0, failed: 0, delayMinutes: 0 } },
      '$.retry.delayMinutes',
    ],
    ['a lower-case outcome', { doNotCallOutcomes: ['do_not_call'] }, '$.doNotCallOutcomes[0]'],
    ['a startAt that is not a date', { startAt: 'tomorrow' }, '$.startAt'],
    ['an unknown field', { priority: 'high' }, '$.priority'],
    ['an empty name', { name: '' }, '$.name'],
    ['a name of spaces', { name: '   ' }, '$.name'],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, '$.name'],
  ])('refuses %s with 422 naming the field, storing nothing', async (_what, change, path) => {
    const before = (await get('/v1/campaigns')).body.total;
    const refused = await post('/v1/campaigns', { name: 'Bad', agentId, ...change });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('api:validation');
    expect(refused.body.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await get('/v1/campaigns')).body.total).toBe(before);
  });

  it("refuses another organization's agent and an unknown agent as no such agent", async () => {
    for (const id of [strangerAgentId, 'agt_0000000000aaaaaaaaaaaaaaaa']) {
      const refused = await post('/v1/campaigns', { name: 'Theirs', agentId: id });
      expect(refused.status).toBe(422);
      expect(refused.body.details).toEqual([{ path: '$.agentId', message: 'no such agent' }]);
    }
  });

  it('refuses an inbound agent', async () => {
    const refused = await post('/v1/campaigns', { name: 'Inbound', agentId: inboundAgentId });
    expect(refused.status).toBe(422);
    expect(refused.body.details).toEqual([{ path: '$.agentId', message: expect.stringContaining('inbound') }]);
  });

  it('says every problem at once', async () => {
    const refused = await post('/v1/campaigns', {
      name: 'Many',
      agentId: inboundAgentId,
      timezone: 'Nowhere/City',
      window: { days: ['mon'], start: '10:00', end: '09:00' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '$.agentId',
      '$.timezone',
      '$.window.end',
    ]);
  });
});

describe('listing, changing and deleting', () => {
  it('lists newest first with a cursor, a total and a state filter', async () => {
    const org = await t.signup('Lister');
    const agent = (await t.createAgent(org)).id;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await post('/v1/campaigns', { name: `C${i}`, agentId: agent, startAt: LATER }, org)).body.id);
    }
    const first = await get('/v1/campaigns?limit=2', org);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([made[2], made[1]]);
    const second = await get(`/v1/campaigns?limit=2&cursor=${first.body.nextCursor}`, org);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual([made[0]]);
    expect(second.body.nextCursor).toBeNull();
    await post(`/v1/campaigns/${made[1]}/cancel`, undefined, org);
    const cancelled = await get('/v1/campaigns?state=cancelled', org);
    expect(cancelled.body).toMatchObject({ total: 1, data: [{ id: made[1], state: 'cancelled' }] });
    expect((await get('/v1/campaigns?state=draft', org)).body.total).toBe(2);
    expect((await get('/v1/campaigns?state=sleeping', org)).status).toBe(422);
    expect((await get('/v1/campaigns?cursor=nonsense', org)).status).toBe(422);
  });

  it('changes settings, trimming the name; the agent only while a draft', async () => {
    const created = await withContacts();
    const changed = await patch(`/v1/campaigns/${created.id}`, {
      name: ' Renamed ',
      concurrency: 5,
      window: { days: ['mon'], start: '08:00', end: '12:00' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Renamed', concurrency: 5, window: { days: ['mon'] }, state: 'draft' });
    const other = (await t.createAgent(owner, { type: 'outbound', name: 'Other' })).id;
    expect((await patch(`/v1/campaigns/${created.id}`, { agentId: other })).body.agentId).toBe(other);
    expect((await post(`/v1/campaigns/${created.id}/start`)).status).toBe(200);
    const refused = await patch(`/v1/campaigns/${created.id}`, { agentId });
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([{ path: '$.state', message: expect.stringMatching(/^is running: /) }]);
    // Its own agent again is no change.
    expect(
      (await patch(`/v1/campaigns/${created.id}`, { agentId: other, callsPerMinute: 30 })).body.callsPerMinute,
    ).toBe(30);
    expect((await patch(`/v1/campaigns/${created.id}`, { timezone: '+01:00' })).status).toBe(422);
    expect((await patch(`/v1/campaigns/${created.id}`, { state: 'completed' })).status).toBe(422);
  });

  it('refuses changing or starting a cancelled campaign with 409', async () => {
    const created = await withContacts();
    expect((await post(`/v1/campaigns/${created.id}/cancel`)).status).toBe(200);
    const refused = await patch(`/v1/campaigns/${created.id}`, { name: 'Again' });
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([{ path: '$.state', message: expect.stringMatching(/^is cancelled: /) }]);
    expect((await post(`/v1/campaigns/${created.id}/start`)).status).toBe(409);
    expect((await get(`/v1/campaigns/${created.id}`)).body.name).toBe('Spring leads');
  });

  it('deletes a draft or a cancelled campaign, refuses a running or paused one', async () => {
    const draft = await campaign();
    expect((await del(`/v1/campaigns/${draft.id}`)).status).toBe(204);
    expect((await get(`/v1/campaigns/${draft.id}`)).status).toBe(404);
    expect((await del(`/v1/campaigns/${draft.id}`)).status).toBe(404);

    const running = await withContacts();
    await post(`/v1/campaigns/${running.id}/start`);
    const refused = await del(`/v1/campaigns/${running.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([{ path: '$.state', message: 'is running: cancel it first' }]);
    await post(`/v1/campaigns/${running.id}/pause`);
    expect((await del(`/v1/campaigns/${running.id}`)).status).toBe(409);
    await post(`/v1/campaigns/${running.id}/cancel`);
    expect((await del(`/v1/campaigns/${running.id}`)).status).toBe(204);
    const listed = (await get('/v1/campaigns?limit=100')).body.data.map((c: { id: string }) => c.id);
    expect(listed).not.toContain(running.id);
  });
});

describe('budget', () => {
  it('holds at most 1,000 campaigns an organization: the next is a 409 that changes nothing; a deleted one makes room', async () => {
    const org = await t.signup();
    const agent = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Budget agent', type: 'click_to_call', simulator: {} },
    });
    const create = () =>
      t.request('POST', '/v1/campaigns', { headers: org.auth, body: { name: 'Lot', agentId: agent.body.id } });
    const ids: string[] = [];
    for (let wave = 0; wave < 40; wave++) {
      const created = await Promise.all(Array.from({ length: 25 }, create));
      for (const c of created) {
        expect(c.status, JSON.stringify(c.body)).toBe(201);
        ids.push(c.body.id);
      }
    }
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('The organization has 1,000 campaigns, the most it may have: delete one first');
    expect((await t.request('GET', '/v1/campaigns?limit=1', { headers: org.auth })).body.total).toBe(1000);
    expect((await t.request('DELETE', `/v1/campaigns/${ids[0]}`, { headers: org.auth })).status).toBe(204);
    expect((await create()).status).toBe(201);
  }, 120_000);
});

describe('states', () => {
  it('start → pause → resume → cancel, each answering the campaign', async () => {
    const created = await withContacts();
    const started = await post(`/v1/campaigns/${created.id}/start`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ state: 'running', startedAt: expect.any(String), endedAt: null });
    expect(started.body.counts.total).toBe(2);

    const paused = await post(`/v1/campaigns/${created.id}/pause`);
    expect(paused.body.state).toBe('paused');
    const resumed = await post(`/v1/campaigns/${created.id}/resume`);
    expect(resumed.body.state).toBe('running');

    const cancelled = await post(`/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      state: 'cancelled',
      endedAt: expect.any(String),
      counts: { total: 2, pending: 0, retrying: 0, skipped: 2 },
    });
    const contacts = await get(`/v1/campaigns/${created.id}/contacts`);
    expect(contacts.body.data.map((c: { state: string; reason: string }) => [c.state, c.reason])).toEqual([
      ['skipped', 'campaign cancelled'],
      ['skipped', 'campaign cancelled'],
    ]);
  });

  it('refuses starting a campaign without contacts with 409', async () => {
    const created = await campaign();
    const refused = await post(`/v1/campaigns/${created.id}/start`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/no contacts/);
    expect((await get(`/v1/campaigns/${created.id}`)).body.state).toBe('draft');
  });

  it.each([
    ['pause', 'draft'],
    ['resume', 'draft'],
    ['resume', 'running'],
    ['start', 'running'],
    ['start', 'paused'],
    ['pause', 'paused'],
    ['start', 'cancelled'],
    ['pause', 'cancelled'],
    ['resume', 'cancelled'],
    ['cancel', 'cancelled'],
  ])('refuses %s of a %s campaign with 409 naming its state', async (action, state) => {
    const created = await withContacts();
    if (state !== 'draft') await post(`/v1/campaigns/${created.id}/start`);
    if (state === 'paused') await post(`/v1/campaigns/${created.id}/pause`);
    if (state === 'cancelled') await post(`/v1/campaigns/${created.id}/cancel`);
    const before = (await get(`/v1/campaigns/${created.id}`)).body;
    expect(before.state).toBe(state);
    const refused = await post(`/v1/campaigns/${created.id}/${action}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('api:conflict');
    expect(refused.body.details).toEqual([
      { path: '$.state', message: expect.stringMatching(new RegExp(`^is ${state}: `)) },
    ]);
    const after = (await get(`/v1/campaigns/${created.id}`)).body;
    expect(after.state).toBe(state);
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('cancels a draft: its contacts are skipped', async () => {
    const created = await withContacts();
    const cancelled = await post(`/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.body).toMatchObject({ state: 'cancelled', counts: { skipped: 2, pending: 0 } });
  });
});

describe('tenancy', () => {
  it("answers 404 for another organization's campaign on every route and changes nothing", async () => {
    const created = await withContacts();
    const id = created.id;
    const tries: [string, string, unknown][] = [
      ['GET', `/v1/campaigns/${id}`, undefined],
      ['PATCH', `/v1/campaigns/${id}`, { name: 'Mine now' }],
      ['DELETE', `/v1/campaigns/${id}`, undefined],
      ['POST', `/v1/campaigns/${id}/start`, undefined],
      ['POST', `/v1/campaigns/${id}/pause`, undefined],
      ['POST', `/v1/campaigns/${id}/resume`, undefined],
      ['POST', `/v1/campaigns/${id}/cancel`, undefined],
      ['POST', `/v1/campaigns/${id}/contacts`, [{ phone: '+14155550109' }]],
      ['GET', `/v1/campaigns/${id}/contacts`, undefined],
      ['GET', `/v1/campaigns/${id}/results.csv`, undefined],
    ];
    for (const [method, path, body] of tries) {
      const response = await t.request(method, path, { headers: stranger.auth, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.code).toBe('api:not_found');
    }
    const csv = await fetch(`${t.url}/v1/campaigns/${id}/contacts`, {
      method: 'POST',
      headers: { ...stranger.auth, 'content-type': 'text/csv' },
      body: 'phone\n+14155550110\n',
    });
    expect(csv.status).toBe(404);
    const after = (await get(`/v1/campaigns/${id}`)).body;
    expect(after).toMatchObject({ name: 'Spring leads', state: 'draft', counts: { total: 2 } });
    expect((await get('/v1/campaigns', stranger)).body).toMatchObject({ total: 0, data: [] });
  });

  it('needs credentials', async () => {
    expect((await t.request('GET', '/v1/campaigns')).status).toBe(401);
    expect((await t.request('POST', '/v1/campaigns', { body: { name: 'x', agentId } })).status).toBe(401);
  });
});
