import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startOtherProcess, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let vapi: FakeVapi;
let credentialId: string;
const masterKey = randomBytes(32);

beforeAll(async () => {
  vapi = await startFakeVapi();
  // The worker's safety net an hour away: every publish below comes from the announcement of the
  // change that made it due, or from its retry's due time (decision 0086), never from a poll.
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '3600000' }, masterKey);
  org = await t.signup();
  const credential = await t.request('POST', '/v1/provider-credentials', {
    headers: org.auth,
    body: {
      provider: 'vapi',
      name: 'Vapi test',
      apiKey: vapi.apiKey,
      webhookSecret: 'vapi_hook_secret_long_enough',
      baseUrl: vapi.url,
    },
  });
  credentialId = credential.body.id;
});
afterAll(async () => {
  await t.close();
  await vapi.close();
});

const agentNamed = async (id: string) => (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
const synced = (id: string, since = '') =>
  until(`agent ${id} synced`, async () => {
    const agent = await agentNamed(id);
    return agent.providerSync.state === 'synced' && (agent.providerSync.syncedAt ?? '') > since ? agent : undefined;
  });

async function createTool(name: string) {
  const tool = await t.request('POST', '/v1/tools', {
    headers: org.auth,
    body: {
      name,
      description: 'Creates a lead once the caller gave an email.',
      method: 'POST',
      url: 'https://crm.example.com/leads',
      parameters: [
        { name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true, description: 'The email' },
        { name: 'plan', location: 'body', type: 'string', fillMode: 'ai', allowedValues: ['basic', 'pro'] },
      ],
    },
  });
  expect(tool.status).toBe(201);
  return tool.body;
}

describe('publishing to Vapi', () => {
  it('publishes a new agent: a function tool per attached tool and an assistant pointing back to us', async () => {
    const tool = await createTool('create_lead');
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'Vapi agent',
        provider: 'vapi',
        providerCredentialId: credentialId,
        fromNumber: '+14155550100',
        prompt: 'You are Sam from Acme. The caller is {{name}}.',
        firstMessage: 'Hi {{name}}!',
        toolIds: [tool.id],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.providerSync).toMatchObject({ state: 'pending', error: null });
    const agent = await synced(created.body.id);
    const assistant = vapi.assistants.get(agent.providerSync.providerAgentId);
    expect(assistant).toMatchObject({
      firstMessage: 'Hi {{name}}!',
      model: { messages: [{ role: 'system', content: 'You are Sam from Acme. The caller is {{name}}.' }] },
      server: {
        url: `${t.config.publicUrl}/providers/vapi/webhook`,
        headers: { 'x-vapi-secret': 'vapi_hook_secret_long_enough' },
        // Without a plan Vapi sends a report once: one met by a restart would be lost (decision 0095).
        backoffPlan: { type: 'exponential', maxRetries: 10, baseDelaySeconds: 1 },
      },
      serverMessages: ['tool-calls', 'status-update', 'end-of-call-report'],
      metadata: { switchboardAgentId: created.body.id },
    });
    expect(assistant?.analysisPlan.structuredDataPlan.schema.properties.status.enum).toEqual(created.body.outcomes);
    const [vapiToolId] = (assistant?.model.toolIds ?? []) as string[];
    expect(vapi.tools.get(vapiToolId as string)).toMatchObject({
      type: 'function',
      function: { name: 'create_lead', description: tool.description, parameters: tool.aiSchema },
      server: {
        url: `${t.config.publicUrl}/providers/vapi/webhook`,
        headers: { 'x-vapi-secret': 'vapi_hook_secret_long_enough' },
      },
    });
    // A tool call is not retried: the caller is waiting, and a retry would run the endpoint twice.
    expect(vapi.tools.get(vapiToolId as string)?.server).not.toHaveProperty('backoffPlan');
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('republishes on every change: the agent, a tool it uses; a detached tool is removed at Vapi', async () => {
    const tool = await createTool('book_visit');
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Changing', provider: 'vapi', providerCredentialId: credentialId, toolIds: [tool.id] },
    });
    const first = await synced(created.body.id);
    const assistantId = first.providerSync.providerAgentId;
    const vapiToolId = vapi.assistants.get(assistantId)?.model.toolIds[0];

    await t.request('PATCH', `/v1/agents/${created.body.id}`, { headers: org.auth, body: { prompt: 'New prompt' } });
    const second = await synced(created.body.id, first.providerSync.syncedAt);
    expect(second.providerSync.providerAgentId).toBe(assistantId);
    expect(vapi.assistants.get(assistantId)?.model.messages[0].content).toBe('New prompt');

    await t.request('PATCH', `/v1/tools/${tool.id}`, { headers: org.auth, body: { description: 'Books a visit.' } });
    const third = await synced(created.body.id, second.providerSync.syncedAt);
    expect(vapi.tools.get(vapiToolId)?.function.description).toBe('Books a visit.');

    await t.request('PATCH', `/v1/agents/${created.body.id}`, { headers: org.auth, body: { toolIds: [] } });
    await synced(created.body.id, third.providerSync.syncedAt);
    expect(vapi.tools.has(vapiToolId)).toBe(false);
    expect(vapi.assistants.get(assistantId)?.model.toolIds).toEqual([]);
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('shows failed, with the reason, when there is nothing to publish with', async () => {
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'No credential', provider: 'vapi', fromNumber: '+14155550100' },
    });
    expect(created.body.configured).toBe(false);
    const failed = await until('the sync to fail', async () => {
      const agent = await agentNamed(created.body.id);
      return agent.providerSync.state === 'failed' ? agent : undefined;
    });
    expect(failed.providerSync.error).toBe('The agent has no provider credential');
  });

  it('removes a deleted tool at Vapi', async () => {
    const tool = await createTool('to_delete');
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Loses a tool', provider: 'vapi', providerCredentialId: credentialId, toolIds: [tool.id] },
    });
    const first = await synced(created.body.id);
    const vapiToolId = vapi.assistants.get(first.providerSync.providerAgentId)?.model.toolIds[0];
    expect(vapi.tools.has(vapiToolId)).toBe(true);
    expect((await t.request('DELETE', `/v1/tools/${tool.id}`, { headers: org.auth })).status).toBe(204);
    const second = await synced(created.body.id, first.providerSync.syncedAt);
    expect(second.toolIds).toEqual([]);
    expect(vapi.tools.has(vapiToolId)).toBe(false);
  });

  it('publishes again when the credential changes: the new webhook secret reaches the assistant', async () => {
    // A credential of its own, so that its changes republish this agent only.
    const own = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: {
        provider: 'vapi',
        name: 'Vapi rotating',
        apiKey: vapi.apiKey,
        webhookSecret: 'secret_one_long_enough_for_vapi',
        baseUrl: vapi.url,
      },
    });
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Secret follower', provider: 'vapi', providerCredentialId: own.body.id },
    });
    const first = await synced(created.body.id);
    expect(vapi.assistants.get(first.providerSync.providerAgentId)?.server.headers).toEqual({
      'x-vapi-secret': 'secret_one_long_enough_for_vapi',
    });
    await t.request('PATCH', `/v1/provider-credentials/${own.body.id}`, {
      headers: org.auth,
      body: { webhookSecret: 'secret_two_long_enough_for_vapi' },
    });
    const second = await synced(created.body.id, first.providerSync.syncedAt);
    expect(vapi.assistants.get(second.providerSync.providerAgentId)?.server.headers).toEqual({
      'x-vapi-secret': 'secret_two_long_enough_for_vapi',
    });

    // A new name, the same secret again, the same base URL, or the replaced secret revoked: nothing
    // the assistant holds moved, so the agent stays as it was published (decision 0099).
    for (const body of [
      { name: 'Vapi rotating, renamed' },
      { webhookSecret: 'secret_two_long_enough_for_vapi' },
      { baseUrl: vapi.url },
      { previousWebhookSecretExpiresAt: null },
    ]) {
      const patched = await t.request('PATCH', `/v1/provider-credentials/${own.body.id}`, { headers: org.auth, body });
      expect(patched.status).toBe(200);
      expect((await agentNamed(created.body.id)).providerSync, JSON.stringify(body)).toEqual(second.providerSync);
    }
  });

  it('retries when Vapi fails, showing its error meanwhile, and removes the assistant when the agent is deleted', async () => {
    vapi.failNext(1);
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Retried', provider: 'vapi', providerCredentialId: credentialId },
    });
    const failing = await until('the first attempt to fail', async () => {
      const agent = await agentNamed(created.body.id);
      return agent.providerSync.error ? agent : undefined;
    });
    expect(failing.providerSync.state).toBe('pending');
    expect(failing.providerSync.error).toContain('500');
    const agent = await synced(created.body.id);
    expect(agent.providerSync.error).toBeNull();
    const assistantId = agent.providerSync.providerAgentId;
    expect(vapi.assistants.has(assistantId)).toBe(true);

    await t.request('DELETE', `/v1/agents/${created.body.id}`, { headers: org.auth });
    await until('the assistant removed', async () => (vapi.assistants.has(assistantId) ? undefined : true));
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('publishing to Vapi across processes on one PostgreSQL', () => {
  it('publishes at once an agent created and changed through a process that does not publish (role api)', async () => {
    const other = await startOtherProcess(t.db.url as string, masterKey);
    try {
      const created = await fetch(`${other.origin}/v1/agents`, {
        method: 'POST',
        headers: { ...org.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Made elsewhere', provider: 'vapi', providerCredentialId: credentialId }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const first = await synced(id);
      const changed = await fetch(`${other.origin}/v1/agents/${id}`, {
        method: 'PATCH',
        headers: { ...org.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Changed elsewhere' }),
      });
      expect(changed.status).toBe(200);
      await synced(id, first.providerSync.syncedAt);
      expect(vapi.assistants.get(first.providerSync.providerAgentId)).toMatchObject({
        model: { messages: [{ role: 'system', content: 'Changed elsewhere' }] },
      });
    } finally {
      await other.close();
    }
  });
});
