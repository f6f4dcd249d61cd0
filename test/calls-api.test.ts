import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { until } from './helpers/wait.js';

// POST /v1/calls (issue 17, section 4; decision 0037): click to call's checks, in click to call's
// order, behind the organization's API key or session, answered in the management API's format.
let t: TestApp;
let org: Org;
let stranger: Org;
let vapi: FakeVapi;
let retell: FakeRetell;

beforeAll(async () => {
  vapi = await startFakeVapi({ phoneNumbers: ['+14155550100'] });
  retell = await startFakeRetell();
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
  org = await t.signup();
  stranger = await t.signup();
});
afterAll(async () => {
  await t.close();
  await vapi.close();
  await retell.close();
});

type Answer = Awaited<ReturnType<TestApp['request']>>;

const startCall = (body: unknown, headers: Record<string, string> = {}, as: Org = org): Promise<Answer> =>
  t.request('POST', '/v1/calls', { headers: { ...as.auth, ...headers }, body });

const agent = (body: Record<string, unknown> = {}, as: Org = org) =>
  t.createAgent(as, { name: 'Caller', type: 'outbound', ...body });

const callsOf = async (agentId: string) =>
  (await t.request('GET', `/v1/calls?agentId=${agentId}&limit=100`, { headers: org.auth })).body.data as {
    id: string;
    to: string;
  }[];

/** The refusal's status, api code and details (each with its ctc code), requestId aside. */
const refusal = (answer: Answer) => ({
  status: answer.status,
  code: answer.body.code,
  message: answer.body.message,
  details: answer.body.details,
});

describe('POST /v1/calls: success', () => {
  it('places a call through an outbound agent and answers 201 with the call as GET /v1/calls/:id shows it', async () => {
    const outbound = await agent({ prompt: 'Hello {{name}}, about {{topic}}', firstMessage: 'Hi {{name}}' });
    const phone = nextPhone();
    const answer = await startCall({ agentId: outbound.id, phone, variables: { name: 'Ada' } });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      agentId: outbound.id,
      provider: 'simulator',
      direction: 'outbound',
      from: '+15555550100',
      to: phone,
      // Variables the script uses and the request left out are "", as click to call sends them.
      variables: { name: 'Ada', topic: '' },
      summary: null,
      recordingUrl: null,
      warnings: [],
    });
    const read = await t.request('GET', `/v1/calls/${answer.body.id}`, { headers: org.auth });
    expect(Object.keys(answer.body).sort()).toEqual(Object.keys(read.body).sort());
    expect(answer.body.id).toMatch(/^call_/);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    const ended = await t.waitForCall(org, answer.body.id);
    expect(ended).toMatchObject({ outcome: 'COMPLETED', transcript: [{ role: 'agent', text: 'Hi Ada' }] });
  });

  it('places a call through a click-to-call agent, and with the dashboard session instead of an API key', async () => {
    const clickToCall = await agent({ type: 'click_to_call' });
    expect((await startCall({ agentId: clickToCall.id, phone: nextPhone() })).status).toBe(201);

    const email = `session-${Date.now()}@example.com`;
    const signup = await t.request('POST', '/v1/signup', {
      body: { organization: 'Session Co', email, password: 'correct horse battery' },
    });
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const own = await t.request('POST', '/v1/agents', {
      headers: { cookie },
      body: { name: 'Session caller', type: 'outbound' },
    });
    const bySession = await t.request('POST', '/v1/calls', {
      headers: { cookie },
      body: { agentId: own.body.id, phone: nextPhone() },
    });
    expect(bySession.status).toBe(201);
    // A write with the cookie from another site is refused before anything (decision 0024).
    const crossSite = await t.request('POST', '/v1/calls', {
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
      body: { agentId: own.body.id, phone: nextPhone() },
    });
    expect(crossSite.status).toBe(403);
    const placed = await t.request('GET', `/v1/calls?agentId=${own.body.id}`, { headers: { cookie } });
    expect(placed.body.data.map((call: { id: string }) => call.id)).toEqual([bySession.body.id]);
  });
});

