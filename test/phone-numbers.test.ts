import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISH_DUE_TOPIC } from '../src/providers/publish-due.js';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let owner: Org;
let stranger: Org;
let vapi: FakeVapi;
let retell: FakeRetell;
const ids: Record<string, string> = {};

const VAPI_NUMBERS = ['+14155550100', '+14155550101', '+14155550102', '+14155550103', '+14155550104'];
const RETELL_NUMBERS = ['+14155550200', '+14155550201'];

const get = async (path: string, org: Org = owner) => t.request('GET', path, { headers: org.auth });
const post = (path: string, body: unknown, org: Org = owner) => t.request('POST', path, { headers: org.auth, body });
const patch = (path: string, body: unknown, org: Org = owner) => t.request('PATCH', path, { headers: org.auth, body });
const del = (path: string, org: Org = owner) => t.request('DELETE', path, { headers: org.auth });

async function agent(body: Record<string, unknown>) {
  const created = await post('/v1/agents', { name: 'Front desk', type: 'inbound', prompt: 'Help.', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** The agent once published: its id at the provider. */
const published = (agentId: string | undefined) =>
  until(`agent ${agentId} published`, async () => {
    const view = (await get(`/v1/agents/${agentId}`)).body;
    return view.providerSync.state === 'synced' && view.providerSync.providerAgentId
      ? (view.providerSync.providerAgentId as string)
      : undefined;
  });

/** The number once its binding is synced (or has reached `state`). */
const numberIn = (id: string | undefined, state = 'synced') =>
  until(`phone number ${id} ${state}`, async () => {
    const view = (await get(`/v1/phone-numbers/${id}`)).body;
    return view.providerSync.state === state ? view : undefined;
  });

const vapiNumber = (id: string) => vapi.phoneNumbers.find((n) => n.id === id);

beforeAll(async () => {
  vapi = await startFakeVapi({ phoneNumbers: VAPI_NUMBERS });
  retell = await startFakeRetell({ phoneNumbers: RETELL_NUMBERS });
  // The worker's safety net an hour away: every publish below comes from the announcement of the
  // change that made it due, or from its retry's due time (decision 0086), never from a poll.
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '3600000' });
  owner = await t.signup('Owner');
  stranger = await t.signup('Stranger');
  const vapiCredential = await post('/v1/provider-credentials', {
    provider: 'vapi',
    name: 'Vapi',
    apiKey: vapi.apiKey,
    webhookSecret: `whs_${randomBytes(16).toString('hex')}`,
    baseUrl: vapi.url,
  });
  ids.vapiCredential = vapiCredential.body.id;
  const retellCredential = await post('/v1/provider-credentials', {
    provider: 'retell',
    name: 'Retell',
    apiKey: retell.apiKey,
    baseUrl: retell.url,
  });
  ids.retellCredential = retellCredential.body.id;
  const onVapi = { provider: 'vapi', providerCredentialId: ids.vapiCredential };
  ids.frontDesk = await agent({ name: 'Front desk', ...onVapi });
  ids.nightDesk = await agent({ name: 'Night desk', ...onVapi });
  ids.seller = await agent({ name: 'Seller', type: 'click_to_call', fromNumber: '+14155550100', ...onVapi });
  ids.retellDesk = await agent({ name: 'Retell desk', provider: 'retell', providerCredentialId: ids.retellCredential });
  ids.simulatorDesk = await agent({ name: 'Simulated desk' });
  for (const id of [ids.frontDesk, ids.nightDesk, ids.seller, ids.retellDesk]) await published(id as string);
});
afterAll(async () => {
  await t.close();
  await vapi.close();
  await retell.close();
});

describe('importing numbers', () => {
  it("lists the provider account's numbers to import from, Vapi's and Retell's", async () => {
    const fromVapi = await get(`/v1/provider-credentials/${ids.vapiCredential}/phone-numbers`);
    expect(fromVapi.status).toBe(200);
    expect(fromVapi.body.data).toEqual(
      VAPI_NUMBERS.map((number, i) => ({ number, providerNumberId: `pn_${i}`, name: null, phoneNumberId: null })),
    );
    const fromRetell = await get(`/v1/provider-credentials/${ids.retellCredential}/phone-numbers`);
    expect(fromRetell.body.data).toEqual(
      RETELL_NUMBERS.map((number) => ({
        number,
        providerNumberId: number,
        name: `Line ${number.slice(-4)}`,
        phoneNumberId: null,
      })),
    );
    expect([...vapi.violations, ...retell.violations].join('\n')).toBe('');
  });

  it('answers 409 when the provider cannot list its numbers', async () => {
    vapi.failNext(1);
    const refused = await get(`/v1/provider-credentials/${ids.vapiCredential}/phone-numbers`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/did not list its phone numbers: HTTP 500/);
  });

  it('imports a number without an agent: nothing is told to the provider, and the list shows it as ours', async () => {
    const before = vapi.requests.length;
    const created = await post('/v1/phone-numbers', {
      number: '+14155550104',
      provider: 'vapi',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_4',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^phn_/),
      number: '+14155550104',
      provider: 'vapi',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_4',
      agentId: null,
      providerSync: { state: 'synced', error: null, providerAgentId: null },
    });
    ids.unbound = created.body.id;
    const listed = await get(`/v1/provider-credentials/${ids.vapiCredential}/phone-numbers`);
    expect(listed.body.data.find((n: any) => n.providerNumberId === 'pn_4').phoneNumberId).toBe(created.body.id);
    expect((await get('/v1/phone-numbers')).body.data.map((n: any) => n.id)).toContain(created.body.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(vapi.requests.slice(before).filter((r) => r.route.includes('phone-number/'))).toEqual([]);
  });

  it('refuses what is not valid with a precise 422 and a foreign or unknown credential or agent with 404, changing nothing', async () => {
    const body = { number: '+14155550103', providerCredentialId: ids.vapiCredential, providerNumberId: 'pn_3' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...body, number: '4155550103' }, 422, '$.number'],
      [{ ...body, number: '+1415555010' }, 422, '$.number'],
      [{ ...body, provider: 'retell' }, 422, '$.provider'],
      [{ ...body, provider: 'simulator' }, 422, '$.provider'],
      [{ ...body, extra: 1 }, 422, '$.extra'],
      [{ ...body, providerNumberId: '' }, 422, '$.providerNumberId'],
      [{ ...body, providerNumberId: 'x'.repeat(201) }, 422, '$.providerNumberId'],
      [{ ...body, agentId: ids.seller }, 422, '$.agentId'],
      [{ ...body, agentId: ids.retellDesk }, 422, '$.agentId'],
      [{ ...body, agentId: ids.simulatorDesk }, 422, '$.agentId'],
      [{ ...body, providerCredentialId: 'pcr_00000000000000000000000000' }, 404, '$.providerCredentialId'],
      [{ ...body, agentId: 'agt_00000000000000000000000000' }, 404, '$.agentId'],
    ];
    for (const [sent, status, path] of cases) {
      const refused = await post('/v1/phone-numbers', sent);
      expect(refused.status, JSON.stringify(sent)).toBe(status);
      expect(refused.body.details.map((d: any) => d.path)).toEqual([path]);
    }
    // Another organization's credential and agent are not the stranger's to use.
    const foreignCredential = await post('/v1/phone-numbers', body, stranger);
    expect(foreignCredential.status).toBe(404);
    expect(foreignCredential.body.details[0].path).toBe('$.providerCredentialId');
    const strangers = await post(
      '/v1/provider-credentials',
      {
        provider: 'vapi',
        name: 'Stranger Vapi',
        apiKey: vapi.apiKey,
        baseUrl: vapi.url,
      },
      stranger,
    );
    const foreignAgent = await post(
      '/v1/phone-numbers',
      { ...body, providerCredentialId: strangers.body.id, agentId: ids.frontDesk },
      stranger,
    );
    expect(foreignAgent.status).toBe(404);
    expect(foreignAgent.body.details[0].path).toBe('$.agentId');
    expect((await get('/v1/phone-numbers', stranger)).body.data).toEqual([]);
    expect((await get('/v1/phone-numbers')).body.data.map((n: any) => n.number)).not.toContain('+14155550103');
  });

  it('refuses importing a provider number twice with 409', async () => {
    const again = await post('/v1/phone-numbers', {
      number: '+14155550104',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_4',
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'api:conflict',
      details: [{ path: '$.providerNumberId', message: `is imported already as phone number ${ids.unbound}` }],
    });
  });
});

