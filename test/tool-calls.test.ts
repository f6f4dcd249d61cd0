import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

let t: TestApp;
let org: Org;
let crm: Receiver;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  crm = await startReceiver((request, response) => {
    response.writeHead(request.url.startsWith('/fail') ? 500 : 200, { 'content-type': 'application/json' });
    response.end(
      request.url.startsWith('/fail')
        ? 'boom'
        : JSON.stringify({ id: 'L-1', owner: { name: 'Grace' }, echo: request.url }),
    );
  });
});
afterAll(async () => {
  await crm.close();
  await t.close();
});

async function tool(body: Record<string, unknown>) {
  const response = await t.request('POST', '/v1/tools', { headers: org.auth, body });
  if (response.status !== 201) throw new Error(JSON.stringify(response.body));
  return response.body;
}

async function call(agentBody: Record<string, unknown>, variables: Record<string, string> = {}) {
  const agent = await t.createAgent(org, agentBody);
  const creds = await t.credentials(org, agent.id);
  const response = await t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables },
  });
  expect(response.status).toBe(200);
  return t.waitForCall(org, response.body.callId);
}

describe('tool calls during a simulated call', () => {
  it('runs the tool, records the invocation, and later turns read its result', async () => {
    const createLead = await tool({
      name: 'create_lead',
      method: 'POST',
      url: `${crm.url}/leads`,
      headers: [{ key: 'Authorization', mode: 'fixed', value: 'Bearer crm-secret-1' }],
      parameters: [
        { name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true },
        { name: 'name', location: 'body', type: 'string', fillMode: 'variable', value: '{{name}}' },
      ],
      variables: [{ name: 'name' }],
    });
    const ended = await call(
      {
        firstMessage: 'Hi {{name}}',
        toolIds: [createLead.id],
        simulator: {
          turns: [
            { role: 'user', text: 'My email is ada@example.com' },
            { tool: 'create_lead', args: { email: 'ada@example.com' } },
            { role: 'agent', text: 'Your lead is {{tool.create_lead.id}}, owned by {{tool.create_lead.owner.name}}.' },
          ],
          outcome: { status: 'SOLD' },
        },
      },
      { name: 'Ada' },
    );
    expect(crm.requests.at(-1)).toMatchObject({ method: 'POST', url: '/leads' });
    expect(JSON.parse(crm.requests.at(-1)!.body)).toEqual({ email: 'ada@example.com', name: 'Ada' });
    expect(crm.requests.at(-1)!.headers.authorization).toBe('Bearer crm-secret-1');

    const resultText = JSON.stringify({ id: 'L-1', owner: { name: 'Grace' }, echo: '/leads' });
    expect(
      ended.transcript.map((turn: { role: string; text: string; name?: string }) => [turn.role, turn.text, turn.name]),
    ).toEqual([
      ['agent', 'Hi Ada', undefined],
      ['user', 'My email is ada@example.com', undefined],
      ['tool', resultText, 'create_lead'],
      ['agent', 'Your lead is L-1, owned by Grace.', undefined],
    ]);
    expect(ended.toolInvocations).toHaveLength(1);
    expect(ended.toolInvocations[0]).toMatchObject({
      id: expect.stringMatching(/^tinv_/),
      toolId: createLead.id,
      name: 'create_lead',
      arguments: { email: 'ada@example.com' },
      request: {
        method: 'POST',
        url: `${crm.url}/leads`,
        headers: { authorization: 'Bearer ••••••', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ada@example.com', name: 'Ada' }),
      },
      response: { status: 200, body: resultText },
      result: resultText,
      error: null,
      latencyMs: expect.any(Number),
      at: expect.any(String),
    });
    expect(JSON.stringify(ended)).not.toContain('crm-secret-1');
    const listed = await t.request('GET', `/v1/calls?agentId=${ended.agentId}`, { headers: org.auth });
    expect(listed.body.data[0].toolInvocations).toEqual(ended.toolInvocations);
  });

  it('with a live call (delayMs), the tool turn is in the transcript as it happens', async () => {
    const ping = await tool({ name: 'ping_live', method: 'GET', url: `${crm.url}/ping` });
    const ended = await call({
      toolIds: [ping.id],
      simulator: { turns: [{ tool: 'ping_live', args: {} }], delayMs: 60 },
    });
    expect(ended.transcript).toEqual([
      { role: 'tool', name: 'ping_live', text: expect.stringContaining('"id":"L-1"'), at: expect.any(String) },
    ]);
    expect(ended.toolInvocations).toHaveLength(1);
  });

  it('resolves {{ }}: values collected earlier in the call, then click-to-call variables, then the default, else ""', async () => {
    const collect = await tool({
      name: 'collect_email',
      method: 'POST',
      url: `${crm.url}/collect`,
      parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai' }],
    });
    const order = await tool({
      name: 'resolve_order',
      method: 'GET',
      url: `${crm.url}/resolve`,
      variables: [
        { name: 'email', defaultValue: 'default@example.com' },
        { name: 'plan', defaultValue: 'basic' },
        { name: 'region', defaultValue: 'eu' },
        { name: 'nothing' },
      ],
      parameters: [
        { name: 'email', location: 'query', type: 'string', fillMode: 'variable', value: '{{email}}' },
        { name: 'plan', location: 'query', type: 'string', fillMode: 'variable', value: '{{plan}}' },
        { name: 'region', location: 'query', type: 'string', fillMode: 'variable', value: '{{region}}' },
        { name: 'nothing', location: 'query', type: 'string', fillMode: 'variable', value: '{{nothing}}' },
      ],
    });
    const ended = await call(
      {
        firstMessage: 'Hi {{email}} {{plan}} {{region}}',
        toolIds: [collect.id, order.id],
        simulator: {
          turns: [
            { tool: 'resolve_order', args: {} },
            { tool: 'collect_email', args: { email: 'spoken@example.com' } },
            { tool: 'resolve_order', args: {} },
          ],
        },
      },
      { email: 'ctc@example.com', plan: 'pro', region: '' },
    );
    const [before, , after] = ended.toolInvocations;
    const query = (invocation: { request: { url: string } }) =>
      Object.fromEntries(new URL(invocation.request.url).searchParams);
    // An empty click-to-call variable counts as not provided: the default applies.
    expect(query(before)).toEqual({ email: 'ctc@example.com', plan: 'pro', region: 'eu', nothing: '' });
    expect(query(after)).toEqual({ email: 'spoken@example.com', plan: 'pro', region: 'eu', nothing: '' });
  });

  it('hands the agent an error it can recover from: a 5xx, bad arguments, a tool not attached', async () => {
    const failing = await tool({ name: 'failing_tool', method: 'GET', url: `${crm.url}/fail` });
    const strict = await tool({
      name: 'strict_tool',
      method: 'POST',
      url: `${crm.url}/strict`,
      parameters: [{ name: 'n', location: 'body', type: 'integer', fillMode: 'ai', required: true }],
    });
    const sentBefore = crm.requests.filter((r) => r.url === '/strict').length;
    const ended = await call({
      toolIds: [failing.id, strict.id],
      simulator: {
        turns: [
          { tool: 'failing_tool', args: {} },
          { tool: 'strict_tool', args: { n: 'three' } },
          { tool: 'not_attached', args: { x: 1 } },
          { role: 'agent', text: 'Sorry: {{tool.failing_tool.error}}' },
        ],
      },
    });
    expect(crm.requests.filter((r) => r.url === '/strict').length).toBe(sentBefore);
    expect(ended.toolInvocations.map((i: { name: string; error: string }) => [i.name, i.error])).toEqual([
      ['failing_tool', 'The tool endpoint answered HTTP 500'],
      ['strict_tool', 'The tool was not called: n must be an integer.'],
      ['not_attached', 'No tool named "not_attached" is attached to this agent'],
    ]);
    expect(ended.toolInvocations[1].request).toBeNull();
    expect(ended.toolInvocations[2]).toMatchObject({ toolId: null, request: null, response: null });
    const texts = ended.transcript.map((turn: { text: string }) => turn.text);
    expect(texts[0]).toBe('Error: The tool endpoint answered HTTP 500: boom');
    expect(texts[3]).toBe('Sorry: Error: The tool endpoint answered HTTP 500: boom');
    expect(ended.status).toBe('ended');
    expect(ended.outcome).toBe('COMPLETED');
  });

  it('a deleted tool keeps its invocations on the calls that made them', async () => {
    const gone = await tool({ name: 'soon_gone', method: 'GET', url: `${crm.url}/gone` });
    const ended = await call({ toolIds: [gone.id], simulator: { turns: [{ tool: 'soon_gone', args: {} }] } });
    await t.request('DELETE', `/v1/tools/${gone.id}`, { headers: org.auth });
    const again = await t.request('GET', `/v1/calls/${ended.id}`, { headers: org.auth });
    expect(again.body.toolInvocations).toEqual(ended.toolInvocations);
  });
});
