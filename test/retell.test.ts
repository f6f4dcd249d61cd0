import Retell from 'retell-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFF_THREAD_FROM_BYTES } from '../src/lib/json-bodies.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { retellCallAnalyzed } from './helpers/retell-report.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let retell: FakeRetell;
let endpoint: Receiver;
let agentId: string;
let tool: { id: string; aiSchema: unknown };
let creds: { apiToken: string; apiSecret: string };
let credentialId: string;
/** The paths Retell was given: the webhook's, and the tools' (each with `?credential=`). */
let webhookPath: string;
const toolPath = (id: string) => `/providers/retell/tools/${id}?credential=${credentialId}`;

const agentView = async (id: string) => (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
const callOf = async (id: string) => (await t.request('GET', `/v1/calls/${id}`, { headers: org.auth })).body;

beforeAll(async () => {
  retell = await startFakeRetell();
  endpoint = await startReceiver((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"slot":"Tuesday 10:00"}');
  });
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100', SWITCHBOARD_ANALYSIS_GRACE_SECONDS: '1' });
  org = await t.signup();
  const credential = await t.request('POST', '/v1/provider-credentials', {
    headers: org.auth,
    body: { provider: 'retell', name: 'Retell', apiKey: retell.apiKey, baseUrl: retell.url },
  });
  credentialId = credential.body.id;
  tool = (
    await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: 'book_visit',
        description: 'Books a visit.',
        method: 'POST',
        url: `${endpoint.url}/visits`,
        parameters: [{ name: 'day', location: 'body', type: 'string', fillMode: 'ai', required: true }],
      },
    })
  ).body;
  const agent = await t.request('POST', '/v1/agents', {
    headers: org.auth,
    body: {
      name: 'Retell seller',
      provider: 'retell',
      providerCredentialId: credential.body.id,
      fromNumber: '+14155550100',
      prompt: 'Book a visit with {{name}}.',
      firstMessage: 'Hello {{name}}',
      toolIds: [tool.id],
    },
  });
  agentId = agent.body.id;
  const published = await until('the agent published', async () => {
    const view = await agentView(agentId);
    return view.providerSync.state === 'synced' ? view : undefined;
  });
  const { pathname, search } = new URL(retell.agents.get(published.providerSync.providerAgentId)?.webhook_url);
  webhookPath = `${pathname}${search}`;
  creds = await t.credentials(org, agentId);
});
afterAll(async () => {
  await t.close();
  await retell.close();
  await endpoint.close();
});

/** POSTs a body to one of our Retell endpoints, signed as Retell signs (or not, or with another key). */
async function signed(path: string, body: unknown, key: string | null = retell.apiKey) {
  return signedText(path, JSON.stringify(body), key);
}

/** POSTs these bytes, JSON or not, signed with `key`. */
async function signedText(path: string, text: string, key: string | null = retell.apiKey) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['x-retell-signature'] = await Retell.sign(text, key);
  return t.request('POST', path, { headers, body: text });
}

async function placeCall() {
  const answer = await t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables: { name: 'Ada' } },
  });
  expect(answer.status).toBe(200);
  return answer.body.callId as string;
}

const retellCall = (callId: string, extra: Record<string, unknown> = {}) => ({
  call_id: 'rc_1',
  call_type: 'phone_call',
  agent_id: 'agent_x',
  metadata: { switchboardCallId: callId },
  ...extra,
});

