import Retell from 'retell-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeCollectedData } from '../src/calls/collected-data.js';
import { endReportOf } from '../src/calls/end-report.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// A call's details from its end-of-call report (issue 17, sections 1 and 4; decision 0037): the
// summary, the recording, and the collected data typed against the agent's `collect`, on the call
// and in its outcome payload, through the fake providers and our real webhook receivers.
let t: TestApp;
let org: Org;
let vapi: FakeVapi;
let retell: FakeRetell;
let hooks: Receiver;
let vapiCredentialId: string;
let retellCredentialId: string;
const VAPI_SECRET = 'vapi_hook_secret_details_1';

/** What the agents below collect: one field of each type. */
const COLLECT = [
  { name: 'email', type: 'string', description: "The caller's email", required: true },
  { name: 'age', type: 'number', description: 'Their age in years', required: false },
  { name: 'subscribed', type: 'boolean', description: 'Whether they subscribed', required: false },
  { name: 'plan', type: 'enum', description: 'The plan chosen', choices: ['basic', 'gold'], required: false },
];

beforeAll(async () => {
  vapi = await startFakeVapi({ phoneNumbers: ['+14155550100'] });
  retell = await startFakeRetell();
  hooks = await startReceiver();
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100', SWITCHBOARD_ANALYSIS_GRACE_SECONDS: '1' });
  org = await t.signup();
  vapiCredentialId = (
    await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Vapi', apiKey: vapi.apiKey, webhookSecret: VAPI_SECRET, baseUrl: vapi.url },
    })
  ).body.id;
  retellCredentialId = (
    await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'retell', name: 'Retell', apiKey: retell.apiKey, baseUrl: retell.url },
    })
  ).body.id;
});
afterAll(async () => {
  await t.close();
  await vapi.close();
  await retell.close();
  await hooks.close();
});

/** An outbound agent, published when on a real provider, with a webhook integration to `hooks`. */
async function agentWithWebhook(body: Record<string, unknown>) {
  const agent = await t.createAgent(org, { name: 'Details', type: 'outbound', ...body });
  const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
    headers: org.auth,
    body: { url: `${hooks.url}/outcomes` },
  });
  expect(integration.status).toBe(201);
  if (agent.provider === 'simulator') return agent;
  return until('the agent published', async () => {
    const view = (await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth })).body;
    return view.providerSync.state === 'synced' ? view : undefined;
  });
}