describe('POST /v1/calls: who may call through which agent', () => {
  it('answers 401 without an API key or session, placing nothing', async () => {
    const outbound = await agent();
    const answer = await t.request('POST', '/v1/calls', { body: { agentId: outbound.id, phone: nextPhone() } });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('api:unauthorized');
    expect(await callsOf(outbound.id)).toEqual([]);
  });

  it("answers another organization's agent exactly as an agent that never existed, placing nothing", async () => {
    const outbound = await agent();
    const ask = async (agentId: string) => {
      const answer = await startCall({ agentId, phone: '+14155550199' }, {}, stranger);
      const { requestId: _differs, ...body } = answer.body;
      return { status: answer.status, body: JSON.parse(JSON.stringify(body).replaceAll(agentId, ':id')) };
    };
    const foreign = await ask(outbound.id);
    expect(foreign).toEqual({ status: 404, body: { code: 'api:not_found', message: 'Agent not found', details: [] } });
    expect(await ask('agt_00000000000000000000000000')).toEqual(foreign);
    expect(await callsOf(outbound.id)).toEqual([]);
  });

  it('answers 404 for a deleted agent', async () => {
    const gone = await agent();
    expect((await t.request('DELETE', `/v1/agents/${gone.id}`, { headers: org.auth })).status).toBe(204);
    expect((await startCall({ agentId: gone.id, phone: nextPhone() })).status).toBe(404);
  });

  it('refuses an inbound agent with 409, naming $.agentId', async () => {
    const inbound = await agent({ type: 'inbound' });
    const answer = await startCall({ agentId: inbound.id, phone: nextPhone() });
    expect(refusal(answer)).toEqual({
      status: 409,
      code: 'api:conflict',
      message: 'An inbound agent answers calls; it places none',
      details: [
        { path: '$.agentId', message: 'is an inbound agent: place calls through an outbound or click_to_call agent' },
      ],
    });
    expect(await callsOf(inbound.id)).toEqual([]);
  });
});