describe('Retell', () => {
  it('publishes an LLM with a custom tool per attached tool and an agent whose webhook is ours', async () => {
    const view = await agentView(agentId);
    const agent = retell.agents.get(view.providerSync.providerAgentId);
    expect(agent).toMatchObject({
      agent_name: 'Retell seller',
      webhook_url: `${t.config.publicUrl}/providers/retell/webhook?credential=${credentialId}`,
      post_call_analysis_data: [{ type: 'enum', name: 'status', choices: view.outcomes }],
    });
    const llm = retell.llms.get(agent?.response_engine.llm_id);
    expect(llm).toMatchObject({
      general_prompt: 'Book a visit with {{name}}.',
      begin_message: 'Hello {{name}}',
      general_tools: [
        {
          type: 'custom',
          name: 'book_visit',
          url: `${t.config.publicUrl}/providers/retell/tools/${tool.id}?credential=${credentialId}`,
          parameters: tool.aiSchema,
        },
      ],
    });
    expect(retell.violations.join('\n')).toBe('');
  });

  it('retries publishing when Retell fails, showing its error meanwhile', async () => {
    retell.failNext(1);
    const view = await agentView(agentId);
    await t.request('PATCH', `/v1/agents/${agentId}`, {
      headers: org.auth,
      body: { prompt: 'Book a visit, {{name}}.' },
    });
    const failing = await until('the failure shown', async () => {
      const v = await agentView(agentId);
      return v.providerSync.error ? v : undefined;
    });
    expect(failing.providerSync).toMatchObject({ state: 'pending', error: expect.stringContaining('500') });
    const again = await until('published after the retry', async () => {
      const v = await agentView(agentId);
      return v.providerSync.state === 'synced' && v.providerSync.syncedAt > view.providerSync.syncedAt ? v : undefined;
    });
    expect(again.providerSync.error).toBeNull();
    const llmId = retell.agents.get(again.providerSync.providerAgentId)?.response_engine.llm_id;
    expect(retell.llms.get(llmId)?.general_prompt).toBe('Book a visit, {{name}}.');
  });

  it('places the call from the agent’s number with the variables and our call id', async () => {
    const callId = await placeCall();
    const sent = [...retell.calls.values()].find((c) => c.metadata?.switchboardCallId === callId);
    expect(sent).toMatchObject({
      from_number: '+14155550100',
      override_agent_id: (await agentView(agentId)).providerSync.providerAgentId,
      retell_llm_dynamic_variables: { name: 'Ada' },
    });
    const call = await until('the provider call id', async () => {
      const c = await callOf(callId);
      return c.providerCallId ? c : undefined;
    });
    expect(call.providerCallId).toBe(sent?.call_id);
    expect(retell.violations.join('\n')).toBe('');
  });

  it('refuses unsigned, wrongly signed and unknown-call webhooks, changing nothing', async () => {
    const callId = await placeCall();
    const event = { event: 'call_started', call: retellCall(callId, { start_timestamp: Date.now() }) };
    expect((await signed(webhookPath, event, null)).status).toBe(401);
    expect((await signed(webhookPath, event, 'key_other')).status).toBe(401);
    const unknown = { event: 'call_started', call: retellCall('call_unknown') };
    expect((await signed(webhookPath, unknown)).status).toBe(404);
    expect(
      (await signed(toolPath(tool.id), { name: 'book_visit', args: {}, call: retellCall(callId) }, 'key_other')).status,
    ).toBe(401);
    expect((await callOf(callId)).status).toBe('queued');
  });

  it('runs custom tools, and ends an answered call with its analysis, not before', async () => {
    const callId = await placeCall();
    const start = Date.now();
    await signed(webhookPath, {
      event: 'call_started',
      call: retellCall(callId, { start_timestamp: start }),
    });
    expect((await callOf(callId)).status).toBe('in_progress');

    const toolAnswer = await signed(toolPath(tool.id), {
      name: 'book_visit',
      args: { day: 'Tuesday' },
      call: retellCall(callId),
    });
    expect(toolAnswer.body).toEqual({ result: '{"slot":"Tuesday 10:00"}' });
    expect(JSON.parse(endpoint.requests.at(-1)?.body ?? '{}')).toEqual({ day: 'Tuesday' });

    const ended = retellCall(callId, {
      start_timestamp: start,
      end_timestamp: start + 20_000,
      duration_ms: 20_000,
      disconnection_reason: 'agent_hangup',
      transcript_object: [{ role: 'agent', content: 'Hello Ada', words: [{ word: 'Hello', start: 0.2, end: 0.5 }] }],
    });
    await signed(webhookPath, { event: 'call_ended', call: ended });
    expect((await callOf(callId)).status).toBe('in_progress');
    await signed(webhookPath, {
      event: 'call_analyzed',
      call: {
        ...ended,
        call_analysis: { in_voicemail: false, custom_analysis_data: { status: 'INTERESTED', day: 'Tuesday' } },
      },
    });
    expect(await callOf(callId)).toMatchObject({
      status: 'ended',
      outcome: 'INTERESTED',
      endedReason: 'agent_hangup',
      collectedData: { day: 'Tuesday' },
      durationSeconds: 20,
      transcript: [{ role: 'agent', text: 'Hello Ada' }],
    });
    // Retell retries webhooks: the same event again, or a later analysis, changes nothing.
    await signed(webhookPath, {
      event: 'call_analyzed',
      call: { ...ended, call_analysis: { custom_analysis_data: { status: 'SOLD' } } },
    });
    expect((await callOf(callId)).outcome).toBe('INTERESTED');
  });

  it('ends a call with a real three-minute report, parsed off the event loop, and refuses one that is not JSON', async () => {
    const callId = await placeCall();
    const report = retellCallAnalyzed(3, {
      call_id: 'rc_3m',
      agent_id: 'agent_x',
      metadata: { switchboardCallId: callId },
    });
    const text = JSON.stringify(report);
    // Large enough to be parsed in its own thread (OFF_THREAD_FROM_BYTES).
    expect(text.length).toBeGreaterThan(OFF_THREAD_FROM_BYTES);
    const answer = await signedText(webhookPath, text);
    expect(answer.status).toBe(200);
    const call = await callOf(callId);
    expect(call).toMatchObject({
      status: 'ended',
      outcome: 'SOLD',
      endedReason: 'user_hangup',
      durationSeconds: 180,
      collectedData: { slot: 'morning', email: 'ada@example.com' },
      recordingUrl: 'https://retellai.s3.us-west-2.amazonaws.com/rc_3m/recording.wav',
    });
    expect(call.transcript).toHaveLength(41);
    // Each utterance dated by its first word, the only word timing kept of the body.
    const sent = report.call as {
      start_timestamp: number;
      transcript_object: { content: string; words: { start: number }[] }[];
    };
    const first = sent.transcript_object[0];
    expect(call.transcript[0]).toEqual({
      role: 'agent',
      text: first?.content,
      at: new Date(sent.start_timestamp + (first?.words[0]?.start ?? Number.NaN) * 1000).toISOString(),
    });
    // As large, signed, and cut short: not JSON, and nothing changes.
    const other = await placeCall();
    const cut = JSON.stringify(
      retellCallAnalyzed(3, { call_id: 'rc_cut', agent_id: 'agent_x', metadata: { switchboardCallId: other } }),
    ).slice(0, -2);
    const refused = await signedText(webhookPath, cut);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'The body is not JSON' });
    expect((await callOf(other)).status).not.toBe('ended');
  });

  it("types the analysis's data against what the agent collects, read with the call the webhook names", async () => {
    const collect = [{ name: 'seats', type: 'number', description: 'Seats booked.', required: false }];
    const changed = await t.request('PATCH', `/v1/agents/${agentId}`, { headers: org.auth, body: { collect } });
    expect(changed.status).toBe(200);
    try {
      const callId = await placeCall();
      const start = Date.now();
      const analysed = await signed(webhookPath, {
        event: 'call_analyzed',
        call: retellCall(callId, {
          start_timestamp: start,
          end_timestamp: start + 3000,
          duration_ms: 3000,
          disconnection_reason: 'agent_hangup',
          call_analysis: { custom_analysis_data: { status: 'SOLD', seats: '3', note: 'aisle' } },
        }),
      });
      expect(analysed.status).toBe(200);
      // Declared, the seats read as a number; undeclared, the note is not kept.
      const call = await callOf(callId);
      expect(call).toMatchObject({ status: 'ended', outcome: 'SOLD', warnings: [] });
      expect(call.collectedData).toEqual({ seats: 3 });
      // What does not read as the declared type is kept as its text, with a warning.
      const second = await placeCall();
      await signed(webhookPath, {
        event: 'call_analyzed',
        call: retellCall(second, {
          disconnection_reason: 'agent_hangup',
          call_analysis: { custom_analysis_data: { seats: 'three' } },
        }),
      });
      expect(await callOf(second)).toMatchObject({
        collectedData: { seats: 'three' },
        warnings: ['collectedData.seats: expected a number, got "three"'],
      });
    } finally {
      await t.request('PATCH', `/v1/agents/${agentId}`, { headers: org.auth, body: { collect: [] } });
    }
  });

  it('ends an unanswered call at call_ended, and an answered one without analysis after the grace period', async () => {
    const missed = await placeCall();
    await signed(webhookPath, {
      event: 'call_ended',
      call: retellCall(missed, { disconnection_reason: 'dial_no_answer', end_timestamp: Date.now() }),
    });
    expect(await callOf(missed)).toMatchObject({
      status: 'ended',
      outcome: 'NO_ANSWER',
      endedReason: 'dial_no_answer',
    });

    const unanalysed = await placeCall();
    const start = Date.now();
    await signed(webhookPath, {
      event: 'call_ended',
      call: retellCall(unanalysed, {
        start_timestamp: start,
        end_timestamp: start + 5000,
        duration_ms: 5000,
        disconnection_reason: 'user_hangup',
      }),
    });
    const ended = await until('the sweep to end it with the reported end', async () => {
      const c = await callOf(unanalysed);
      return c.status === 'ended' ? c : undefined;
    });
    expect(ended).toMatchObject({ outcome: 'COMPLETED', endedReason: 'user_hangup', durationSeconds: 5 });
  });
});

