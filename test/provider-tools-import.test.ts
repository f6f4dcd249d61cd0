import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let vapi: FakeVapi;
let retell: FakeRetell;

const agentView = async (id: string) => (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
const syncedSince = (id: string, since = '') =>
  until('the agent published', async () => {
    const view = await agentView(id);
    return view.providerSync.state === 'synced' && (view.providerSync.syncedAt ?? '') > since ? view : undefined;
  });

async function agentOn(provider: 'vapi' | 'retell', apiKey: string, baseUrl: string) {
  const credential = await t.request('POST', '/v1/provider-credentials', {
    headers: org.auth,
    body: { provider, name: `${provider} import`, apiKey, webhookSecret: 'hook_secret_of_the_import_test', baseUrl },
  });
  const agent = await t.request('POST', '/v1/agents', {
    headers: org.auth,
    body: {
      name: `Imports from ${provider}`,
      provider,
      providerCredentialId: credential.body.id,
      fromNumber: '+14155550100',
    },
  });
  return syncedSince(agent.body.id);
}

beforeAll(async () => {
  vapi = await startFakeVapi();
  retell = await startFakeRetell();
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
  org = await t.signup();
});
afterAll(async () => {
  await t.close();
  await vapi.close();
  await retell.close();
});

describe('importing tools from Vapi', () => {
  it('lists the account’s tools, imports what converts (reporting what does not), attaches them and takes over the provider’s copy', async () => {
    const agent = await agentOn('vapi', vapi.apiKey, vapi.url);
    const fnId = vapi.seedTool({
      type: 'function',
      function: {
        name: 'create_order',
        description: 'Creates an order.',
        parameters: {
          type: 'object',
          required: ['email', 'items'],
          properties: {
            email: { type: 'string', description: 'Buyer email' },
            plan: { type: 'string', enum: ['basic', 'pro'] },
            items: {
              type: 'array',
              items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } },
            },
            address: { type: 'object', properties: { city: { type: 'string' } } },
            note: { type: ['string', 'null'] },
            anything: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          },
        },
      },
      server: { url: 'https://shop.example.com/orders', headers: { 'x-shop-key': 'sk_1' }, timeoutSeconds: 12 },
    });
    const apiId = vapi.seedTool({
      type: 'apiRequest',
      name: 'find_slot',
      method: 'GET',
      url: 'https://cal.example.com/slots',
      body: { type: 'object', properties: { day: { type: 'string' } } },
    });
    const endCallId = vapi.seedTool({ type: 'endCall', function: { name: 'hang_up' } });

    const list = await t.request('GET', `/v1/agents/${agent.id}/provider-tools`, { headers: org.auth });
    expect(list.status).toBe(200);
    const byId = Object.fromEntries(list.body.data.map((tool: { id: string }) => [tool.id, tool]));
    expect(byId[fnId]).toMatchObject({ name: 'create_order', type: 'function', importable: true, problems: [] });
    expect(byId[fnId].warnings).toEqual(['$.parameters.anything: type "unspecified" is not supported; left out']);
    expect(byId[endCallId]).toMatchObject({ importable: false, problems: [expect.stringContaining('run at Vapi')] });

    const result = await t.request('POST', `/v1/agents/${agent.id}/provider-tools/import`, {
      headers: org.auth,
      body: { providerToolIds: [fnId, apiId, endCallId, 'nope'] },
    });
    expect(result.status).toBe(200);
    expect(result.body.imported.map((i: { providerToolId: string }) => i.providerToolId)).toEqual([fnId, apiId]);
    expect(result.body.skipped).toEqual([
      { providerToolId: endCallId, reasons: [expect.stringContaining('run at Vapi')] },
      { providerToolId: 'nope', reasons: ['no tool with this id at the provider'] },
    ]);

    const order = (await t.request('GET', `/v1/tools/${result.body.imported[0].toolId}`, { headers: org.auth })).body;
    expect(order).toMatchObject({
      name: 'create_order',
      method: 'POST',
      url: 'https://shop.example.com/orders',
      headers: [{ key: 'x-shop-key', mode: 'fixed', value: '••••••' }],
      timeoutMs: 12000,
    });
    expect(order.parameters).toEqual([
      { name: 'email', location: 'body', type: 'string', fillMode: 'ai', description: 'Buyer email', required: true },
      { name: 'plan', location: 'body', type: 'string', fillMode: 'ai', allowedValues: ['basic', 'pro'] },
      {
        name: 'items',
        location: 'body',
        type: 'array',
        fillMode: 'ai',
        required: true,
        items: {
          type: 'object',
          fields: [
            { name: 'sku', type: 'string', fillMode: 'ai' },
            { name: 'qty', type: 'integer', fillMode: 'ai' },
          ],
        },
      },
      {
        name: 'address',
        location: 'body',
        type: 'object',
        fillMode: 'ai',
        fields: [{ name: 'city', type: 'string', fillMode: 'ai' }],
      },
      { name: 'note', location: 'body', type: 'string', fillMode: 'ai' },
    ]);
    const slot = (await t.request('GET', `/v1/tools/${result.body.imported[1].toolId}`, { headers: org.auth })).body;
    expect(slot).toMatchObject({ method: 'GET', parameters: [{ name: 'day', location: 'query', fillMode: 'ai' }] });

    // Attached, and published over the provider's own copy (the same Vapi tool, now calling us).
    const after = await syncedSince(agent.id, agent.providerSync.syncedAt);
    expect(after.toolIds).toEqual(result.body.imported.map((i: { toolId: string }) => i.toolId));
    expect(vapi.tools.get(fnId)?.server.url).toBe(`${t.config.publicUrl}/providers/vapi/webhook`);
    expect(vapi.assistants.get(after.providerSync.providerAgentId)?.model.toolIds).toContain(fnId);
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('refuses for an agent on the simulator (409) and for another organization’s agent (404)', async () => {
    const simulated = await t.createAgent(org);
    expect((await t.request('GET', `/v1/agents/${simulated.id}/provider-tools`, { headers: org.auth })).status).toBe(
      409,
    );
    const stranger = await t.signup();
    expect(
      (await t.request('GET', `/v1/agents/${simulated.id}/provider-tools`, { headers: stranger.auth })).status,
    ).toBe(404);
  });
});

describe('importing tools from Retell', () => {
  it('reads the agent’s LLM tools, imports the custom ones and publishes them back as ours', async () => {
    const agent = await agentOn('retell', retell.apiKey, retell.url);
    const llmId = retell.agents.get(agent.providerSync.providerAgentId)?.response_engine.llm_id;
    const llm = retell.llms.get(llmId) as Record<string, unknown>;
    llm.general_tools = [
      {
        type: 'custom',
        name: 'check_stock',
        description: 'Checks stock.',
        url: 'https://shop.example.com/stock',
        method: 'POST',
        headers: { 'x-shop-key': 'sk_2' },
        query_params: { region: 'eu' },
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
        timeout_ms: 120000,
      },
      { type: 'end_call', name: 'end_call', description: 'Ends the call.' },
    ];
    const list = await t.request('GET', `/v1/agents/${agent.id}/provider-tools`, { headers: org.auth });
    expect(list.body.data.map((tool: { id: string; importable: boolean }) => [tool.id, tool.importable])).toEqual([
      ['check_stock', true],
      ['end_call', false],
    ]);
    const result = await t.request('POST', `/v1/agents/${agent.id}/provider-tools/import`, {
      headers: org.auth,
      body: { providerToolIds: ['check_stock'] },
    });
    expect(result.body.imported[0].warnings).toEqual([
      'Retell sent the arguments wrapped as {name, args, call}; Switchboard sends the arguments themselves as the body',
      '$.timeout_ms: 120000 ms is cut to 30000, our longest',
    ]);
    const stock = (await t.request('GET', `/v1/tools/${result.body.imported[0].toolId}`, { headers: org.auth })).body;
    expect(stock.parameters).toEqual([
      { name: 'sku', location: 'body', type: 'string', fillMode: 'ai', required: true },
      { name: 'region', location: 'query', type: 'string', fillMode: 'fixed', value: 'eu' },
    ]);
    await syncedSince(agent.id, agent.providerSync.syncedAt);
    expect(retell.llms.get(llmId)?.general_tools).toEqual([
      expect.objectContaining({
        type: 'custom',
        name: 'check_stock',
        url: `${t.config.publicUrl}/providers/retell/tools/${result.body.imported[0].toolId}?credential=${agent.providerCredentialId}`,
      }),
    ]);
    expect(retell.violations.join('\n')).toBe('');
  });
});

describe('a provider that cannot be reached', () => {
  it('answers its error the same way for Vapi and Retell: 409 api:conflict with the provider’s message', async () => {
    // A port just closed: the agents never get published, and listing their tools reaches no one.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const answers: Record<string, unknown>[] = [];
    for (const provider of ['vapi', 'retell'] as const) {
      const credential = await t.request('POST', '/v1/provider-credentials', {
        headers: org.auth,
        body: {
          provider,
          name: `${provider} unreachable`,
          apiKey: 'key_of_nobody',
          baseUrl: `http://127.0.0.1:${port}`,
        },
      });
      const agent = await t.createAgent(org, {
        name: `Unreachable ${provider}`,
        provider,
        providerCredentialId: credential.body.id,
        fromNumber: '+14155550100',
      });
      const list = await t.request('GET', `/v1/agents/${agent.id}/provider-tools`, { headers: org.auth });
      answers.push({ provider, status: list.status, code: list.body.code, message: list.body.message });
    }
    for (const provider of ['vapi', 'retell']) {
      expect(answers.find((a) => a.provider === provider)).toEqual({
        provider,
        status: 409,
        code: 'api:conflict',
        message: expect.stringMatching(
          new RegExp(`^The provider did not list its tools: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}`),
        ),
      });
    }
  });
});