describe('binding numbers to inbound agents', () => {
  it('publishes a binding to Vapi (the assistant on the number), rebinds it, and unbinds it', async () => {
    const frontDesk = await published(ids.frontDesk);
    const nightDesk = await published(ids.nightDesk);
    const created = await post('/v1/phone-numbers', {
      number: '+14155550100',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_0',
      agentId: ids.frontDesk,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agentId: ids.frontDesk, providerSync: { state: 'pending' } });
    ids.bound = created.body.id;
    expect((await numberIn(ids.bound)).providerSync).toEqual({
      state: 'synced',
      error: null,
      providerAgentId: frontDesk,
    });
    expect(vapiNumber('pn_0')?.assistantId).toBe(frontDesk);

    const rebound = await patch(`/v1/phone-numbers/${ids.bound}`, { agentId: ids.nightDesk });
    expect(rebound.status).toBe(200);
    expect(rebound.body.agentId).toBe(ids.nightDesk);
    await until('rebound at Vapi', () => vapiNumber('pn_0')?.assistantId === nightDesk);
    expect((await numberIn(ids.bound)).providerSync.providerAgentId).toBe(nightDesk);

    const unbound = await patch(`/v1/phone-numbers/${ids.bound}`, { agentId: null });
    expect(unbound.body.agentId).toBe(null);
    await until('unbound at Vapi', () => vapiNumber('pn_0')?.assistantId === null);
    expect((await numberIn(ids.bound)).providerSync).toEqual({ state: 'synced', error: null, providerAgentId: null });
    // Every PATCH named the number's own provider, as Vapi's update wants.
    const updates = vapi.requests.filter((r) => r.route === 'PATCH /phone-number/:id');
    expect(updates.map((r) => r.body)).toEqual([
      { provider: 'twilio', assistantId: frontDesk },
      { provider: 'twilio', assistantId: nightDesk },
      { provider: 'twilio', assistantId: null },
    ]);
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('publishes a binding to Retell (inbound_agent_id), and deleting the number unpublishes it', async () => {
    const retellDesk = await published(ids.retellDesk);
    const created = await post('/v1/phone-numbers', {
      number: '+14155550200',
      provider: 'retell',
      providerCredentialId: ids.retellCredential,
      providerNumberId: '+14155550200',
      agentId: ids.retellDesk,
    });
    expect(created.status).toBe(201);
    expect((await numberIn(created.body.id)).providerSync.providerAgentId).toBe(retellDesk);
    expect(retell.phoneNumbers.get('+14155550200')).toMatchObject({
      inbound_agent_id: retellDesk,
      inbound_agents: [{ agent_id: retellDesk, weight: 1 }],
    });
    expect((await del(`/v1/phone-numbers/${created.body.id}`)).status).toBe(204);
    expect((await get(`/v1/phone-numbers/${created.body.id}`)).status).toBe(404);
    await until('unbound at Retell', () => retell.phoneNumbers.get('+14155550200')?.inbound_agent_id === null);
    expect(retell.phoneNumbers.get('+14155550200')?.inbound_agents).toBe(null);
    expect(retell.violations.join('\n')).toBe('');
    // Gone for good once unbound: the number can be imported again.
    const again = await until('the deleted number gone', async () => {
      const imported = await post('/v1/phone-numbers', {
        number: '+14155550200',
        providerCredentialId: ids.retellCredential,
        providerNumberId: '+14155550200',
      });
      return imported.status === 201 ? imported : undefined;
    });
    expect((await del(`/v1/phone-numbers/${again.body.id}`)).status).toBe(204);
  });

  it('deleting a number never told to its provider removes it at once, waking no publishing job; a bound one wakes them', async () => {
    // Every announcement that something is due for publishing, from any process (decision 0086).
    const announced: string[] = [];
    t.db.database.changes.subscribe(
      PUBLISH_DUE_TOPIC,
      (key) => announced.push(key),
      () => {},
    );
    const unbound = await post('/v1/phone-numbers', {
      number: '+14155550103',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_3',
    });
    expect(unbound.body.providerSync.state).toBe('synced');
    expect((await del(`/v1/phone-numbers/${unbound.body.id}`)).status).toBe(204);
    expect(await t.db.database.changes.caughtUp()).toBe(true);
    expect(announced).toEqual([]);
    expect((await get(`/v1/phone-numbers/${unbound.body.id}`)).status).toBe(404);

    const bound = await post('/v1/phone-numbers', {
      number: '+14155550103',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_3',
      agentId: ids.frontDesk,
    });
    await numberIn(bound.body.id);
    announced.length = 0;
    expect((await del(`/v1/phone-numbers/${bound.body.id}`)).status).toBe(204);
    await until('the publishing jobs woken', () => announced.length > 0);
    await until('unbound at Vapi', () => vapiNumber('pn_3')?.assistantId === null);
  });

  it('deleting a Vapi number bound to an agent unpublishes it', async () => {
    const frontDesk = await published(ids.frontDesk);
    const created = await post('/v1/phone-numbers', {
      number: '+14155550101',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_1',
      agentId: ids.frontDesk,
    });
    await until('bound at Vapi', () => vapiNumber('pn_1')?.assistantId === frontDesk);
    expect((await del(`/v1/phone-numbers/${created.body.id}`)).status).toBe(204);
    await until('unbound at Vapi', () => vapiNumber('pn_1')?.assistantId === null);
    expect((await get('/v1/phone-numbers')).body.data.map((n: any) => n.id)).not.toContain(created.body.id);
    expect((await del(`/v1/phone-numbers/${created.body.id}`)).status).toBe(404);
  });

  it('refuses a number bound to two agents: a second row of the same number cannot be bound while one is', async () => {
    const first = await patch(`/v1/phone-numbers/${ids.bound}`, { agentId: ids.frontDesk });
    expect(first.status).toBe(200);
    // The same number imported again, from the Retell account this time.
    const refused = await post('/v1/phone-numbers', {
      number: '+14155550100',
      providerCredentialId: ids.retellCredential,
      providerNumberId: '+14155550100',
      agentId: ids.retellDesk,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'api:conflict',
      details: [{ path: '$.agentId', message: expect.stringContaining(`${ids.bound}`) }],
    });
    const unboundCopy = await post('/v1/phone-numbers', {
      number: '+14155550100',
      providerCredentialId: ids.retellCredential,
      providerNumberId: '+14155550100',
    });
    expect(unboundCopy.status).toBe(201);
    const bindCopy = await patch(`/v1/phone-numbers/${unboundCopy.body.id}`, { agentId: ids.retellDesk });
    expect(bindCopy.status).toBe(409);
    expect((await get(`/v1/phone-numbers/${unboundCopy.body.id}`)).body.agentId).toBe(null);
    // Unbound in the first place, the number can serve the other agent.
    expect((await patch(`/v1/phone-numbers/${ids.bound}`, { agentId: null })).status).toBe(200);
    expect((await patch(`/v1/phone-numbers/${unboundCopy.body.id}`, { agentId: ids.retellDesk })).status).toBe(200);
    expect((await patch(`/v1/phone-numbers/${ids.bound}`, { agentId: ids.frontDesk })).status).toBe(409);
    expect((await del(`/v1/phone-numbers/${unboundCopy.body.id}`)).status).toBe(204);
    expect((await patch(`/v1/phone-numbers/${ids.bound}`, { agentId: ids.frontDesk })).status).toBe(200);
    const frontDesk = await published(ids.frontDesk);
    await until('bound again at Vapi', () => vapiNumber('pn_0')?.assistantId === frontDesk);
    await numberIn(ids.bound);
  });

  it('refuses binding an agent that cannot answer the number, with 422 naming agentId', async () => {
    for (const agentId of [ids.seller, ids.retellDesk, ids.simulatorDesk]) {
      const refused = await patch(`/v1/phone-numbers/${ids.unbound}`, { agentId });
      expect(refused.status).toBe(422);
      expect(refused.body.details.map((d: any) => d.path)).toEqual(['$.agentId']);
    }
    const unknown = await patch(`/v1/phone-numbers/${ids.unbound}`, { agentId: 'agt_00000000000000000000000000' });
    expect(unknown.status).toBe(404);
    const changeNumber = await patch(`/v1/phone-numbers/${ids.unbound}`, { number: '+14155550109' });
    expect(changeNumber.status).toBe(422);
    expect(changeNumber.body.details).toEqual([{ path: '$.number', message: 'is not a known field' }]);
    expect((await get(`/v1/phone-numbers/${ids.unbound}`)).body).toMatchObject({
      number: '+14155550104',
      agentId: null,
    });
  });

  it('binds only once the agent is published: it waits, says so, and binds when the agent is', async () => {
    // The agent's first publication fails (retried 5 s later), so the number waits for it.
    vapi.failNext(1);
    const lateDesk = await agent({ name: 'Late desk', provider: 'vapi', providerCredentialId: ids.vapiCredential });
    await until('the first publication failed', async () => {
      const view = (await get(`/v1/agents/${lateDesk}`)).body;
      return view.providerSync.error ? view : undefined;
    });
    const created = await post('/v1/phone-numbers', {
      number: '+14155550102',
      providerCredentialId: ids.vapiCredential,
      providerNumberId: 'pn_2',
      agentId: lateDesk,
    });
    const waiting = await until('the number waiting', async () => {
      const view = (await get(`/v1/phone-numbers/${created.body.id}`)).body;
      return view.providerSync.error ? view : undefined;
    });
    expect(waiting.providerSync).toEqual({
      state: 'pending',
      error: 'Waiting for the agent to be published to vapi',
      providerAgentId: null,
    });
    expect(vapiNumber('pn_2')?.assistantId ?? null).toBe(null);
    const assistantId = await published(lateDesk);
    await until('bound once the agent is published', () => vapiNumber('pn_2')?.assistantId === assistantId);
    expect((await numberIn(created.body.id)).providerSync.providerAgentId).toBe(assistantId);
    ids.lateNumber = created.body.id;
    ids.lateDesk = lateDesk;
  }, 20_000);

  it('unbinds a number whose agent stops being inbound, says why, and binds it again when it is', async () => {
    const assistantId = await published(ids.lateDesk);
    expect((await patch(`/v1/agents/${ids.lateDesk}`, { type: 'outbound' })).status).toBe(200);
    const failed = await numberIn(ids.lateNumber, 'failed');
    expect(failed.providerSync).toEqual({
      state: 'failed',
      error: 'The agent is not of type inbound',
      providerAgentId: null,
    });
    expect(vapiNumber('pn_2')?.assistantId).toBe(null);
    expect((await patch(`/v1/agents/${ids.lateDesk}`, { type: 'inbound' })).status).toBe(200);
    await until('bound again', () => vapiNumber('pn_2')?.assistantId === assistantId);
    expect((await numberIn(ids.lateNumber)).providerSync.providerAgentId).toBe(assistantId);
  });

  it("shows the provider's error and retries a binding that failed", async () => {
    // Only the binding's request fails: the once-a-minute comparison may reach Vapi meanwhile.
    vapi.failNext(1, 'PATCH /phone-number/:id');
    const changed = await patch(`/v1/phone-numbers/${ids.lateNumber}`, { agentId: ids.frontDesk });
    expect(changed.status).toBe(200);
    const failing = await until('the failure shown', async () => {
      const view = (await get(`/v1/phone-numbers/${ids.lateNumber}`)).body;
      return view.providerSync.error ? view : undefined;
    });
    expect(failing.providerSync.state).toBe('pending');
    expect(failing.providerSync.error).toMatch(/500/);
    const frontDesk = await published(ids.frontDesk);
    await until('bound on the retry', () => vapiNumber('pn_2')?.assistantId === frontDesk, 15_000);
    expect((await numberIn(ids.lateNumber)).providerSync).toEqual({
      state: 'synced',
      error: null,
      providerAgentId: frontDesk,
    });
  }, 40_000);
});

describe('tenancy', () => {
  it("answers another organization's number, credential and agent with 404, as ids that never existed, and changes nothing", async () => {
    const never = 'phn_00000000000000000000000000';
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/phone-numbers/${ids.bound}`],
      ['PATCH', `/v1/phone-numbers/${ids.bound}`, { agentId: null }],
      ['DELETE', `/v1/phone-numbers/${ids.bound}`],
      ['GET', `/v1/provider-credentials/${ids.vapiCredential}/phone-numbers`],
      ['POST', `/v1/agents/${ids.frontDesk}/simulate-inbound`, { from: '+14155550199' }],
    ];
    for (const [method, path, body] of routes) {
      const answer = await t.request(method, path, { headers: stranger.auth, body });
      expect(answer.status, `${method} ${path}`).toBe(404);
      const id = path.split('/')[3] as string;
      const made = `${id.split('_')[0]}_${never.split('_')[1]}`;
      const unknown = await t.request(method, path.replace(id, made), { headers: stranger.auth, body });
      const strip = (b: any) => JSON.parse(JSON.stringify({ ...b, requestId: undefined }).replaceAll(made, id));
      expect(strip(answer.body)).toEqual(strip(unknown.body));
    }
    const list = await get('/v1/phone-numbers', stranger);
    expect(list.body.data).toEqual([]);
    expect((await get(`/v1/phone-numbers/${ids.bound}`)).body.agentId).toBe(ids.frontDesk);
  });

  it('needs an API key or a session on every route', async () => {
    const imported = { number: '+14155550103', providerCredentialId: ids.vapiCredential, providerNumberId: 'pn_3' };
    for (const [method, path, body] of [
      ['GET', '/v1/phone-numbers'],
      ['POST', '/v1/phone-numbers', imported],
      ['GET', `/v1/phone-numbers/${ids.bound}`],
      ['PATCH', `/v1/phone-numbers/${ids.bound}`, { agentId: null }],
      ['DELETE', `/v1/phone-numbers/${ids.bound}`],
      ['GET', `/v1/provider-credentials/${ids.vapiCredential}/phone-numbers`],
      ['POST', `/v1/agents/${ids.frontDesk}/simulate-inbound`, { from: '+14155550199' }],
    ] as const) {
      expect((await t.request(method, path, { body })).status, `${method} ${path}`).toBe(401);
    }
    expect((await get(`/v1/phone-numbers/${ids.bound}`)).body.agentId).toBe(ids.frontDesk);
  });

  it('pages the list, newest first, and filters it by agent', async () => {
    const page = await get('/v1/phone-numbers?limit=1');
    expect(page.body.data).toHaveLength(1);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const next = await get(`/v1/phone-numbers?limit=1&cursor=${page.body.nextCursor}`);
    expect(next.body.data[0].id < page.body.data[0].id).toBe(true);
    const ofAgent = await get(`/v1/phone-numbers?agentId=${ids.frontDesk}`);
    expect(ofAgent.body.data.map((n: any) => n.agentId)).toEqual(ofAgent.body.data.map(() => ids.frontDesk));
    expect(ofAgent.body.data.length).toBeGreaterThan(0);
  });
});