// The URLs we publish name the credential (`?credential=`): its key checks the signature on the raw
// bytes before they are parsed (decision 0029).
describe('Retell webhooks naming their credential', () => {
  it('refuse a wrong signature without parsing the body: not JSON is 401, not 400', async () => {
    const notJson = 'this is {not JSON';
    for (const path of [webhookPath, toolPath(tool.id)]) {
      // Well formed and current, keyed by another key: refused before the bytes are parsed.
      const forged = await signedText(path, notJson, 'key_other');
      expect(forged.status).toBe(401);
      expect(forged.body).toEqual({ error: 'x-retell-signature does not verify' });
      // Signed with the credential's key, the same bytes get as far as parsing.
      expect((await signedText(path, notJson)).status).toBe(400);
    }
  });

  it('refuse unknown ids, other providers’ credentials and repeated parameters as a wrong signature', async () => {
    const callId = await placeCall();
    const event = { event: 'call_started', call: retellCall(callId, { start_timestamp: Date.now() }) };
    const vapiCredential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Vapi beside', apiKey: retell.apiKey },
    });
    for (const query of [
      'credential=pcr_0000000000000000000000000a',
      'credential=not-an-id',
      `credential=${vapiCredential.body.id}`,
      `credential=${credentialId}&credential=${credentialId}`,
    ]) {
      const answer = await signed(`/providers/retell/webhook?${query}`, event);
      expect([query, answer.status, answer.body]).toEqual([
        query,
        401,
        { error: 'x-retell-signature does not verify' },
      ]);
    }
    expect((await callOf(callId)).status).toBe('queued');
  });

  it('do not let one credential’s signature act on another credential’s call', async () => {
    const callId = await placeCall();
    const event = { event: 'call_started', call: retellCall(callId, { start_timestamp: Date.now() }) };
    // Another organization's Retell account, with its own key and no agent.
    const stranger = await t.signup();
    const otherKey = 'key_of_another_retell_account';
    const other = await t.request('POST', '/v1/provider-credentials', {
      headers: stranger.auth,
      body: { provider: 'retell', name: 'Other Retell', apiKey: otherKey },
    });
    const otherWebhook = `/providers/retell/webhook?credential=${other.body.id}`;
    const otherTool = `/providers/retell/tools/${tool.id}?credential=${other.body.id}`;
    // Correctly signed by the other credential, naming our call: answered as a call that does not exist.
    const crossed = await signed(otherWebhook, event, otherKey);
    expect(crossed.status).toBe(404);
    expect(crossed.body).toEqual(
      (await signed(otherWebhook, { event: 'call_started', call: retellCall('call_nope') }, otherKey)).body,
    );
    expect(
      (await signed(otherTool, { name: 'book_visit', args: { day: 'Monday' }, call: retellCall(callId) }, otherKey))
        .status,
    ).toBe(404);
    // Our key sent to the other credential's URL: a wrong signature.
    expect((await signed(otherWebhook, event)).status).toBe(401);
    expect((await callOf(callId)).status).toBe('queued');
    expect((await signed(webhookPath, event)).status).toBe(200);
    expect((await callOf(callId)).status).toBe('in_progress');
  });

  it('check against the credential’s current key once it changes', async () => {
    const stranger = await t.signup();
    const created = await t.request('POST', '/v1/provider-credentials', {
      headers: stranger.auth,
      body: { provider: 'retell', name: 'Rotating', apiKey: 'key_before_rotation' },
    });
    const path = `/providers/retell/webhook?credential=${created.body.id}`;
    const unknownCall = { event: 'call_started', call: retellCall('call_nope') };
    // Past the signature: the call is not ours.
    expect((await signed(path, unknownCall, 'key_before_rotation')).status).toBe(404);
    const rotated = await t.request('PATCH', `/v1/provider-credentials/${created.body.id}`, {
      headers: stranger.auth,
      body: { apiKey: 'key_after_rotation' },
    });
    expect(rotated.status).toBe(200);
    expect((await signed(path, unknownCall, 'key_before_rotation')).status).toBe(401);
    expect((await signed(path, unknownCall, 'key_after_rotation')).status).toBe(404);
  });

  it('answer a request without valid credentials alike whether its call exists or not, with or without the parameter', async () => {
    const callId = await placeCall();
    const stranger = await t.signup();
    const otherKey = 'key_of_a_third_retell_account';
    const other = await t.request('POST', '/v1/provider-credentials', {
      headers: stranger.auth,
      body: { provider: 'retell', name: 'Third Retell', apiKey: otherKey },
    });
    const bodyNaming = (id: string) => ({ event: 'call_started', name: 'book_visit', args: {}, call: retellCall(id) });
    const answer = async (path: string, id: string, key: string | null) => {
      const sent = await signed(path, bodyNaming(id), key);
      return { path, key, status: sent.status, body: sent.body };
    };
    const paths = [webhookPath, toolPath(tool.id), '/providers/retell/webhook', `/providers/retell/tools/${tool.id}`];
    for (const path of paths) {
      for (const key of [null, 'key_other']) {
        expect(await answer(path, callId, key)).toEqual(await answer(path, 'call_unknown', key));
      }
    }
    // Signed with another credential's key, at its own URLs: our call is answered as an unknown one.
    for (const path of [
      `/providers/retell/webhook?credential=${other.body.id}`,
      `/providers/retell/tools/${tool.id}?credential=${other.body.id}`,
    ]) {
      const crossed = await answer(path, callId, otherKey);
      expect(crossed).toEqual(await answer(path, 'call_unknown', otherKey));
      expect([crossed.status, crossed.body]).toEqual([404, { error: 'No call of ours has this id' }]);
    }
    expect((await callOf(callId)).status).toBe('queued');
  });

  it('still take URLs published before the parameter, and publish their agent again with it', async () => {
    const before = await agentView(agentId);
    const callId = await placeCall();
    const event = { event: 'call_started', call: retellCall(callId, { start_timestamp: Date.now() }) };
    // As an agent published before the parameter sends them: checked with the call's credential.
    expect((await signed('/providers/retell/webhook', event, 'key_other')).status).toBe(401);
    expect((await signed('/providers/retell/webhook', event)).status).toBe(200);
    expect((await callOf(callId)).status).toBe('in_progress');
    const toolAnswer = await signed(`/providers/retell/tools/${tool.id}`, {
      name: 'book_visit',
      args: { day: 'Friday' },
      call: retellCall(callId),
    });
    expect(toolAnswer.body).toEqual({ result: '{"slot":"Tuesday 10:00"}' });
    const again = await until('the agent published again', async () => {
      const view = await agentView(agentId);
      return view.providerSync.state === 'synced' && view.providerSync.syncedAt > before.providerSync.syncedAt
        ? view
        : undefined;
    });
    expect(retell.agents.get(again.providerSync.providerAgentId)?.webhook_url).toBe(
      `${t.config.publicUrl}${webhookPath}`,
    );
    // Published after the call was placed: the call's later webhooks do not publish it again.
    expect((await signed('/providers/retell/webhook', event)).status).toBe(200);
    expect((await agentView(agentId)).providerSync.state).toBe('synced');
    expect(retell.violations.join('\n')).toBe('');
  });
});
