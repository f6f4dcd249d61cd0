import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallsRepository } from '../src/calls/calls.repository.js';
import { nextPhone, type Org, startOtherProcess, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { startProxyToDatabase } from './helpers/tcp-proxy.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let vapi: FakeVapi;
let endpoint: Receiver;
let credentialId: string;
let agentId: string;
let creds: { apiToken: string; apiSecret: string };
const SECRET = 'vapi_hook_secret_1_long_enough';
const masterKey = randomBytes(32);
/** Added to the app's clock: a changed secret's 24 hours pass in a moment. */
let clockOffsetMs = 0;

async function vapiAgent(body: Record<string, unknown> = {}) {
  const created = await t.request('POST', '/v1/agents', {
    headers: org.auth,
    body: {
      name: 'Vapi seller',
      provider: 'vapi',
      providerCredentialId: credentialId,
      fromNumber: '+14155550100',
      prompt: 'Sell to {{name}}.',
      firstMessage: 'Hi {{name}}!',
      ...body,
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

const synced = (id: string) =>
  until('the agent published', async () => {
    const agent = (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
    return agent.providerSync.state === 'synced' ? agent : undefined;
  });

beforeAll(async () => {
  vapi = await startFakeVapi({ phoneNumbers: ['+14155550100'] });
  endpoint = await startReceiver((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"leadId":"L-7"}');
  });
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' }, masterKey, {
    now: () => new Date(Date.now() + clockOffsetMs),
  });
  org = await t.signup();
  credentialId = (
    await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Vapi', apiKey: vapi.apiKey, webhookSecret: SECRET, baseUrl: vapi.url },
    })
  ).body.id;
  const tool = await t.request('POST', '/v1/tools', {
    headers: org.auth,
    body: {
      name: 'create_lead',
      method: 'POST',
      url: `${endpoint.url}/leads`,
      parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true }],
    },
  });
  const agent = await vapiAgent({ toolIds: [tool.body.id] });
  agentId = agent.id;
  await synced(agentId);
  creds = await t.credentials(org, agentId);
});
afterAll(async () => {
  await t.close();
  await vapi.close();
  await endpoint.close();
});

const clickToCall = (phone = nextPhone()) =>
  t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone, variables: { name: 'Ada' } } });

/** POSTs a Vapi webhook; `secret: null` sends none. */
const webhook = (body: unknown, secret: string | null = SECRET) =>
  t.request('POST', '/providers/vapi/webhook', { headers: secret === null ? {} : { 'x-vapi-secret': secret }, body });

/** An end-of-call report of `call` (Vapi's call) 30 s long: SOLD with one turn unless told otherwise. */
const endOfCallReport = (
  call: Record<string, unknown>,
  structuredData: Record<string, unknown> = { status: 'SOLD' },
  messages: Record<string, unknown>[] = [{ role: 'user', message: 'Yes', time: 1795341604000, secondsFromStart: 4 }],
) => ({
  message: {
    type: 'end-of-call-report',
    endedReason: 'customer-ended-call',
    startedAt: '2026-11-21T10:00:00.000Z',
    endedAt: '2026-11-21T10:00:30.000Z',
    call,
    artifact: { messages },
    analysis: { structuredData },
  },
});

const callOf = async (id: string) => (await t.request('GET', `/v1/calls/${id}`, { headers: org.auth })).body;