describe('POST /v1/calls: every check of click to call, in its order', () => {
  it('refuses a body of the wrong shape with 422 naming each field, before anything else', async () => {
    const outbound = await agent({ enabled: false });
    const missing = await startCall({ phone: nextPhone() });
    expect(refusal(missing)).toMatchObject({ status: 422, details: [{ path: '$.agentId', message: 'is required' }] });
    const shapes = await startCall({ agentId: outbound.id, phone: 14155550123, variables: { name: 7 }, extra: 1 });
    expect(shapes.status).toBe(422);
    expect(shapes.body.details.map((d: { path: string }) => d.path).sort()).toEqual(
      ['$.extra', '$.phone', '$.variables.name'].sort(),
    );
    const notJson = await t.request('POST', '/v1/calls', {
      headers: { ...org.auth, 'content-type': 'application/json' },
      body: '{"agentId":',
    });
    expect(refusal(notJson)).toMatchObject({ status: 422, details: [{ path: '$' }] });
  });

  it('ctc:009 as 422: an invalid number, a number it does not call, bad variables, each with its path and code', async () => {
    const outbound = await agent({ allowedCountries: ['US'] });
    const invalid = await startCall({ agentId: outbound.id, phone: '+1415' });
    expect(refusal(invalid)).toEqual({
      status: 422,
      code: 'api:validation',
      message: 'Invalid request body',
      details: [
        {
          path: '$.phone',
          message: 'must be a valid phone number in E.164 format, e.g. +14155550123',
          code: 'ctc:009',
        },
      ],
    });
    const premium = await startCall({ agentId: outbound.id, phone: '+19005550123' });
    expect(premium.body.details).toEqual([
      { path: '$.phone', message: expect.stringContaining('premium-rate'), code: 'ctc:009' },
    ]);
    const abroad = await startCall({ agentId: outbound.id, phone: '+442071838750' });
    expect(abroad.body.details).toEqual([
      {
        path: '$.phone',
        message: 'is a number of GB; this agent calls only US (its allowedCountries)',
        code: 'ctc:009',
      },
    ]);
    const variables = await startCall({
      agentId: outbound.id,
      phone: nextPhone(),
      variables: { systemPrompt: 'x', '': 'y', long: 'z'.repeat(4097) },
    });
    expect(variables.status).toBe(422);
    expect(variables.body.details).toEqual(
      expect.arrayContaining([
        { path: '$.variables.systemPrompt', message: expect.stringContaining('reserved'), code: 'ctc:009' },
        { path: '$.variables[""]', message: 'variable names must not be empty', code: 'ctc:009' },
        { path: '$.variables.long', message: 'values are at most 4096 characters', code: 'ctc:009' },
      ]),
    );
    expect(await callsOf(outbound.id)).toEqual([]);
  });

  it('ctc:004 as 409 for a disabled agent, before the body is judged (click to call’s order)', async () => {
    const disabled = await agent({ enabled: false });
    const answer = await startCall({ agentId: disabled.id, phone: '+1415' });
    expect(refusal(answer)).toEqual({
      status: 409,
      code: 'api:conflict',
      message: 'Agent is disabled',
      details: [{ path: '$.agentId', message: 'is disabled', code: 'ctc:004' }],
    });
  });

  it('ctc:005 as 409 for an agent that is not configured (a real provider without a caller id)', async () => {
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Vapi, no number', apiKey: vapi.apiKey, baseUrl: vapi.url },
    });
    const unconfigured = await agent({ provider: 'vapi', providerCredentialId: credential.body.id });
    const answer = await startCall({ agentId: unconfigured.id, phone: '+1415' });
    expect(refusal(answer)).toEqual({
      status: 409,
      code: 'api:conflict',
      message: 'Agent not configured',
      details: [
        {
          path: '$.agentId',
          message: 'is not configured: it needs a provider, and on Vapi or Retell a credential and a fromNumber',
          code: 'ctc:005',
        },
      ],
    });
  });

  it('ctc:010 as 429 with Retry-After past the rate limit, counted before the agent’s state (click to call’s order)', async () => {
    const limited = await agent({ rateLimitPerMinute: 1, enabled: false });
    expect((await startCall({ agentId: limited.id, phone: nextPhone() })).body.details[0].code).toBe('ctc:004');
    const over = await startCall({ agentId: limited.id, phone: nextPhone() });
    expect(refusal(over)).toEqual({
      status: 429,
      code: 'api:rate_limited',
      message: 'Too many requests',
      details: [
        {
          path: '$.agentId',
          message: 'is over its rateLimitPerMinute: Retry-After says when it takes calls again',
          code: 'ctc:010',
        },
      ],
    });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('ctc:007 as 409 while a call to the number is open, naming $.phone, and free again once it ends', async () => {
    // Open for 4 s: the second request must come while it is, also on a machine busy with other
    // test runs (with 800 ms, a CI run on a loaded machine once saw the first call end before it).
    const slow = await agent({ simulator: { delayMs: 4000 } });
    const phone = nextPhone();
    const first = await startCall({ agentId: slow.id, phone });
    expect(first.status).toBe(201);
    const busy = await startCall({ agentId: slow.id, phone });
    expect(refusal(busy)).toEqual({
      status: 409,
      code: 'api:conflict',
      message: 'Call already in progress',
      details: [{ path: '$.phone', message: 'has a call through this agent still open', code: 'ctc:007' }],
    });
    await t.waitForCall(org, first.body.id);
    expect((await startCall({ agentId: slow.id, phone })).status).toBe(201);
  });

  it('ctc:007 as 409 at maxConcurrentCalls, naming $.agentId', async () => {
    const single = await agent({ maxConcurrentCalls: 1, simulator: { delayMs: 4000 } });
    const first = await startCall({ agentId: single.id, phone: nextPhone() });
    expect(first.status).toBe(201);
    const second = await startCall({ agentId: single.id, phone: nextPhone() });
    expect(refusal(second)).toEqual({
      status: 409,
      code: 'api:conflict',
      message: 'Call already in progress',
      details: [{ path: '$.agentId', message: 'has as many calls open as its maxConcurrentCalls', code: 'ctc:007' }],
    });
    await t.waitForCall(org, first.body.id);
  });

  it('ctc:007 for all but one of simultaneous requests for one number: exactly one call', async () => {
    const outbound = await agent({ simulator: { delayMs: 1500 } });
    const phone = nextPhone();
    const answers = await Promise.all(Array.from({ length: 8 }, () => startCall({ agentId: outbound.id, phone })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.details[0].code === 'ctc:007')).toBe(true);
    expect(await callsOf(outbound.id)).toHaveLength(1);
  });

  it('ctc:008 as 500 with the failed call’s id when the provider refuses to start it; the number is free again', async () => {
    const refusing = await agent({ simulator: { answer: 'fail_to_start' } });
    const phone = nextPhone();
    const answer = await startCall({ agentId: refusing.id, phone });
    expect(refusal(answer)).toEqual({
      status: 500,
      code: 'api:internal',
      message: 'Error initiating call',
      details: [
        {
          path: '$',
          message: expect.stringContaining('failed_to_start'),
          code: 'ctc:008',
          callId: expect.stringMatching(/^call_/),
        },
      ],
    });
    const call = await t.waitForCall(org, answer.body.details[0].callId);
    expect(call).toMatchObject({ outcome: 'FAILED', endedReason: 'failed_to_start', error: expect.any(String) });
    // Not ctc:007: the failed start released its number.
    expect((await startCall({ agentId: refusing.id, phone })).body.details[0].code).toBe('ctc:008');
  });
});

