import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let owner: Org;
let stranger: Org;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signup('Owner');
  stranger = await t.signup('Stranger');
  const agent = await t.createAgent(owner);
  ids.agent = agent.id;
  // The integration first, so the call's outcome makes a delivery.
  const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
    headers: owner.auth,
    body: { url: 'https://crm.example.com/hooks' },
  });
  ids.integration = integration.body.id;
  const creds = await t.credentials(owner, agent.id);
  const call = await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret });
  ids.call = call.body.callId;
  const ended = await t.waitForCall(owner, call.body.callId, (c) => c.status === 'ended' && c.deliveries.length > 0);
  ids.delivery = ended.deliveries[0].id;
  const key = await t.request('POST', '/v1/api-keys', { headers: owner.auth, body: { name: 'second' } });
  ids.apiKey = key.body.id;
  const tool = await t.request('POST', '/v1/tools', {
    headers: owner.auth,
    body: { name: 'owner_tool', method: 'GET', url: 'http://127.0.0.1:9/x' },
  });
  ids.tool = tool.body.id;
  const credential = await t.request('POST', '/v1/provider-credentials', {
    headers: owner.auth,
    // A closed port: the agent below publishes there in the background and fails at once.
    body: { provider: 'vapi', name: 'Owner Vapi', apiKey: 'owner_key_1234', baseUrl: 'http://127.0.0.1:9' },
  });
  ids.credential = credential.body.id;
  // In use: an agent runs on the credential (deleting it is refused) with the tool attached.
  const user = await t.createAgent(owner, {
    name: 'Vapi agent',
    provider: 'vapi',
    providerCredentialId: ids.credential,
    fromNumber: '+14155550100',
    toolIds: [ids.tool],
  });
  ids.vapiAgent = user.id;
  const phoneNumber = await t.request('POST', '/v1/phone-numbers', {
    headers: owner.auth,
    body: { number: '+14155550100', providerCredentialId: ids.credential, providerNumberId: 'pn_owner' },
  });
  ids.phoneNumber = phoneNumber.body.id;
  const suppression = await t.request('POST', '/v1/suppressions', {
    headers: owner.auth,
    body: { phone: '+14155550177', reason: 'asked' },
  });
  ids.suppression = suppression.body.id;
  const campaign = await t.request('POST', '/v1/campaigns', {
    headers: owner.auth,
    body: { name: 'Owner campaign', agentId: agent.id },
  });
  ids.campaign = campaign.body.id;
  await t.request('POST', `/v1/campaigns/${ids.campaign}/contacts`, {
    headers: owner.auth,
    body: [{ phone: '+14155550178' }],
  });
});
afterAll(() => t.close());

/** An id of the same prefix and length as `id`, made up: no resource ever had it. */
function neverExisting(id: string): string {
  const [prefix, rest = ''] = id.split(/_(.*)/s);
  const digits = '0123456789abcdefghjkmnpqrstvwxyz';
  const made = Array.from(randomBytes(rest.length), (byte) => digits[byte % 32]).join('');
  return `${prefix}_${made}`;
}

