import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retellAgentBody, retellLlmBody } from '../src/providers/retell/retell-publisher.js';
import { type PublishableAgent, vapiAssistantBody } from '../src/providers/vapi/vapi-publisher.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { until } from './helpers/wait.js';

let t: TestApp;
let org: Org;
let vapi: FakeVapi;
let retell: FakeRetell;
let vapiCredentialId: string;
let retellCredentialId: string;

beforeAll(async () => {
  vapi = await startFakeVapi();
  retell = await startFakeRetell();
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
  org = await t.signup();
  vapiCredentialId = (
    await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: {
        provider: 'vapi',
        name: 'Vapi',
        apiKey: vapi.apiKey,
        webhookSecret: 'vapi_hook_secret_long_enough',
        baseUrl: vapi.url,
      },
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
  await t?.close();
  await vapi?.close();
  await retell?.close();
});

const view = async (id: string) => (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
const synced = (id: string, since = '') =>
  until(`agent ${id} published`, async () => {
    const agent = await view(id);
    return agent.providerSync.state === 'synced' && (agent.providerSync.syncedAt ?? '') > since ? agent : undefined;
  });

const COLLECT = [
  { name: 'email', type: 'string', description: "The caller's email", required: true },
  { name: 'seats', type: 'number', description: 'How many seats' },
  { name: 'wants_demo', type: 'boolean', description: 'Asked for a demo' },
  { name: 'plan', type: 'enum', description: 'The plan chosen', choices: ['basic', 'pro'], required: true },
];

const DEFINITION = {
  prompt: 'You sell seats to {{ name }}.',
  firstMessage: 'Hi {{name}}!',
  collect: COLLECT,
  voicemail: { action: 'leave_message', message: 'Hi {{name}}, call us back at {{callback}}.' },
};

describe('publishing the definition to Vapi', () => {
  it('publishes collect, voice, model, language and voicemail in Vapi’s fields, provider settings merged last', async () => {
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'Vapi definition',
        provider: 'vapi',
        providerCredentialId: vapiCredentialId,
        ...DEFINITION,
        voice: { provider: '11labs', voiceId: 'burt' },
        model: { provider: 'openai', name: 'gpt-4o', temperature: 0.4 },
        language: 'es-ES',
        providerSettings: { endCallPhrases: ['adiós'], voice: { stability: 0.4 }, model: { maxTokens: 250 } },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agent = await synced(created.body.id);
    const assistant = vapi.assistants.get(agent.providerSync.providerAgentId);
    expect(assistant).toMatchObject({
      firstMessage: 'Hi {{name}}!',
      voice: { provider: '11labs', voiceId: 'burt', stability: 0.4 },
      model: {
        provider: 'openai',
        model: 'gpt-4o',
        temperature: 0.4,
        maxTokens: 250,
        // Placeholders as every provider fills them: no spaces inside the braces.
        messages: [{ role: 'system', content: 'You sell seats to {{name}}.' }],
        toolIds: [],
      },
      // Deepgram knows Spanish as "es".
      transcriber: { provider: 'deepgram', language: 'es' },
      voicemailDetection: { provider: 'vapi' },
      voicemailMessage: 'Hi {{name}}, call us back at {{callback}}.',
      endCallPhrases: ['adiós'],
    });
    expect(assistant?.analysisPlan.structuredDataPlan).toEqual({
      enabled: true,
      schema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: agent.outcomes, description: 'How the call ended' },
          email: { type: 'string', description: "The caller's email" },
          seats: { type: 'number', description: 'How many seats' },
          wants_demo: { type: 'boolean', description: 'Asked for a demo' },
          plan: { type: 'string', enum: ['basic', 'pro'], description: 'The plan chosen' },
        },
        required: ['email', 'plan'],
      },
    });
    expect(vapi.violations.join('\n')).toBe('');

    // Back to the defaults: the default model, and voicemail detection off with no message.
    await t.request('PATCH', `/v1/agents/${created.body.id}`, {
      headers: org.auth,
      body: { model: null, voicemail: null, collect: [], providerSettings: null },
    });
    const again = await synced(created.body.id, agent.providerSync.syncedAt);
    const updated = vapi.assistants.get(again.providerSync.providerAgentId);
    expect(updated?.model).toEqual({
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages: [{ role: 'system', content: 'You sell seats to {{name}}.' }],
      toolIds: [],
    });
    expect(updated).toMatchObject({ voicemailDetection: 'off', voicemailMessage: '' });
    expect(Object.keys(updated?.analysisPlan.structuredDataPlan.schema.properties)).toEqual(['status']);
    expect(vapi.violations.join('\n')).toBe('');
  });

  it('an agent that leaves everything to the default publishes what agents published before', async () => {
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Vapi default', provider: 'vapi', providerCredentialId: vapiCredentialId, prompt: 'Hello' },
    });
    const agent = await synced(created.body.id);
    const assistant = vapi.assistants.get(agent.providerSync.providerAgentId);
    expect(assistant?.model).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(assistant?.model).not.toHaveProperty('temperature');
    expect(assistant).not.toHaveProperty('voice');
    expect(assistant).not.toHaveProperty('transcriber');
    expect(assistant).toMatchObject({ voicemailDetection: 'off', voicemailMessage: '' });
    expect(vapi.violations.join('\n')).toBe('');
  });
});

