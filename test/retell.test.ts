import Retell from 'retell-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let retell: FakeRetell;
let endpoint: Receiver;
let agentId: string;
let tool: { id: string; aiSchema: unknown };
let creds: { apiToken: string; apiSecret: string };

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
  await until('the agent published', async () => {
    const view = await agentView(agentId);
    return view.providerSync.state === 'synced' ? view : undefined;
  });
  creds = await t.credentials(org, agentId);
});
afterAll(async () => {
  await t.close();
  await retell.close();
  await endpoint.close();
});

/** POSTs a body to one of our Retell endpoints, signed as Retell signs (or not, or with another key). */
async function signed(path: string, body: unknown, key: string | null = retell.apiKey) {
  const text = JSON.stringify(body);
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
      webhook_url: `${t.config.publicUrl}/providers/retell/webhook`,
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
          url: `${t.config.publicUrl}/providers/retell/tools/${tool.id}`,
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
    expect((await signed('/providers/retell/webhook', event, null)).status).toBe(401);
    expect((await signed('/providers/retell/webhook', event, 'key_other')).status).toBe(401);
    const unknown = { event: 'call_started', call: retellCall('call_unknown') };
    expect((await signed('/providers/retell/webhook', unknown)).status).toBe(404);
    expect(
      (
        await signed(
          `/providers/retell/tools/${tool.id}`,
          { name: 'book_visit', args: {}, call: retellCall(callId) },
          'key_other',
        )
      ).status,
    ).toBe(401);
    expect((await callOf(callId)).status).toBe('queued');
  });

  it('runs custom tools, and ends an answered call with its analysis, not before', async () => {
    const callId = await placeCall();
    const start = Date.now();
    await signed('/providers/retell/webhook', {
      event: 'call_started',
      call: retellCall(callId, { start_timestamp: start }),
    });
    expect((await callOf(callId)).status).toBe('in_progress');

    const toolAnswer = await signed(`/providers/retell/tools/${tool.id}`, {
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
    await signed('/providers/retell/webhook', { event: 'call_ended', call: ended });
    expect((await callOf(callId)).status).toBe('in_progress');
    await signed('/providers/retell/webhook', {
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
    await signed('/providers/retell/webhook', {
      event: 'call_analyzed',
      call: { ...ended, call_analysis: { custom_analysis_data: { status: 'SOLD' } } },
    });
    expect((await callOf(callId)).outcome).toBe('INTERESTED');
  });

  it('ends an unanswered call at call_ended, and an answered one without analysis after the grace period', async () => {
    const missed = await placeCall();
    await signed('/providers/retell/webhook', {
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
    await signed('/providers/retell/webhook', {
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