describe('POST /v1/calls: Idempotency-Key', () => {
  it('answers a retry with the same key and body with the same call, marked replayed, placing one call', async () => {
    const outbound = await agent();
    const body = { agentId: outbound.id, phone: nextPhone(), variables: { name: 'Ada', plan: 'gold' } };
    const first = await startCall(body, { 'idempotency-key': 'order-1' });
    expect(first.status).toBe(201);
    await t.waitForCall(org, first.body.id);
    // The same request with its variables in another order is the same request.
    const again = await startCall(
      { variables: { plan: 'gold', name: 'Ada' }, phone: body.phone, agentId: outbound.id },
      { 'idempotency-key': 'order-1' },
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The call as it is now: it has ended since.
    expect(again.body).toMatchObject({ id: first.body.id, status: 'ended' });
    expect(await callsOf(outbound.id)).toHaveLength(1);
  });

  it('ctc:011 as 422 for a key used with another request, or of the wrong length', async () => {
    const outbound = await agent();
    const phone = nextPhone();
    expect((await startCall({ agentId: outbound.id, phone }, { 'idempotency-key': 'order-2' })).status).toBe(201);
    const other = await startCall({ agentId: outbound.id, phone: nextPhone() }, { 'idempotency-key': 'order-2' });
    expect(refusal(other)).toEqual({
      status: 422,
      code: 'api:validation',
      message: 'Invalid Idempotency-Key',
      details: [
        { path: 'headers.idempotency-key', message: 'was used with a different request body', code: 'ctc:011' },
      ],
    });
    const long = await startCall({ agentId: outbound.id, phone: nextPhone() }, { 'idempotency-key': 'k'.repeat(256) });
    expect(refusal(long)).toMatchObject({
      status: 422,
      details: [{ path: 'headers.idempotency-key', message: 'must be 1 to 255 characters', code: 'ctc:011' }],
    });
    expect(await callsOf(outbound.id)).toHaveLength(1);
  });

  it('is answered before the rate limit counts the retry, as click to call answers it', async () => {
    const limited = await agent({ rateLimitPerMinute: 1 });
    const body = { agentId: limited.id, phone: nextPhone() };
    const first = await startCall(body, { 'idempotency-key': 'order-3' });
    expect(first.status).toBe(201);
    const retry = await startCall(body, { 'idempotency-key': 'order-3' });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect((await startCall({ agentId: limited.id, phone: nextPhone() })).status).toBe(429);
  });

  it('places a call once for simultaneous requests with one key: the others replay it or are told it is in progress', async () => {
    const outbound = await agent();
    const body = { agentId: outbound.id, phone: nextPhone() };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => startCall(body, { 'idempotency-key': 'order-4' })),
    );
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
    expect(ids.size).toBe(1);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expect(refusal(answer)).toMatchObject({ status: 409, details: [{ code: 'ctc:012' }] });
    }
    expect(await callsOf(outbound.id)).toHaveLength(1);
  });

  it('releases the key of a call the provider refused: a retry tries again', async () => {
    const refusing = await agent({ simulator: { answer: 'fail_to_start' } });
    const body = { agentId: refusing.id, phone: nextPhone() };
    const first = await startCall(body, { 'idempotency-key': 'order-5' });
    const second = await startCall(body, { 'idempotency-key': 'order-5' });
    expect([first.status, second.status]).toEqual([500, 500]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.details[0].callId).not.toBe(first.body.details[0].callId);
  });

  it("keeps click to call's keys apart: the same key at both places two calls", async () => {
    const both = await agent({ type: 'click_to_call' });
    const { apiToken, apiSecret } = await t.credentials(org, both.id);
    const phone = nextPhone();
    const viaClickToCall = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone },
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(viaClickToCall.status).toBe(200);
    await t.waitForCall(org, viaClickToCall.body.callId);
    const viaApi = await startCall({ agentId: both.id, phone }, { 'idempotency-key': 'shared-key' });
    expect(viaApi.status).toBe(201);
    expect(viaApi.headers.get('idempotent-replayed')).toBeNull();
    expect(viaApi.body.id).not.toBe(viaClickToCall.body.callId);
    // And each still replays its own.
    const replayed = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone },
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(replayed.body.callId).toBe(viaClickToCall.body.callId);
  });
});