/** Every `/v1` route that names a resource by id, with the owner's id to try as a stranger. */
const byId: Record<string, { id: () => string; body?: unknown }> = {
  'GET /v1/agents/:id': { id: () => ids.agent! },
  'PATCH /v1/agents/:id': { id: () => ids.agent!, body: { name: 'Taken over' } },
  'DELETE /v1/agents/:id': { id: () => ids.agent! },
  'GET /v1/agents/:id/credentials': { id: () => ids.agent! },
  'POST /v1/agents/:id/credentials/rotate': { id: () => ids.agent! },
  'POST /v1/agents/:id/test-call': { id: () => ids.agent!, body: { phone: '+14155550199' } },
  'GET /v1/calls/:id': { id: () => ids.call! },
  'DELETE /v1/api-keys/:id': { id: () => ids.apiKey! },
  'GET /v1/tools/:id': { id: () => ids.tool! },
  'PATCH /v1/tools/:id': { id: () => ids.tool!, body: { description: 'Taken over' } },
  'DELETE /v1/tools/:id': { id: () => ids.tool! },
  'POST /v1/tools/:id/test': { id: () => ids.tool!, body: {} },
  'POST /v1/agents/:id/integrations': { id: () => ids.agent!, body: { url: 'https://evil.example.com/x' } },
  'GET /v1/agents/:id/integrations': { id: () => ids.agent! },
  'GET /v1/integrations/:id': { id: () => ids.integration! },
  'PATCH /v1/integrations/:id': { id: () => ids.integration!, body: { url: 'https://evil.example.com/x' } },
  'DELETE /v1/integrations/:id': { id: () => ids.integration! },
  'POST /v1/integrations/:id/rotate-secret': { id: () => ids.integration! },
  'POST /v1/integrations/:id/test': { id: () => ids.integration! },
  'GET /v1/deliveries/:id': { id: () => ids.delivery! },
  'GET /v1/provider-credentials/:id': { id: () => ids.credential! },
  'GET /v1/agents/:id/provider-tools': { id: () => ids.agent! },
  'POST /v1/agents/:id/provider-tools/import': { id: () => ids.agent!, body: { providerToolIds: ['x'] } },
  'PATCH /v1/provider-credentials/:id': { id: () => ids.credential!, body: { name: 'Taken over' } },
  'DELETE /v1/provider-credentials/:id': { id: () => ids.credential! },
  'POST /v1/deliveries/:id/retry': { id: () => ids.delivery! },
  'GET /v1/provider-credentials/:id/voices': { id: () => ids.credential! },
  'GET /v1/provider-credentials/:id/phone-numbers': { id: () => ids.credential! },
  'GET /v1/phone-numbers/:id': { id: () => ids.phoneNumber! },
  'PATCH /v1/phone-numbers/:id': { id: () => ids.phoneNumber!, body: { agentId: null } },
  'DELETE /v1/phone-numbers/:id': { id: () => ids.phoneNumber! },
  'POST /v1/agents/:id/simulate-inbound': { id: () => ids.agent!, body: { from: '+14155550199' } },
  'DELETE /v1/suppressions/:id': { id: () => ids.suppression! },
  'GET /v1/campaigns/:id': { id: () => ids.campaign! },
  'PATCH /v1/campaigns/:id': { id: () => ids.campaign!, body: { name: 'Taken over' } },
  'DELETE /v1/campaigns/:id': { id: () => ids.campaign! },
  'POST /v1/campaigns/:id/start': { id: () => ids.campaign! },
  'POST /v1/campaigns/:id/pause': { id: () => ids.campaign! },
  'POST /v1/campaigns/:id/resume': { id: () => ids.campaign! },
  'POST /v1/campaigns/:id/cancel': { id: () => ids.campaign! },
  'POST /v1/campaigns/:id/contacts': { id: () => ids.campaign!, body: [{ phone: '+14155550179' }] },
  'GET /v1/campaigns/:id/contacts': { id: () => ids.campaign! },
  'GET /v1/campaigns/:id/results.csv': { id: () => ids.campaign! },
};