describe('calls through Vapi', () => {
  it('places the call with the published assistant, the account’s number, the variables and our call id', async () => {
    const phone = nextPhone();
    const answer = await clickToCall(phone);
    expect(answer.status).toBe(200);
    const callId = answer.body.callId;
    const sent = [...vapi.calls.values()].find((c) => c.assistantOverrides?.metadata?.switchboardCallId === callId);
    const agent = (await t.request('GET', `/v1/agents/${agentId}`, { headers: org.auth })).body;
    expect(sent).toMatchObject({
      assistantId: agent.providerSync.providerAgentId,
      phoneNumberId: 'pn_0',
      customer: { number: phone },
      assistantOverrides: { variableValues: { name: 'Ada' }, metadata: { switchboardCallId: callId } },
    });
    const call = await until('the provider call id', async () => {
      const c = await callOf(callId);
      return c.providerCallId ? c : undefined;
    });
    expect(call).toMatchObject({ provider: 'vapi', providerCallId: sent?.id, status: 'queued' });
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('refuses webhooks without the secret, with a wrong one, or for a call it does not know, changing nothing', async () => {
    const callId = (await clickToCall()).body.callId;
    const report = {
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        call: { id: 'x', assistantOverrides: { metadata: { switchboardCallId: callId } } },
        artifact: { messages: [] },
        analysis: { structuredData: { status: 'SOLD' } },
      },
    };
    expect((await webhook(report, null)).status).toBe(401);
    expect((await webhook(report, 'wrong')).status).toBe(401);
    const unknown = structuredClone(report);
    unknown.message.call.assistantOverrides.metadata.switchboardCallId = 'call_unknown';
    expect((await webhook(unknown)).status).toBe(404);
    expect((await callOf(callId)).status).toBe('queued');
  });

  it('answers a request without valid credentials alike whether its call exists or not, and another credential’s secret as an unknown call', async () => {
    const callId = (await clickToCall()).body.callId;
    // Another organization's Vapi credential: its secret passes the check before the body.
    const otherSecret = 'vapi_hook_secret_of_another_account';
    const stranger = await t.signup();
    const other = await t.request('POST', '/v1/provider-credentials', {
      headers: stranger.auth,
      body: { provider: 'vapi', name: 'Vapi of another', apiKey: vapi.apiKey, webhookSecret: otherSecret },
    });
    expect(other.status).toBe(201);
    const naming = (id: string) => ({
      message: {
        type: 'status-update',
        status: 'in-progress',
        call: { id: 'x', assistantOverrides: { metadata: { switchboardCallId: id } } },
      },
    });
    const answer = async (id: string, secret: string | null) => {
      const sent = await webhook(naming(id), secret);
      return { secret, status: sent.status, body: sent.body };
    };
    for (const secret of [null, 'wrong', otherSecret]) {
      expect(await answer(callId, secret)).toEqual(await answer('call_unknown', secret));
    }
    expect(await answer(callId, otherSecret)).toEqual({
      secret: otherSecret,
      status: 404,
      body: { error: 'No call of ours has this id' },
    });
    expect((await callOf(callId)).status).toBe('queued');
  });

  it('runs tool calls through the tools engine and answers in Vapi’s shape; status updates and the report end the call once', async () => {
    const callId = (await clickToCall()).body.callId;
    const call = { id: 'vapi-1', assistantOverrides: { metadata: { switchboardCallId: callId } } };
    expect((await webhook({ message: { type: 'status-update', status: 'ringing', call } })).status).toBe(200);
    await webhook({ message: { type: 'status-update', status: 'in-progress', call } });
    expect((await callOf(callId)).status).toBe('in_progress');

    const toolCalls = await webhook({
      message: {
        type: 'tool-calls',
        call,
        toolWithToolCallList: [],
        toolCallList: [
          { id: 'tc1', type: 'function', function: { name: 'create_lead', arguments: '{"email":"ada@example.com"}' } },
        ],
      },
    });
    expect(toolCalls.status).toBe(200);
    expect(toolCalls.body).toEqual({
      results: [{ toolCallId: 'tc1', name: 'create_lead', result: '{"leadId":"L-7"}' }],
    });
    expect(JSON.parse(endpoint.requests.at(-1)?.body ?? '{}')).toEqual({ email: 'ada@example.com' });

    const report = endOfCallReport(call, { status: 'SOLD', email: 'ada@example.com' }, [
      { role: 'bot', message: 'Hi Ada!', time: 1795341601000, secondsFromStart: 1 },
      { role: 'user', message: 'ada@example.com', time: 1795341604000, secondsFromStart: 4 },
    ]);
    expect((await webhook(report)).status).toBe(200);
    const ended = await until('the call ended', async () => {
      const c = await callOf(callId);
      return c.status === 'ended' ? c : undefined;
    });
    expect(ended).toMatchObject({
      outcome: 'SOLD',
      endedReason: 'customer-ended-call',
      collectedData: { email: 'ada@example.com' },
      durationSeconds: 30,
    });
    expect(ended.transcript.map((turn: { text: string }) => turn.text)).toEqual(['Hi Ada!', 'ada@example.com']);
    expect(ended.toolInvocations).toHaveLength(1);

    // The same report again, or a different one, changes nothing: a call ends once.
    const again = structuredClone(report);
    again.message.endedReason = 'customer-busy';
    expect((await webhook(again)).status).toBe(200);
    expect(await callOf(callId)).toMatchObject({ outcome: 'SOLD', endedReason: 'customer-ended-call' });
  });

  // Vapi retries a report answered otherwise than 2xx, as the published assistant asks (decision 0095).
  it.runIf(process.env.TEST_DATABASE_URL)(
    'answers a report it cannot store 5xx, so that Vapi sends it again, and ends the call with the retry, once',
    async () => {
      // A second process, on the same database through a proxy the test can take the database from.
      const proxy = await startProxyToDatabase(t.db.url as string);
      const other = await startOtherProcess(proxy.via(t.db.url as string), masterKey);
      try {
        const callId = (await clickToCall()).body.callId;
        const report = endOfCallReport({
          id: 'vapi-fault',
          assistantOverrides: { metadata: { switchboardCallId: callId } },
        });
        const send = async () => {
          const response = await fetch(`${other.origin}/providers/vapi/webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-vapi-secret': SECRET },
            body: JSON.stringify(report),
          });
          return response.status;
        };
        await proxy.down();
        const refused = await send();
        expect(refused).toBeGreaterThanOrEqual(500);
        expect(refused).toBeLessThan(600);
        expect((await callOf(callId)).status).not.toBe('ended');

        await proxy.restore();
        const retried = await until('the retry taken', async () => ((await send()) === 200 ? true : undefined), 15_000);
        expect(retried).toBe(true);
        expect(await callOf(callId)).toMatchObject({
          status: 'ended',
          outcome: 'SOLD',
          endedReason: 'customer-ended-call',
        });
        // Retried again (its answer lost on the way back, say): taken, and nothing changes.
        const before = await callOf(callId);
        expect(await send()).toBe(200);
        expect(await callOf(callId)).toEqual(before);
      } finally {
        await other.close();
        await proxy.close();
      }
    },
  );

  it('waits past the maximum duration for the report of a call that ran to it, and ends the call with it (decision 0097)', async () => {
    // Vapi's shortest maximum: Vapi counts it from later than we do, and reports after its analysis.
    const short = await vapiAgent({ name: 'Short calls', maxCallDurationSeconds: 10 });
    await synced(short.id);
    const shortCreds = await t.credentials(org, short.id);
    const placed = await t.clickToCall({
      token: shortCreds.apiToken,
      secret: shortCreds.apiSecret,
      body: { phone: nextPhone(), variables: { name: 'Ada' } },
    });
    expect(placed.status).toBe(200);
    const callId = placed.body.callId;
    const call = { id: 'vapi-long', assistantOverrides: { metadata: { switchboardCallId: callId } } };
    await webhook({ message: { type: 'status-update', status: 'in-progress', call } });
    // Past its maximum (the sweep runs every 100 ms here): still open, its report awaited.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect((await callOf(callId)).status).toBe('in_progress');
    expect((await webhook(endOfCallReport(call))).status).toBe(200);
    expect(await callOf(callId)).toMatchObject({
      status: 'ended',
      outcome: 'SOLD',
      endedReason: 'customer-ended-call',
    });
  }, 30_000);

  it('finds the call of each of many messages that arrive at once, and none for an id not ours', async () => {
    // Their calls are looked up a batch per statement: each message must still get its own call.
    const callIds: string[] = [];
    for (let i = 0; i < 6; i++) callIds.push((await clickToCall()).body.callId);
    const [first, second] = callIds as [string, string];
    // Asked in the same turn of the event loop, so they share one statement.
    const calls = createCallsRepository(t.db.database.db);
    // An id with a NUL (which PostgreSQL's text refuses) or too long to be ours fails none of the others.
    const asked = [first, 'call_0000000000notoursatall00', second, first, 'x'.repeat(5000), 'call_\u0000x'];
    const found = await Promise.all(asked.map((id) => calls.providerContext(id)));
    expect(found.map((context) => context?.id)).toEqual([first, undefined, second, first, undefined, undefined]);
    expect(found[0]).toEqual({
      id: first,
      provider: 'vapi',
      organizationId: org.organization.id,
      providerCredentialId: credentialId,
      outcomes: expect.any(Array),
      collect: expect.any(Array),
    });
    // And through the webhook, each report ends its own call.
    const reportOf = (callId: string, seconds: number) => {
      const report = endOfCallReport({
        id: `vapi_${callId}`,
        assistantOverrides: { metadata: { switchboardCallId: callId } },
      });
      report.message.endedAt = new Date(Date.parse(report.message.startedAt) + seconds * 1000).toISOString();
      return report;
    };
    const answers = await Promise.all([
      ...callIds.map((callId, i) => webhook(reportOf(callId, 10 + i))),
      webhook(reportOf('call_0000000000notoursatall00', 5)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([...callIds.map(() => 200), 404]);
    for (const [i, callId] of callIds.entries()) {
      expect(await callOf(callId)).toMatchObject({ status: 'ended', durationSeconds: 10 + i });
    }
  });

  it('ends a call whose report carries data nested thousands of levels deep, or a NUL, keeping the rest', async () => {
    const callId = (await clickToCall()).body.callId;
    const call = { id: 'vapi-deep', assistantOverrides: { metadata: { switchboardCallId: callId } } };
    // Sent as raw text: 10,000 levels is past what JSON.stringify (and so the test's own client) can write.
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const raw = `{"message":{"type":"end-of-call-report","endedReason":"customer-ended-call","call":${JSON.stringify(call)},
      "analysis":{"structuredData":{"status":"SOLD","email":"ada@example.com","deep":${deep},"note\\u0000":"a\\u0000b"}}}}`;
    const answer = await t.request('POST', '/providers/vapi/webhook', {
      headers: { 'x-vapi-secret': SECRET, 'content-type': 'application/json' },
      body: raw,
    });
    expect(answer.status).toBe(200);
    const ended = await until('the call ended', async () => {
      const c = await callOf(callId);
      return c.status === 'ended' ? c : undefined;
    });
    expect(ended.outcome).toBe('SOLD');
    expect(ended.collectedData.email).toBe('ada@example.com');
    expect(ended.collectedData['note\uFFFD']).toBe('a\uFFFDb');
    // Kept to the depth the API takes anywhere (100 levels); below it, what was cut off is said so.
    let level = ended.collectedData.deep;
    let depth = 0;
    while (Array.isArray(level)) {
      level = level[0];
      depth++;
    }
    expect(depth).toBeLessThan(100);
    expect(level).toMatch(/nested deeper than/);
  });

  it('reads bodies of any size alike: a large report ends its call; not JSON, a forbidden key or no body is refused as before', async () => {
    const callId = (await clickToCall()).body.callId;
    const call = { id: 'vapi-large', assistantOverrides: { metadata: { switchboardCallId: callId } } };
    // 200 turns with the words' timings Vapi also sends: about 60 KB, parsed off the event loop (decision 0121).
    const messages = Array.from({ length: 200 }, (_, i) => ({
      role: i % 2 ? 'user' : 'bot',
      message: `Turn ${i}: ${'words '.repeat(20)}`,
      time: 1795341604000 + i * 1000,
      secondsFromStart: i,
      words: Array.from({ length: 5 }, (_, w) => ({ word: 'words', start: i + w / 10, end: i + w / 10 + 0.05 })),
    }));
    const report = endOfCallReport(call, { status: 'SOLD', email: 'ada@example.com' }, messages);
    expect(JSON.stringify(report).length).toBeGreaterThan(32 * 1024);
    expect((await webhook(report)).status).toBe(200);
    const ended = await until('the call ended', async () => {
      const c = await callOf(callId);
      return c.status === 'ended' ? c : undefined;
    });
    expect([ended.outcome, ended.collectedData, ended.durationSeconds]).toEqual([
      'SOLD',
      { email: 'ada@example.com' },
      30,
    ]);
    expect(ended.transcript).toHaveLength(200);
    expect(ended.transcript[199]).toEqual({
      role: 'user',
      text: messages[199]?.message,
      at: new Date(1795341604000 + 199_000).toISOString(),
    });

    const send = (body: string) =>
      t.request('POST', '/providers/vapi/webhook', {
        headers: { 'x-vapi-secret': SECRET, 'content-type': 'application/json' },
        body,
      });
    const notJson = await send(`{"message": {"type": "status-update", ${' '.repeat(40_000)} "status": }}`);
    expect(notJson.status).toBe(422);
    expect([notJson.body.code, notJson.body.details]).toEqual([
      'api:validation',
      [{ path: '$', message: expect.stringMatching(/^The body is not valid JSON: /) }],
    ]);
    for (const key of [
      '"__proto__": {"x": 1}',
      '"\\u005f_proto__": {"x": 1}',
      '"constructor": {"prototype": {"x": 1}}',
    ]) {
      const forbidden = await send(`{"message": {"type": "status-update", ${key}}}`);
      expect([forbidden.status, forbidden.body.code, forbidden.body.details]).toEqual([
        422,
        'api:validation',
        [{ path: '$', message: 'The body contains a forbidden key (__proto__ or constructor.prototype)' }],
      ]);
    }
    const noBody = await send('  ');
    expect([noBody.status, noBody.body]).toEqual([400, { error: 'The body has no message object' }]);
    // A byte-order mark is read past, as before.
    const bom = await send(`\uFEFF${JSON.stringify({ message: { type: 'status-update', status: 'ringing', call } })}`);
    expect(bom.status).toBe(200);
    // A word that only might be a forbidden key is read, as before.
    const message = { type: 'status-update', status: 'ringing', call, note: 'the constructor said "__proto__"' };
    expect((await send(JSON.stringify({ message }))).status).toBe(200);
  });

  it('answers ctc:008 with Vapi’s refusal recorded on the call, and frees the number', async () => {
    vapi.failNext(1);
    const phone = nextPhone();
    const refused = await clickToCall(phone);
    expect(refused.status).toBe(500);
    expect(refused.body.code).toBe('ctc:008');
    const call = await callOf(refused.body.callId);
    expect(call).toMatchObject({ status: 'ended', outcome: 'FAILED', endedReason: 'failed_to_start' });
    expect(call.error).toContain('HTTP 500');
    expect((await clickToCall(phone)).status).toBe(200);
  });

  it('refuses to place a call for an agent not yet published, saying so', async () => {
    vapi.failNext(1000);
    try {
      const agent = await vapiAgent({ name: 'Unpublished' });
      const c = await t.credentials(org, agent.id);
      const refused = await t.clickToCall({ token: c.apiToken, secret: c.apiSecret, body: { phone: nextPhone() } });
      expect(refused.body.code).toBe('ctc:008');
      expect((await callOf(refused.body.callId)).error).toContain('not published at Vapi yet');
    } finally {
      vapi.failNext(0);
    }
  });

  it('keeps opening the webhook to a changed secret for 24 hours, the calls under way send it; revoked, at once (decision 0096)', async () => {
    const callId = (await clickToCall()).body.callId;
    const call = { id: 'vapi-rotated', assistantOverrides: { metadata: { switchboardCallId: callId } } };
    const status = (secret: string, state = 'ringing') =>
      webhook({ message: { type: 'status-update', status: state, call } }, secret);
    const patch = (body: Record<string, unknown>) =>
      t.request('PATCH', `/v1/provider-credentials/${credentialId}`, { headers: org.auth, body });
    const read = async () =>
      (await t.request('GET', `/v1/provider-credentials/${credentialId}`, { headers: org.auth })).body;
    // Opened once with the current secret: the credential is now held in memory.
    expect((await status(SECRET)).status).toBe(200);
    expect((await read()).previousWebhookSecretExpiresAt).toBeNull();
    const rotated = 'vapi_hook_secret_rotated_0123456789';
    const third = 'vapi_hook_secret_third_0123456789ab';
    try {
      const changedAt = Date.now();
      const changed = await patch({ webhookSecret: rotated });
      expect(changed.status).toBe(200);
      const expiresAt = Date.parse(changed.body.previousWebhookSecretExpiresAt);
      expect(expiresAt - changedAt).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
      expect(expiresAt - changedAt).toBeLessThanOrEqual(24 * 3600_000 + 5000);
      // Both open it: the old one for the calls under way, the new one for every call.
      expect((await status(SECRET)).status).toBe(200);
      expect((await status(rotated, 'in-progress')).status).toBe(200);
      expect((await callOf(callId)).status).toBe('in_progress');
      // Giving the new one again changes nothing: the old one still counts.
      expect((await patch({ webhookSecret: rotated })).body.previousWebhookSecretExpiresAt).toBe(
        changed.body.previousWebhookSecretExpiresAt,
      );
      // 24 hours on, the old one no longer opens it; the new one does.
      clockOffsetMs = 24 * 3600_000 + 1000;
      expect((await read()).previousWebhookSecretExpiresAt).toBeNull();
      expect((await status(SECRET)).status).toBe(404);
      expect((await status(rotated)).status).toBe(200);
      clockOffsetMs = 0;

      // Changed again: only the one it replaced counts; the first is gone at once.
      expect((await patch({ webhookSecret: third })).status).toBe(200);
      expect((await status(SECRET)).status).not.toBe(200);
      expect((await status(rotated)).status).toBe(200);
      // Revoked (a secret that leaked): the replaced one stops at once, in the same request as a change or alone.
      const revoked = await patch({ previousWebhookSecretExpiresAt: null });
      expect(revoked.status).toBe(200);
      expect(revoked.body.previousWebhookSecretExpiresAt).toBeNull();
      expect((await webhook(endOfCallReport(call), rotated)).status).not.toBe(200);
      expect((await callOf(callId)).status).toBe('in_progress');
      expect((await webhook(endOfCallReport(call, { status: 'CALLBACK' }), third)).status).toBe(200);
      expect(await callOf(callId)).toMatchObject({ status: 'ended', outcome: 'CALLBACK' });
      // Only `null` revokes: a time is not the caller's to set.
      const refused = await patch({ previousWebhookSecretExpiresAt: '2030-01-01T00:00:00Z' });
      expect(refused.status).toBe(422);
    } finally {
      clockOffsetMs = 0;
      expect((await patch({ webhookSecret: SECRET, previousWebhookSecretExpiresAt: null })).status).toBe(200);
    }
  });
});