describe('POST /v1/calls through Vapi and Retell', () => {
  const published = (id: string) =>
    until('the agent published', async () => {
      const view = (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
      return view.providerSync.state === 'synced' ? view : undefined;
    });

  it('places the call with the published Vapi assistant, the variables and our call id', async () => {
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: {
        provider: 'vapi',
        name: 'Vapi',
        apiKey: vapi.apiKey,
        webhookSecret: 'vapi_secret_long_enough_1',
        baseUrl: vapi.url,
      },
    });
    const seller = await agent({
      provider: 'vapi',
      providerCredentialId: credential.body.id,
      fromNumber: '+14155550100',
      prompt: 'Sell to {{name}}.',
    });
    const view = await published(seller.id);
    const phone = nextPhone();
    const answer = await startCall({ agentId: seller.id, phone, variables: { name: 'Ada' } });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ provider: 'vapi', direction: 'outbound', from: '+14155550100', to: phone });
    const sent = [...vapi.calls.values()].find(
      (c) => c.assistantOverrides?.metadata?.switchboardCallId === answer.body.id,
    );
    expect(sent).toMatchObject({
      assistantId: view.providerSync.providerAgentId,
      customer: { number: phone },
      assistantOverrides: { variableValues: { name: 'Ada' } },
    });
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('places the call with the published Retell agent, the variables and our call id', async () => {
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'retell', name: 'Retell', apiKey: retell.apiKey, baseUrl: retell.url },
    });
    const seller = await agent({
      provider: 'retell',
      providerCredentialId: credential.body.id,
      fromNumber: '+14155550100',
      prompt: 'Book a visit with {{name}}.',
    });
    const view = await published(seller.id);
    const phone = nextPhone();
    const answer = await startCall({ agentId: seller.id, phone, variables: { name: 'Ada' } });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ provider: 'retell', to: phone });
    const sent = [...retell.calls.values()].find((c) => c.metadata?.switchboardCallId === answer.body.id);
    expect(sent).toMatchObject({
      from_number: '+14155550100',
      to_number: phone,
      override_agent_id: view.providerSync.providerAgentId,
      retell_llm_dynamic_variables: { name: 'Ada' },
    });
    expect(retell.violations.join('\n')).toBe('');
  });

  it('ctc:008 with the call’s id when the provider fails to start it', async () => {
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'retell', name: 'Retell failing', apiKey: retell.apiKey, baseUrl: retell.url },
    });
    const seller = await agent({
      provider: 'retell',
      providerCredentialId: credential.body.id,
      fromNumber: '+14155550100',
    });
    await published(seller.id);
    retell.failNext(1);
    const answer = await startCall({ agentId: seller.id, phone: nextPhone() });
    expect(refusal(answer)).toMatchObject({ status: 500, details: [{ code: 'ctc:008' }] });
    const call = await t.waitForCall(org, answer.body.details[0].callId);
    expect(call).toMatchObject({
      outcome: 'FAILED',
      endedReason: 'failed_to_start',
      error: expect.stringContaining('500'),
    });
  });
});
