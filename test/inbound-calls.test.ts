import Retell from 'retell-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { publishedSchema } from './helpers/openapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let stranger: Org;
let vapi: FakeVapi;
let retell: FakeRetell;
/** A customer's server: the tool's endpoint (`/leads`) and the outcome webhooks' (`/outcomes`). */
let customer: Receiver;
let toolId: string;
const ids: Record<string, string> = {};
const VAPI_SECRET = 'vapi_inbound_secret_long_enough_1';
const OUR_VAPI_NUMBER = '+14155550100';
const OUR_RETELL_NUMBER = '+14155550200';

const get = async (path: string, as: Org = org) => t.request('GET', path, { headers: as.auth });
const post = (path: string, body: unknown, as: Org = org) => t.request('POST', path, { headers: as.auth, body });

async function agent(body: Record<string, unknown>) {
  const created = await post('/v1/agents', {
    type: 'inbound',
    prompt: 'Take the caller’s details.',
    firstMessage: 'Hello, front desk.',
    toolIds: [toolId],
    ...body,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const integration = await post(`/v1/agents/${created.body.id}/integrations`, { url: `${customer.url}/outcomes` });
  expect(integration.status).toBe(201);
  return created.body.id as string;
}

const published = (agentId: string | undefined) =>
  until(`agent ${agentId} published`, async () => {
    const view = (await get(`/v1/agents/${agentId}`)).body;
    return view.providerSync.state === 'synced' && view.providerSync.providerAgentId
      ? (view.providerSync.providerAgentId as string)
      : undefined;
  });

async function bind(body: Record<string, unknown>) {
  const created = await post('/v1/phone-numbers', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return until('the number bound', async () => {
    const view = (await get(`/v1/phone-numbers/${created.body.id}`)).body;
    return view.providerSync.state === 'synced' && view.providerSync.providerAgentId ? view : undefined;
  });
}

/** The calls of an agent the provider knows by this id. */
const callsOf = async (agentId: string | undefined, providerCallId: string) =>
  (await get(`/v1/calls?agentId=${agentId}&limit=100`)).body.data.filter(
    (c: any) => c.providerCallId === providerCallId,
  );

const outcomesOf = (callId: string) =>
  customer.requests.filter((r) => r.url === '/outcomes' && JSON.parse(r.body).callId === callId);

/** The outcome, delivered once: the first delivery, and no second one a while later. */
async function deliveredOnce(callId: string) {
  await until(`the outcome of ${callId} delivered`, () => outcomesOf(callId).length > 0);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const delivered = outcomesOf(callId);
  expect(delivered).toHaveLength(1);
  return JSON.parse((delivered[0] as { body: string }).body);
}

beforeAll(async () => {
  vapi = await startFakeVapi({ phoneNumbers: [OUR_VAPI_NUMBER] });
  retell = await startFakeRetell({ phoneNumbers: [OUR_RETELL_NUMBER] });
  customer = await startReceiver((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(request.url === '/leads' ? '{"leadId":"L-7"}' : '{"ok":true}');
  });
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100', SWITCHBOARD_ANALYSIS_GRACE_SECONDS: '1' });
  org = await t.signup('Owner');
  stranger = await t.signup('Stranger');
  const tool = await post('/v1/tools', {
    name: 'create_lead',
    description: 'Records the caller as a lead.',
    method: 'POST',
    url: `${customer.url}/leads`,
    parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true }],
  });
  toolId = tool.body.id;
  ids.vapiCredential = (
    await post('/v1/provider-credentials', {
      provider: 'vapi',
      name: 'Vapi',
      apiKey: vapi.apiKey,
      webhookSecret: VAPI_SECRET,
      baseUrl: vapi.url,
    })
  ).body.id;
  ids.retellCredential = (
    await post('/v1/provider-credentials', {
      provider: 'retell',
      name: 'Retell',
      apiKey: retell.apiKey,
      baseUrl: retell.url,
    })
  ).body.id;
  ids.vapiAgent = await agent({ name: 'Vapi desk', provider: 'vapi', providerCredentialId: ids.vapiCredential });
  ids.retellAgent = await agent({
    name: 'Retell desk',
    provider: 'retell',
    providerCredentialId: ids.retellCredential,
  });
  ids.simulatorAgent = await agent({
    name: 'Simulated desk',
    prompt: 'Help {{name}}.',
    simulator: {
      turns: [
        { role: 'user', text: 'Hi, this is {{name}}.' },
        { tool: 'create_lead', args: { email: 'ada@example.com' } },
        { role: 'agent', text: 'You are lead {{tool.create_lead.leadId}}.' },
      ],
      outcome: { status: 'INTERESTED' },
    },
  });
  ids.assistant = await published(ids.vapiAgent);
  ids.retellAgentAtRetell = await published(ids.retellAgent);
  await bind({
    number: OUR_VAPI_NUMBER,
    providerCredentialId: ids.vapiCredential,
    providerNumberId: 'pn_0',
    agentId: ids.vapiAgent,
  });
  await bind({
    number: OUR_RETELL_NUMBER,
    providerCredentialId: ids.retellCredential,
    providerNumberId: OUR_RETELL_NUMBER,
    agentId: ids.retellAgent,
  });
});
afterAll(async () => {
  await t.close();
  await vapi.close();
  await retell.close();
  await customer.close();
});

describe('incoming calls through Vapi', () => {
  /** Vapi's call object of an incoming call to our number, as its server messages carry it. */
  const vapiCall = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    orgId: 'org_fake',
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:00:00.000Z',
    type: 'inboundPhoneCall',
    assistantId: ids.assistant,
    phoneNumberId: 'pn_0',
    customer: { number: '+14155559999' },
    ...extra,
  });
  const statusUpdate = (call: Record<string, unknown>) => ({
    type: 'status-update',
    status: 'in-progress',
    timestamp: 1795341600000,
    call,
  });
  const toolCalls = (call: Record<string, unknown>) => ({
    type: 'tool-calls',
    toolWithToolCallList: [],
    toolCallList: [
      { id: 'tc_1', type: 'function', function: { name: 'create_lead', arguments: '{"email":"ada@example.com"}' } },
    ],
    call,
  });
  const endOfCallReport = (call: Record<string, unknown>) => ({
    type: 'end-of-call-report',
    endedReason: 'customer-ended-call',
    startedAt: '2026-11-21T10:00:00.000Z',
    endedAt: '2026-11-21T10:00:42.000Z',
    artifact: { messages: [{ role: 'bot', message: 'Hello, front desk.', time: 1795341601000, secondsFromStart: 1 }] },
    analysis: { structuredData: { status: 'INTERESTED' }, summary: 'A caller left their email.' },
    call,
  });
  const webhook = (message: Record<string, unknown>, secret = VAPI_SECRET) =>
    t.request('POST', '/providers/vapi/webhook', { headers: { 'x-vapi-secret': secret }, body: { message } });

  it('the messages keep the published shapes', () => {
    const call = vapiCall('vc_shape');
    for (const [schema, message] of [
      ['ServerMessageStatusUpdate', statusUpdate(call)],
      ['ServerMessageToolCalls', toolCalls(call)],
      ['ServerMessageEndOfCallReport', endOfCallReport(call)],
    ] as const) {
      const validate = publishedSchema('vapi', schema);
      expect(validate(message), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('records the call once on its first webhooks, runs its tool, and delivers its outcome once with direction inbound', async () => {
    const call = vapiCall('vc_in_1');
    // The status and the tool call arrive together: one call is recorded.
    const [status, tools] = await Promise.all([webhook(statusUpdate(call)), webhook(toolCalls(call))]);
    expect(status.status).toBe(200);
    expect(tools.status).toBe(200);
    expect(tools.body).toEqual({ results: [{ toolCallId: 'tc_1', name: 'create_lead', result: '{"leadId":"L-7"}' }] });
    expect(customer.requests.filter((r) => r.url === '/leads').map((r) => JSON.parse(r.body))).toContainEqual({
      email: 'ada@example.com',
    });
    const recorded = await callsOf(ids.vapiAgent, 'vc_in_1');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      direction: 'inbound',
      provider: 'vapi',
      from: '+14155559999',
      to: OUR_VAPI_NUMBER,
      status: 'in_progress',
    });
    const callId = recorded[0].id as string;

    // The report twice (Vapi may repeat it): the call ends once, its outcome goes once.
    expect((await webhook(endOfCallReport(call))).status).toBe(200);
    expect((await webhook(endOfCallReport(call))).status).toBe(200);
    const ended = await t.waitForCall(org, callId);
    expect(ended).toMatchObject({ direction: 'inbound', outcome: 'INTERESTED', endedReason: 'customer-ended-call' });
    expect(ended.toolInvocations.map((i: any) => i.name)).toEqual(['create_lead']);
    const payload = await deliveredOnce(callId);
    expect(payload).toMatchObject({
      event: 'call.completed',
      callId,
      agentId: ids.vapiAgent,
      agent: 'Vapi desk',
      direction: 'inbound',
      from: '+14155559999',
      to: OUR_VAPI_NUMBER,
      status: 'INTERESTED',
    });
    expect(await callsOf(ids.vapiAgent, 'vc_in_1')).toHaveLength(1);
  });

  it('records a call whose first webhook is its end-of-call report, with our number from the message', async () => {
    const call = vapiCall('vc_in_2', { phoneNumberId: undefined, customer: undefined });
    const message = {
      ...endOfCallReport(call),
      customer: { number: '+14155558888' },
      phoneNumber: { provider: 'twilio', number: OUR_VAPI_NUMBER, twilioAccountSid: 'AC1' },
    };
    expect((await webhook(message)).status).toBe(200);
    const [recorded] = await callsOf(ids.vapiAgent, 'vc_in_2');
    expect(recorded).toMatchObject({
      direction: 'inbound',
      from: '+14155558888',
      to: OUR_VAPI_NUMBER,
      status: 'ended',
    });
    await deliveredOnce(recorded.id);
  });

  it('refuses, recording nothing: another credential’s secret, an assistant not ours, a call Vapi did not receive', async () => {
    const otherSecret = 'vapi_secret_of_another_account_1';
    const other = await post(
      '/v1/provider-credentials',
      { provider: 'vapi', name: 'Vapi of another', apiKey: vapi.apiKey, webhookSecret: otherSecret },
      stranger,
    );
    expect(other.status).toBe(201);
    const before = (await get(`/v1/calls?agentId=${ids.vapiAgent}&limit=100`)).body.data.length;
    expect((await webhook(statusUpdate(vapiCall('vc_x1')), otherSecret)).status).toBe(404);
    expect((await webhook(statusUpdate(vapiCall('vc_x2', { assistantId: 'asst_not_ours' })))).status).toBe(404);
    expect((await webhook(statusUpdate(vapiCall('vc_x3', { type: 'outboundPhoneCall' })))).status).toBe(404);
    expect((await webhook(statusUpdate(vapiCall('vc_x4', { type: 'webCall' })))).status).toBe(404);
    expect((await webhook(statusUpdate(vapiCall('vc_x5')), 'not_a_secret_we_gave')).status).toBe(401);
    expect((await get(`/v1/calls?agentId=${ids.vapiAgent}&limit=100`)).body.data).toHaveLength(before);
    // A known incoming call, with another credential's secret: answered as an unknown call.
    expect((await webhook(endOfCallReport(vapiCall('vc_in_1')), otherSecret)).status).toBe(404);
  });
});

describe('incoming calls through Retell', () => {
  const retellCall = (id: string, extra: Record<string, unknown> = {}) => ({
    call_type: 'phone_call',
    call_id: id,
    agent_id: ids.retellAgentAtRetell,
    agent_version: 1,
    call_status: 'ongoing',
    direction: 'inbound',
    from_number: '+14155557777',
    to_number: OUR_RETELL_NUMBER,
    start_timestamp: 1795341600000,
    ...extra,
  });
  const analyzed = (id: string) =>
    retellCall(id, {
      call_status: 'ended',
      end_timestamp: 1795341630000,
      duration_ms: 30000,
      disconnection_reason: 'user_hangup',
      call_analysis: { call_summary: 'Left an email.', custom_analysis_data: { status: 'INTERESTED' } },
    });

  /** POSTs a body to one of our Retell endpoints, signed as Retell signs it. */
  async function signed(path: string, body: unknown, key = retell.apiKey) {
    const text = JSON.stringify(body);
    return t.request('POST', path, {
      headers: { 'content-type': 'application/json', 'x-retell-signature': await Retell.sign(text, key) },
      body: text,
    });
  }
  const webhookPath = () => `/providers/retell/webhook?credential=${ids.retellCredential}`;
  const toolPath = () => `/providers/retell/tools/${toolId}?credential=${ids.retellCredential}`;

  it('the calls keep the published shape', () => {
    const validate = publishedSchema('retell', 'V2PhoneCallResponse');
    for (const call of [retellCall('rc_shape'), analyzed('rc_shape')]) {
      expect(validate(call), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('records the call on call_started, runs its tool, and delivers its outcome once with direction inbound', async () => {
    const agentAtRetell = retell.agents.get(`${ids.retellAgentAtRetell}`);
    expect(agentAtRetell?.webhook_url).toBe(`${t.config.publicUrl}${webhookPath()}`);
    expect((await signed(webhookPath(), { event: 'call_started', call: retellCall('rc_in_1') })).status).toBe(200);
    const [recorded] = await callsOf(ids.retellAgent, 'rc_in_1');
    expect(recorded).toMatchObject({
      direction: 'inbound',
      provider: 'retell',
      from: '+14155557777',
      to: OUR_RETELL_NUMBER,
      status: 'in_progress',
    });
    const tool = await signed(toolPath(), {
      name: 'create_lead',
      args: { email: 'grace@example.com' },
      call: retellCall('rc_in_1'),
    });
    expect(tool.status).toBe(200);
    expect(tool.body).toEqual({ result: '{"leadId":"L-7"}' });
    for (let i = 0; i < 2; i++) {
      expect((await signed(webhookPath(), { event: 'call_analyzed', call: analyzed('rc_in_1') })).status).toBe(200);
    }
    const ended = await t.waitForCall(org, recorded.id);
    expect(ended).toMatchObject({ outcome: 'INTERESTED', direction: 'inbound' });
    expect(ended.toolInvocations.map((i: any) => i.name)).toEqual(['create_lead']);
    const payload = await deliveredOnce(recorded.id);
    expect(payload).toMatchObject({
      direction: 'inbound',
      from: '+14155557777',
      to: OUR_RETELL_NUMBER,
      status: 'INTERESTED',
      agentId: ids.retellAgent,
    });
    expect(await callsOf(ids.retellAgent, 'rc_in_1')).toHaveLength(1);
  });

  it('records a call whose first webhook is a tool call, signed without the credential in the URL', async () => {
    const path = `/providers/retell/tools/${toolId}`;
    const tool = await signed(path, {
      name: 'create_lead',
      args: { email: 'x@example.com' },
      call: retellCall('rc_in_2'),
    });
    expect(tool.status).toBe(200);
    const [recorded] = await callsOf(ids.retellAgent, 'rc_in_2');
    expect(recorded).toMatchObject({ direction: 'inbound', status: 'ringing' });
  });

  it('refuses, recording nothing: a wrong key, another credential’s URL, an outbound call Retell placed, an agent not ours', async () => {
    const before = (await get(`/v1/calls?agentId=${ids.retellAgent}&limit=100`)).body.data.length;
    expect(
      (await signed(webhookPath(), { event: 'call_started', call: retellCall('rc_x1') }, 'key_wrong')).status,
    ).toBe(401);
    expect(
      (await signed('/providers/retell/webhook', { event: 'call_started', call: retellCall('rc_x2') }, 'key_wrong'))
        .status,
    ).toBe(401);
    const otherKey = 'key_of_another_account_0001';
    const other = await post(
      '/v1/provider-credentials',
      { provider: 'retell', name: 'Retell of another', apiKey: otherKey },
      stranger,
    );
    const otherPath = `/providers/retell/webhook?credential=${other.body.id}`;
    expect((await signed(otherPath, { event: 'call_started', call: retellCall('rc_x3') }, otherKey)).status).toBe(404);
    const outbound = retellCall('rc_x4', { direction: 'outbound' });
    expect((await signed(webhookPath(), { event: 'call_started', call: outbound })).status).toBe(404);
    const notOurs = retellCall('rc_x5', { agent_id: 'agent_not_ours' });
    expect((await signed(webhookPath(), { event: 'call_started', call: notOurs })).status).toBe(404);
    expect((await get(`/v1/calls?agentId=${ids.retellAgent}&limit=100`)).body.data).toHaveLength(before);
  });
});

describe('incoming calls on the simulator', () => {
  it('plays the scenario as an incoming call: 201 with the call, its tool runs, its outcome is delivered once', async () => {
    const started = await post(`/v1/agents/${ids.simulatorAgent}/simulate-inbound`, {
      from: '+14155556666',
      variables: { name: 'Ada' },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      agentId: ids.simulatorAgent,
      provider: 'simulator',
      direction: 'inbound',
      from: '+14155556666',
      // The agent has no number of its own: the simulated line.
      to: '+15555550100',
      variables: { name: 'Ada' },
    });
    const ended = await t.waitForCall(org, started.body.id);
    expect(ended).toMatchObject({ outcome: 'INTERESTED', direction: 'inbound' });
    expect(ended.transcript.map((turn: any) => turn.text)).toEqual([
      'Hello, front desk.',
      'Hi, this is Ada.',
      '{"leadId":"L-7"}',
      'You are lead L-7.',
    ]);
    expect(ended.toolInvocations.map((i: any) => i.name)).toEqual(['create_lead']);
    const payload = await deliveredOnce(started.body.id);
    expect(payload).toMatchObject({ direction: 'inbound', from: '+14155556666', to: '+15555550100' });
  });

  it("calls the agent's number when it has one", async () => {
    const started = await post(`/v1/agents/${ids.vapiAgent}/simulate-inbound`, { from: '+14155556667' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ provider: 'simulator', direction: 'inbound', to: OUR_VAPI_NUMBER });
    await t.waitForCall(org, started.body.id);
  });

  it('refuses a bad caller or variables with 422, an agent that takes no incoming calls with 409, another’s with 404', async () => {
    const path = `/v1/agents/${ids.simulatorAgent}/simulate-inbound`;
    const cases: [unknown, string[]][] = [
      [{ from: '4155556666' }, ['$.from']],
      [{}, ['$.from']],
      [{ from: '+14155556666', variables: { name: 1 } }, ['$.variables.name']],
      [{ from: '+14155556666', variables: { systemPrompt: 'x' } }, ['$.variables.systemPrompt']],
      [{ from: '+14155556666', extra: true }, ['$.extra']],
    ];
    for (const [body, paths] of cases) {
      const refused = await post(path, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.details.map((d: any) => d.path)).toEqual(paths);
    }
    const seller = await post('/v1/agents', { name: 'Seller', type: 'click_to_call' });
    const notInbound = await post(`/v1/agents/${seller.body.id}/simulate-inbound`, { from: '+14155556666' });
    expect(notInbound.status).toBe(409);
    const off = await agent({ name: 'Closed desk', enabled: false });
    expect((await post(`/v1/agents/${off}/simulate-inbound`, { from: '+14155556666' })).status).toBe(409);
    expect((await post(path, { from: '+14155556666' }, stranger)).status).toBe(404);
    expect((await get(`/v1/calls?agentId=${seller.body.id}`)).body.data).toEqual([]);
  });
});

describe('the providers', () => {
  it('were sent only what their published OpenAPI files describe', () => {
    expect([...vapi.violations, ...retell.violations].join('\n')).toBe('');
  });
});