describe('tenancy', () => {
  it('covers every /v1 route with an :id (a new route must be added here)', () => {
    const routes = t.app.routeTable
      .filter((r) => r.url.startsWith('/v1/') && r.url.includes(':id'))
      .map((r) => `${r.method} ${r.url}`);
    expect(routes.sort()).toEqual(Object.keys(byId).sort());
  });

  it.each(Object.keys(byId))('%s answers 404 to another organization and changes nothing', async (route) => {
    const [method, path] = route.split(' ') as [string, string];
    const target = byId[route]!;
    const response = await t.request(method, path.replace(':id', target.id()), {
      headers: stranger.auth,
      body: target.body,
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('api:not_found');
  });

  it.each(Object.keys(byId))(
    '%s answers a foreign id, in use or not, exactly as an id that never existed',
    async (route) => {
      const [method, path] = route.split(' ') as [string, string];
      const target = byId[route]!;
      const foreignId = target.id();
      const ask = async (id: string) => {
        const response = await t.request(method, path.replace(':id', id), {
          headers: stranger.auth,
          body: target.body,
        });
        const { requestId: _differs, ...body } = response.body ?? {};
        return { status: response.status, body: JSON.parse(JSON.stringify(body).replaceAll(id, ':id')) };
      };
      expect(await ask(foreignId)).toEqual(await ask(neverExisting(foreignId)));
    },
  );

  it('the owner is refused deleting the credential in use, so the comparison above covered an in-use resource', async () => {
    const refused = await t.request('DELETE', `/v1/provider-credentials/${ids.credential}`, { headers: owner.auth });
    expect(refused.status).toBe(409);
  });

  it('still serves the owner: nothing the stranger tried took effect', async () => {
    const agent = await t.request('GET', `/v1/agents/${ids.agent}`, { headers: owner.auth });
    expect(agent.status).toBe(200);
    expect(agent.body.name).toBe('Sales agent');
    expect((await t.request('GET', `/v1/calls/${ids.call}`, { headers: owner.auth })).status).toBe(200);
    const keys = await t.request('GET', '/v1/api-keys', { headers: owner.auth });
    expect(keys.body.data.map((k: { id: string }) => k.id)).toContain(ids.apiKey);
    const tool = await t.request('GET', `/v1/tools/${ids.tool}`, { headers: owner.auth });
    expect(tool.body.description).toBe('');
    const credential = await t.request('GET', `/v1/provider-credentials/${ids.credential}`, { headers: owner.auth });
    expect(credential.body.name).toBe('Owner Vapi');
    const integration = await t.request('GET', `/v1/integrations/${ids.integration}`, { headers: owner.auth });
    expect(integration.body).toMatchObject({
      url: 'https://crm.example.com/hooks',
      previousSigningSecretExpiresAt: null,
    });
  });

  it("an agent cannot attach another organization's tool", async () => {
    const agent = await t.request('POST', '/v1/agents', {
      headers: stranger.auth,
      body: { name: 'Thief', toolIds: [ids.tool] },
    });
    expect(agent.status).toBe(422);
    expect(agent.body.details).toEqual([{ path: '$.toolIds[0]', message: expect.any(String) }]);
  });

  it("list routes never show another organization's resources", async () => {
    const lists = [
      '/v1/agents',
      '/v1/calls',
      `/v1/calls?agentId=${ids.agent}`,
      '/v1/api-keys',
      '/v1/tools',
      '/v1/provider-credentials',
      '/v1/deliveries',
      '/v1/campaigns',
      `/v1/deliveries?callId=${ids.call}`,
      `/v1/deliveries?integrationId=${ids.integration}`,
    ];
    for (const path of lists) {
      const response = await t.request('GET', path, { headers: stranger.auth });
      expect(response.status, path).toBe(200);
      const text = JSON.stringify(response.body);
      for (const id of Object.values(ids)) expect(text, path).not.toContain(id);
    }
  });

  it('GET /v1/stats counts no call of another organization, and its agents are not found', async () => {
    const own = await t.request('GET', '/v1/stats', { headers: owner.auth });
    expect(own.body.totals.calls).toBeGreaterThan(0);
    const theirs = await t.request('GET', '/v1/stats', { headers: stranger.auth });
    expect(theirs.status).toBe(200);
    expect(theirs.body.totals.calls).toBe(0);
    const foreign = await t.request('GET', `/v1/stats?agentId=${ids.agent}`, { headers: stranger.auth });
    const never = await t.request('GET', `/v1/stats?agentId=${neverExisting(ids.agent!)}`, { headers: stranger.auth });
    expect(foreign.status).toBe(404);
    const { requestId: _a, ...foreignBody } = foreign.body;
    const { requestId: _b, ...neverBody } = never.body;
    expect(foreignBody).toEqual(neverBody);
  });
});