describe('publishing the definition to Retell', () => {
  it('publishes voice_id, language, voicemail_option and post_call_analysis_data on the agent, model and defaults on the LLM', async () => {
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'Retell definition',
        provider: 'retell',
        providerCredentialId: retellCredentialId,
        fromNumber: '+14155550100',
        ...DEFINITION,
        voice: { provider: 'openai', voiceId: 'openai-Alloy' },
        model: { provider: 'openai', name: 'gpt-4.1-mini', temperature: 0.3 },
        language: 'es-ES',
        providerSettings: { agent: { voice_speed: 1.1 }, llm: { start_speaker: 'agent' } },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agent = await synced(created.body.id);
    const published = retell.agents.get(agent.providerSync.providerAgentId);
    expect(published).toMatchObject({
      voice_id: 'openai-Alloy',
      language: 'es-ES',
      voicemail_option: { action: { type: 'static_text', text: 'Hi {{name}}, call us back at {{callback}}.' } },
      voice_speed: 1.1,
    });
    expect(published?.post_call_analysis_data).toEqual([
      { type: 'enum', name: 'status', description: 'How the call ended', choices: agent.outcomes },
      { type: 'string', name: 'email', description: "The caller's email", required: true },
      { type: 'number', name: 'seats', description: 'How many seats' },
      { type: 'boolean', name: 'wants_demo', description: 'Asked for a demo' },
      { type: 'enum', name: 'plan', description: 'The plan chosen', required: true, choices: ['basic', 'pro'] },
    ]);
    const llm = retell.llms.get(published?.response_engine.llm_id);
    expect(llm).toMatchObject({
      general_prompt: 'You sell seats to {{name}}.',
      begin_message: 'Hi {{name}}!',
      model: 'gpt-4.1-mini',
      model_temperature: 0.3,
      start_speaker: 'agent',
      // Every variable the texts use has a default: a call without it (an incoming one) says nothing there.
      default_dynamic_variables: { name: '', callback: '' },
    });
    expect(retell.violations.join('\n')).toBe('');

    // The call's variables still reach Retell as dynamic variables, as before.
    const creds = await t.credentials(org, created.body.id);
    const answer = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone(), variables: { name: 'Ada', callback: '+14155550199' } },
    });
    expect(answer.status).toBe(200);
    const call = [...retell.calls.values()].find((c) => c.metadata.switchboardCallId === answer.body.callId);
    expect(call?.retell_llm_dynamic_variables).toMatchObject({ name: 'Ada', callback: '+14155550199' });
    expect(retell.violations.join('\n')).toBe('');
  });

  it("an agent that leaves everything to the default publishes Retell's documented defaults, so a change back undoes the last", async () => {
    const created = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'Retell default',
        provider: 'retell',
        providerCredentialId: retellCredentialId,
        voicemail: { action: 'hang_up' },
        model: { provider: 'openai', name: 'gpt-4.1', temperature: 0.7 },
      },
    });
    const first = await synced(created.body.id);
    expect(retell.agents.get(first.providerSync.providerAgentId)?.voicemail_option).toEqual({
      action: { type: 'hangup' },
    });
    await t.request('PATCH', `/v1/agents/${created.body.id}`, {
      headers: org.auth,
      body: { voicemail: null, model: null },
    });
    const agent = await synced(created.body.id, first.providerSync.syncedAt);
    const published = retell.agents.get(agent.providerSync.providerAgentId);
    expect(published).toMatchObject({ voice_id: '11labs-Adrian', language: 'en-US', voicemail_option: null });
    expect(published?.post_call_analysis_data).toHaveLength(1);
    expect(retell.llms.get(published?.response_engine.llm_id)).toMatchObject({
      model: null,
      model_temperature: 0,
      default_dynamic_variables: null,
    });
    expect(retell.violations.join('\n')).toBe('');
  });
});

describe('the body builders', () => {
  const agent: PublishableAgent = {
    id: 'agt_pure',
    name: 'Pure',
    prompt: 'Talk to {{ name }}',
    firstMessage: 'Hi',
    outcomes: ['SOLD', 'COMPLETED'],
    maxCallDurationSeconds: 60,
    collect: [{ name: 'email', type: 'string', description: '', required: false }],
    voice: { provider: '11labs', voiceId: 'burt' },
    model: null,
    language: 'en-US',
    voicemail: { action: 'hang_up' },
    providerSettings: { voice: { stability: 0.2 }, agent: { voice_speed: 1.2 }, llm: { start_speaker: 'user' } },
    providerAgentId: null,
  };
  const target = { serverUrl: 'https://x.example/providers/vapi/webhook', webhookSecret: null };
  const retellTarget = { publicUrl: 'https://x.example', credentialId: 'pcr_1' };

  it('are pure: the same agent gives the same body, and neither the agent nor its settings change', () => {
    const before = structuredClone(agent);
    expect(vapiAssistantBody(agent, ['t1'], target)).toEqual(vapiAssistantBody(agent, ['t1'], target));
    expect(retellAgentBody(agent, 'llm_1', retellTarget)).toEqual(retellAgentBody(agent, 'llm_1', retellTarget));
    expect(retellLlmBody(agent, [], retellTarget)).toEqual(retellLlmBody(agent, [], retellTarget));
    const body = vapiAssistantBody(agent, [], target);
    (body.voice as Record<string, unknown>).stability = 0.9;
    expect(agent).toEqual(before);
  });

  it('merge provider settings last, key by key, without reaching a prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "voice": {"stability": 0.3}}');
    const body = vapiAssistantBody({ ...agent, providerSettings: hostile }, [], target) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body.voice).toEqual({ provider: '11labs', voiceId: 'burt', stability: 0.3 });
  });
});