async function placeCall(agentId: string, variables: Record<string, string> = { name: 'Ada' }) {
  const answer = await t.request('POST', '/v1/calls', {
    headers: org.auth,
    body: { agentId, phone: nextPhone(), variables },
  });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

/** The outcome payloads `hooks` received for the call. */
const payloadsOf = (callId: string) =>
  hooks.requests.map((request) => JSON.parse(request.body)).filter((payload) => payload.callId === callId);

/** The call's one outcome payload, once it arrived; then a moment more, to see that no second one does. */
async function deliveredOnce(callId: string) {
  const [payload] = await until('the outcome delivered', () => {
    const payloads = payloadsOf(callId);
    return payloads.length > 0 ? payloads : undefined;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(payloadsOf(callId)).toHaveLength(1);
  return payload;
}

const callOf = async (id: string) => (await t.request('GET', `/v1/calls/${id}`, { headers: org.auth })).body;

const vapiWebhook = (message: Record<string, unknown>) =>
  t.request('POST', '/providers/vapi/webhook', { headers: { 'x-vapi-secret': VAPI_SECRET }, body: { message } });

/** A Vapi end-of-call report for our call, in the published `ServerMessageEndOfCallReport` shape. */
function vapiReport(callId: string, analysis: Record<string, unknown>, artifact: Record<string, unknown> = {}) {
  return {
    type: 'end-of-call-report',
    endedReason: 'customer-ended-call',
    startedAt: '2026-11-21T10:00:00.000Z',
    endedAt: '2026-11-21T10:00:42.000Z',
    call: { id: `vapi-${callId}`, assistantOverrides: { metadata: { switchboardCallId: callId } } },
    artifact: { messages: [{ role: 'bot', message: 'Hi Ada', time: 1795341601000 }], ...artifact },
    analysis,
  };
}

describe('Vapi end-of-call reports', () => {
  it('give the call its summary, its recording and typed collected data, and the outcome payload the same', async () => {
    const agent = await agentWithWebhook({
      provider: 'vapi',
      providerCredentialId: vapiCredentialId,
      fromNumber: '+14155550100',
      collect: COLLECT,
    });
    const callId = await placeCall(agent.id);
    const answer = await vapiWebhook(
      vapiReport(
        callId,
        {
          summary: 'Ada subscribed to the gold plan.',
          structuredData: {
            status: 'SOLD',
            email: 'ada@example.com',
            age: '42',
            subscribed: 'true',
            plan: 'Gold',
            favouriteColour: 'green',
          },
        },
        { recording: { mono: { combinedUrl: 'https://storage.vapi.ai/details-mono.wav' } } },
      ),
    );
    expect(answer.status).toBe(200);
    const call = await t.waitForCall(org, callId);
    expect(call).toMatchObject({
      direction: 'outbound',
      outcome: 'SOLD',
      summary: 'Ada subscribed to the gold plan.',
      recordingUrl: 'https://storage.vapi.ai/details-mono.wav',
      warnings: [],
    });
    // Typed as declared; the undeclared key dropped.
    expect(call.collectedData).toStrictEqual({ email: 'ada@example.com', age: 42, subscribed: true, plan: 'gold' });

    const payload = await deliveredOnce(callId);
    expect(payload).toMatchObject({
      event: 'call.completed',
      status: 'SOLD',
      direction: 'outbound',
      summary: 'Ada subscribed to the gold plan.',
      recordingUrl: 'https://storage.vapi.ai/details-mono.wav',
      warnings: [],
    });
    expect(payload.collectedData).toStrictEqual(call.collectedData);
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('keeps an ill-typed value as its text with a warning, and still delivers the outcome once', async () => {
    const agent = await agentWithWebhook({
      provider: 'vapi',
      providerCredentialId: vapiCredentialId,
      fromNumber: '+14155550100',
      collect: COLLECT,
    });
    const callId = await placeCall(agent.id);
    const report = vapiReport(callId, {
      structuredData: { status: 'INTERESTED', email: 'ada@example.com', age: 'forty', plan: 'platinum' },
    });
    expect((await vapiWebhook(report)).status).toBe(200);
    const call = await t.waitForCall(org, callId);
    expect(call).toMatchObject({
      outcome: 'INTERESTED',
      collectedData: { email: 'ada@example.com', age: 'forty', plan: 'platinum' },
      warnings: [
        'collectedData.age: expected a number, got "forty"',
        'collectedData.plan: expected one of "basic", "gold", got "platinum"',
      ],
      summary: null,
      recordingUrl: null,
    });
    // Vapi sends its report again: nothing changes, and the outcome goes out once.
    expect((await vapiWebhook(report)).status).toBe(200);
    const payload = await deliveredOnce(callId);
    expect(payload).toMatchObject({
      status: 'INTERESTED',
      collectedData: { age: 'forty' },
      warnings: call.warnings,
    });
    expect((await callOf(callId)).warnings).toEqual(call.warnings);
  });

  it('drops a recording that is not an http(s) URL, with a warning', async () => {
    const agent = await agentWithWebhook({
      provider: 'vapi',
      providerCredentialId: vapiCredentialId,
      fromNumber: '+14155550100',
    });
    const callId = await placeCall(agent.id);
    await vapiWebhook(
      vapiReport(
        callId,
        { summary: 'Short call.', structuredData: { status: 'COMPLETED' } },
        { recordingUrl: 'javascript:alert(1)' },
      ),
    );
    const call = await t.waitForCall(org, callId);
    expect(call).toMatchObject({
      summary: 'Short call.',
      recordingUrl: null,
      warnings: ['recordingUrl: not an http or https URL (javascript:); dropped'],
    });
    expect((await deliveredOnce(callId)).recordingUrl).toBeNull();
  });

  it('keeps every reported key, untyped, for an agent that declares nothing (what it did before collect)', async () => {
    const agent = await agentWithWebhook({
      provider: 'vapi',
      providerCredentialId: vapiCredentialId,
      fromNumber: '+14155550100',
    });
    expect(agent.collect).toEqual([]);
    const callId = await placeCall(agent.id);
    await vapiWebhook(vapiReport(callId, { structuredData: { status: 'SOLD', age: '42', notes: { a: 1 } } }));
    const call = await t.waitForCall(org, callId);
    expect(call.collectedData).toStrictEqual({ age: '42', notes: { a: 1 } });
    expect(call.warnings).toEqual([]);
  });
});

describe('Retell calls', () => {
  let webhookPath: string;
  let agentId: string;

  beforeAll(async () => {
    const agent = await agentWithWebhook({
      provider: 'retell',
      providerCredentialId: retellCredentialId,
      fromNumber: '+14155550100',
      collect: COLLECT,
    });
    agentId = agent.id;
    const { pathname, search } = new URL(retell.agents.get(agent.providerSync.providerAgentId)?.webhook_url);
    webhookPath = `${pathname}${search}`;
  });

  const signed = async (body: unknown) => {
    const text = JSON.stringify(body);
    const signature = await Retell.sign(text, retell.apiKey);
    return t.request('POST', webhookPath, {
      headers: { 'content-type': 'application/json', 'x-retell-signature': signature },
      body: text,
    });
  };

  /** A Retell call of ours in the published `V2PhoneCallResponse` shape. */
  const retellCall = (callId: string, extra: Record<string, unknown> = {}) => {
    const start = Date.now() - 30_000;
    return {
      call_type: 'phone_call',
      from_number: '+14155550100',
      to_number: '+14155550123',
      direction: 'outbound',
      call_id: `rc-${callId}`,
      agent_id: 'agent_x',
      call_status: 'ended',
      metadata: { switchboardCallId: callId },
      start_timestamp: start,
      end_timestamp: start + 20_000,
      duration_ms: 20_000,
      disconnection_reason: 'user_hangup',
      transcript_object: [{ role: 'agent', content: 'Hello Ada', words: [{ word: 'Hello', start: 0.2, end: 0.5 }] }],
      recording_url: 'https://retellai.s3.us-west-2.amazonaws.com/details/recording.wav',
      ...extra,
    };
  };

  it('call_analyzed gives the call its summary, its recording and typed collected data', async () => {
    const callId = await placeCall(agentId);
    const answer = await signed({
      event: 'call_analyzed',
      call: retellCall(callId, {
        collected_dynamic_variables: { email: 'ada@example.com' },
        call_analysis: {
          in_voicemail: false,
          call_summary: 'Ada chose the basic plan.',
          custom_analysis_data: { status: 'SOLD', age: 42, subscribed: 'no', plan: 'basic' },
        },
      }),
    });
    expect(answer.status).toBe(200);
    const call = await t.waitForCall(org, callId);
    expect(call).toMatchObject({
      outcome: 'SOLD',
      summary: 'Ada chose the basic plan.',
      recordingUrl: 'https://retellai.s3.us-west-2.amazonaws.com/details/recording.wav',
      collectedData: { email: 'ada@example.com', age: 42, subscribed: 'no', plan: 'basic' },
      warnings: ['collectedData.subscribed: expected true or false, got "no"'],
    });
    const payload = await deliveredOnce(callId);
    expect(payload).toMatchObject({
      status: 'SOLD',
      summary: 'Ada chose the basic plan.',
      recordingUrl: call.recordingUrl,
      collectedData: call.collectedData,
      warnings: call.warnings,
    });
    expect(retell.violations.join('\n')).toBe('');
  });

  it('an answered call_ended never analysed ends after the grace period with its recording and typed data', async () => {
    const callId = await placeCall(agentId);
    await signed({
      event: 'call_ended',
      call: retellCall(callId, { collected_dynamic_variables: { email: 'ada@example.com', age: '7', other: 'x' } }),
    });
    const call = await t.waitForCall(org, callId);
    expect(call).toMatchObject({
      outcome: 'COMPLETED',
      endedReason: 'user_hangup',
      summary: null,
      recordingUrl: 'https://retellai.s3.us-west-2.amazonaws.com/details/recording.wav',
      warnings: [],
    });
    expect(call.collectedData).toStrictEqual({ email: 'ada@example.com', age: 7 });
    expect((await deliveredOnce(callId)).recordingUrl).toBe(call.recordingUrl);
  });
});

describe('the simulator', () => {
  it("sends its scenario's summary, filled with the call's variables", async () => {
    const agent = await agentWithWebhook({
      collect: [COLLECT[3]],
      simulator: {
        outcome: { status: 'SOLD', collectedData: { plan: 'gold' }, summary: '{{name}} chose gold.' },
      },
    });
    const callId = await placeCall(agent.id, { name: 'Ada' });
    const call = await t.waitForCall(org, callId);
    expect(call).toMatchObject({
      outcome: 'SOLD',
      summary: 'Ada chose gold.',
      recordingUrl: null,
      collectedData: { plan: 'gold' },
      warnings: [],
    });
    expect(await deliveredOnce(callId)).toMatchObject({ summary: 'Ada chose gold.', collectedData: { plan: 'gold' } });
  });

  it('an unanswered call has no summary', async () => {
    const agent = await agentWithWebhook({
      simulator: { answer: 'no_answer', outcome: { summary: 'Never said.' } },
    });
    const call = await t.waitForCall(org, await placeCall(agent.id));
    expect(call).toMatchObject({ outcome: 'NO_ANSWER', summary: null });
  });
});

describe('typing collected data (the pure functions)', () => {
  it('coerces what reads as the declared type, and keeps the rest as text with one warning each', () => {
    const typed = typeCollectedData(
      {
        email: 42,
        age: ' -3.5 ',
        subscribed: 'FALSE',
        plan: 'GOLD',
        ignored: 'x',
      },
      COLLECT,
    );
    expect(typed).toStrictEqual({
      data: { email: '42', age: -3.5, subscribed: false, plan: 'gold' },
      warnings: [],
    });
    const wrong = typeCollectedData(
      { email: { first: 'ada' }, age: '42 years', subscribed: 1, plan: ['gold'] },
      COLLECT,
    );
    expect(wrong).toStrictEqual({
      data: { email: '{"first":"ada"}', age: '42 years', subscribed: '1', plan: '["gold"]' },
      warnings: [
        'collectedData.email: expected a string, got {"first":"ada"}',
        'collectedData.age: expected a number, got "42 years"',
        'collectedData.subscribed: expected true or false, got 1',
        'collectedData.plan: expected one of "basic", "gold", got ["gold"]',
      ],
    });
  });

  it('drops nulls and undeclared keys, reads collect structurally, and never takes a prototype key', () => {
    expect(typeCollectedData({ email: null, age: 1 }, COLLECT)).toStrictEqual({ data: { age: 1 }, warnings: [] });
    // Malformed declarations are skipped; none left: every key kept.
    expect(typeCollectedData({ a: 1 }, [{ name: 'x' }, 'y', null, { name: 'z', type: 'date' }])).toStrictEqual({
      data: { a: 1 },
      warnings: [],
    });
    expect(typeCollectedData({ a: 1 }, null)).toStrictEqual({ data: { a: 1 }, warnings: [] });
    const reported = JSON.parse('{"__proto__": "x", "constructor": 1}');
    const typed = typeCollectedData(reported, [
      { name: '__proto__', type: 'string' },
      { name: 'toString', type: 'string' },
    ]);
    expect(Object.keys(typed.data)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(typed.data)).toBe(Object.prototype);
  });

  it('bounds what a report records: a long summary is cut, warnings are capped, a URL over its budget is dropped', () => {
    const end = endReportOf(
      {
        type: 'ended',
        callId: 'call_x',
        at: new Date(),
        outcome: 'SOLD',
        endedReason: 'agent_hangup',
        collectedData: Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`n${i}`, 'not a number'])),
        durationSeconds: 1,
        summary: 's'.repeat(20_000),
        recordingUrl: `https://r.example/${'a'.repeat(3000)}`,
      },
      Array.from({ length: 80 }, (_, i) => ({ name: `n${i}`, type: 'number' })),
    );
    expect(Buffer.byteLength(end.summary ?? '')).toBeLessThanOrEqual(16 * 1024);
    expect(end.summary).toMatch(/bytes cut/);
    expect(end.recordingUrl).toBeUndefined();
    expect(end.warnings).toHaveLength(64);
    expect(end.warnings?.slice(0, 2)).toEqual([
      'recordingUrl: longer than 2048 bytes; dropped',
      'collectedData.n0: expected a number, got "not a number"',
    ]);
  });
});
