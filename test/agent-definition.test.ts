import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;
beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>) => t.request('POST', '/v1/agents', { headers: org.auth, body });
const patch = (id: string, body: Record<string, unknown>) =>
  t.request('PATCH', `/v1/agents/${id}`, { headers: org.auth, body });
const read = async (id: string) => (await t.request('GET', `/v1/agents/${id}`, { headers: org.auth })).body;
const agentCount = async () =>
  (await t.request('GET', '/v1/agents?limit=100', { headers: org.auth })).body.data.length as number;

/** The 422's details, path → message. */
function detailsOf(response: { status: number; body: any }): Record<string, string> {
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body.code).toBe('api:validation');
  return Object.fromEntries(response.body.details.map((d: { path: string; message: string }) => [d.path, d.message]));
}

const COLLECT = [
  { name: 'email', type: 'string', description: "The caller's email", required: true },
  { name: 'seats', type: 'number' },
  { name: 'wants_demo', type: 'boolean', description: 'Asked for a demo' },
  { name: 'plan', type: 'enum', choices: ['basic', 'pro'], required: true },
];

describe('the agent definition', () => {
  it('new agents collect nothing and leave voice, model, language, voicemail and provider settings to the default (null)', async () => {
    const created = await create({ name: 'Plain' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      collect: [],
      voice: null,
      model: null,
      language: null,
      voicemail: null,
      providerSettings: null,
    });
  });

  it('stores collect, voice, model, language (canonical), voicemail and provider settings; PATCH null goes back to the default', async () => {
    const body = {
      name: 'Defined',
      provider: 'vapi',
      prompt: 'Sell to {{name}}.',
      collect: COLLECT,
      voice: { provider: '11labs', voiceId: 'burt' },
      model: { provider: 'openai', name: 'gpt-4o', temperature: 0.4 },
      language: 'en-gb',
      voicemail: { action: 'leave_message', message: 'Hi {{name}}, call us back at {{callback}}.' },
      providerSettings: { endCallPhrases: ['goodbye'], voice: { stability: 0.5 } },
    };
    const created = await create(body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      // description and required are always shown; choices only for an enum.
      collect: [
        { name: 'email', type: 'string', description: "The caller's email", required: true },
        { name: 'seats', type: 'number', description: '', required: false },
        { name: 'wants_demo', type: 'boolean', description: 'Asked for a demo', required: false },
        { name: 'plan', type: 'enum', description: '', choices: ['basic', 'pro'], required: true },
      ],
      voice: body.voice,
      model: body.model,
      language: 'en-GB',
      voicemail: body.voicemail,
      providerSettings: body.providerSettings,
      // The voicemail message's variables count as the agent's.
      variables: ['name', 'callback'],
    });
    expect(created.body.collect[1]).not.toHaveProperty('choices');
    const { providerSync: _created, ...shown } = created.body;
    const { providerSync: _read, ...readBack } = await read(created.body.id);
    expect(readBack).toEqual(shown);

    const reset = await patch(created.body.id, {
      collect: [],
      voice: null,
      model: null,
      language: null,
      voicemail: null,
      providerSettings: null,
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({
      collect: [],
      voice: null,
      model: null,
      language: null,
      voicemail: null,
      providerSettings: null,
      variables: ['name'],
    });
    // A PATCH that names none of them keeps them.
    await patch(created.body.id, { collect: COLLECT.slice(0, 1), language: 'es-ES' });
    const renamed = await patch(created.body.id, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ collect: [{ name: 'email' }], language: 'es-ES' });
  });

  it('refuses a bad collect list with a 422 naming each path, and writes nothing', async () => {
    const before = await agentCount();
    const bad = await create({
      name: 'Bad collect',
      collect: [
        { name: 'email', type: 'string' },
        { name: 'plan', type: 'enum' },
        { name: 'email', type: 'number' },
        { name: 'note', type: 'string', choices: ['a'] },
        { name: 'status', type: 'string' },
        { name: '__proto__', type: 'string' },
      ],
    });
    expect(detailsOf(bad)).toEqual({
      '$.collect[1].choices': 'is required for an enum: its values',
      '$.collect[2].name': 'duplicates $.collect[0].name: names are unique',
      '$.collect[3].choices': 'only an enum has choices',
      '$.collect[4].name': `"status" is the outcome's own field in what is published; choose another name`,
      '$.collect[5].name': '"__proto__" is not a name we accept; choose another',
    });
    // What the schema says: an identifier, a known type, at most 50, no unknown field.
    const shapes = await create({
      name: 'Bad shapes',
      collect: [
        { name: '1st', type: 'string' },
        { name: 'x', type: 'date' },
        { name: 'y', type: 'string', extra: true },
      ],
    });
    expect(Object.keys(detailsOf(shapes))).toEqual(
      expect.arrayContaining(['$.collect[0].name', '$.collect[1].type', '$.collect[2].extra']),
    );
    const many = await create({
      name: 'Too many',
      collect: Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, type: 'string' })),
    });
    expect(Object.keys(detailsOf(many))).toEqual(['$.collect']);
    expect(await agentCount()).toBe(before);

    const agent = (await create({ name: 'Keeps its collect', collect: COLLECT })).body;
    const refused = await patch(agent.id, { collect: [...COLLECT, { name: 'seats', type: 'string' }] });
    expect(detailsOf(refused)).toEqual({ '$.collect[4].name': 'duplicates $.collect[1].name: names are unique' });
    expect((await read(agent.id)).collect).toHaveLength(4);
  });

  it('refuses a language that is not BCP-47, a voicemail message where it does not belong, and oversized provider settings', async () => {
    const before = await agentCount();
    expect(detailsOf(await create({ name: 'L', language: 'english please' }))).toEqual({
      '$.language': 'must be a BCP-47 language tag, e.g. "en-US" or "es-ES"',
    });
    expect(detailsOf(await create({ name: 'V', voicemail: { action: 'leave_message' } }))).toEqual({
      '$.voicemail.message': 'is required to leave a message',
    });
    expect(detailsOf(await create({ name: 'V', voicemail: { action: 'hang_up', message: 'Bye' } }))).toEqual({
      '$.voicemail.message': 'only leave_message has a message',
    });
    expect(Object.keys(detailsOf(await create({ name: 'V', voicemail: { action: 'call_back' } })))).toContain(
      '$.voicemail.action',
    );
    expect(Object.keys(detailsOf(await create({ name: 'M', model: { provider: 'openai', temperature: 3 } })))).toEqual(
      expect.arrayContaining(['$.model.name', '$.model.temperature']),
    );
    const big = await create({ name: 'Big', providerSettings: { note: 'x'.repeat(17_000) } });
    expect(detailsOf(big)).toEqual({
      '$.providerSettings': expect.stringMatching(/^is \d+ bytes as JSON; at most 16384$/),
    });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 9; i++) deep = { a: deep };
    expect(detailsOf(await create({ name: 'Deep', providerSettings: deep }))).toEqual({
      '$.providerSettings.a.a.a.a.a.a.a.a': 'nests too deeply: at most 8 levels of objects and arrays',
    });
    expect(Object.keys(detailsOf(await create({ name: 'Array', providerSettings: [1] })))).toEqual([
      '$.providerSettings',
    ]);
    expect(await agentCount()).toBe(before);
  });

  it("checks a scenario's collected data against collect: on create, on a PATCH of the scenario, and on a PATCH of collect alone", async () => {
    const before = await agentCount();
    const refused = await create({
      name: 'Promises too much',
      collect: COLLECT,
      simulator: {
        outcome: {
          status: 'SOLD',
          collectedData: { email: 'ada@example.com', seats: '3', plan: 'enterprise', address: '1 Main St' },
        },
      },
    });
    expect(detailsOf(refused)).toEqual({
      '$.simulator.outcome.collectedData.seats': 'must be a number',
      '$.simulator.outcome.collectedData.plan': 'must be one of "basic", "pro"',
      '$.simulator.outcome.collectedData.address': "is not one of the agent's collect names",
    });
    expect(await agentCount()).toBe(before);

    const scenario = {
      outcome: {
        status: 'SOLD',
        collectedData: { email: 'ada@example.com', seats: 3, wants_demo: true, plan: 'pro' },
        summary: 'Ada bought the pro plan for 3 seats.',
      },
    };
    const agent = await create({ name: 'Promises what it collects', collect: COLLECT, simulator: scenario });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    expect(agent.body.simulator).toEqual(scenario);

    const badScenario = await patch(agent.body.id, {
      simulator: { outcome: { collectedData: { 'odd key': 1, wants_demo: 'yes' } } },
    });
    expect(detailsOf(badScenario)).toEqual({
      '$.simulator.outcome.collectedData["odd key"]': "is not one of the agent's collect names",
      '$.simulator.outcome.collectedData.wants_demo': 'must be a boolean',
    });
    // Dropping a name the scenario still uses is refused where the scenario uses it.
    const dropped = await patch(agent.body.id, { collect: COLLECT.filter((field) => field.name !== 'seats') });
    expect(detailsOf(dropped)).toEqual({
      '$.simulator.outcome.collectedData.seats': "is not one of the agent's collect names",
    });
    expect((await read(agent.body.id)).collect).toHaveLength(4);
    const summary = await patch(agent.body.id, { simulator: { outcome: { summary: 'x'.repeat(2001) } } });
    expect(Object.keys(detailsOf(summary))).toContain('$.simulator.outcome.summary');
  });

  it('lets an agent that declares nothing keep any collected data, as before collect existed', async () => {
    const created = await create({
      name: 'Undeclared',
      simulator: { outcome: { collectedData: { anything: { nested: [1, 2] }, 'any key': null } } },
    });
    expect(created.status).toBe(201);
  });
});

describe('checked against the provider when saved', () => {
  it('Vapi: what its published schema refuses is a 422 naming our field, and nothing is written', async () => {
    const before = await agentCount();
    const vapi = (body: Record<string, unknown>) => create({ name: 'On Vapi', provider: 'vapi', ...body });
    expect(detailsOf(await vapi({ voice: { provider: 'deepgram', voiceId: 'nobody' } }))).toEqual({
      '$.voice.voiceId': expect.stringMatching(/^must be one of "asteria", .* \(Vapi: voice\.voiceId\)$/),
    });
    expect(detailsOf(await vapi({ voice: { provider: 'nobody', voiceId: 'x' } }))).toEqual({
      '$.voice.provider': expect.stringContaining('(Vapi: voice.provider)'),
    });
    expect(detailsOf(await vapi({ model: { provider: 'openai', name: 'gpt-nonexistent' } }))).toEqual({
      '$.model.name': expect.stringContaining('(Vapi: model.model)'),
    });
    expect(detailsOf(await vapi({ language: 'xh-ZA' }))).toEqual({
      '$.language': expect.stringContaining('(Vapi: transcriber.language)'),
    });
    expect(detailsOf(await vapi({ providerSettings: { favouriteColour: 'blue' } }))).toEqual({
      '$.providerSettings.favouriteColour': 'is not a field Vapi accepts here (Vapi: favouriteColour)',
    });
    expect(detailsOf(await vapi({ providerSettings: { endCallPhrases: 'bye' } }))).toEqual({
      '$.providerSettings.endCallPhrases': 'Must be a list (Vapi: endCallPhrases)',
    });
    expect(
      detailsOf(
        await vapi({ voice: { provider: '11labs', voiceId: 'burt' }, providerSettings: { voice: { stability: 2 } } }),
      ),
    ).toEqual({ '$.providerSettings.voice.stability': 'At most 1 (Vapi: voice.stability)' });
    // What a field of the agent sets, or we do, is not providerSettings' to set.
    expect(
      detailsOf(
        await vapi({ providerSettings: { server: { url: 'https://elsewhere.example' }, model: { toolIds: [] } } }),
      ),
    ).toEqual({
      '$.providerSettings.server': 'is set by Switchboard (its webhook, its ids): it cannot be changed',
      '$.providerSettings.model.toolIds': 'is set by $.toolIds: change it there',
    });
    expect(detailsOf(await vapi({ providerSettings: { voice: 'burt' } }))).toEqual({
      '$.providerSettings.voice': 'replaces what is set by $.voice.provider: change it there',
    });
    expect(await agentCount()).toBe(before);

    // Accepted: a language Deepgram knows by its language alone, settings that add to our fields.
    const accepted = await vapi({
      language: 'es-ES',
      voice: { provider: '11labs', voiceId: 'burt' },
      providerSettings: { endCallPhrases: ['adiós'], voice: { stability: 0.5 } },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    // A PATCH that makes it invalid is refused, and the agent keeps what it had.
    const refused = await patch(accepted.body.id, { voice: { provider: 'deepgram', voiceId: 'burt' } });
    expect(detailsOf(refused)).toEqual({
      '$.voice.voiceId': expect.stringContaining('must be one of "asteria"'),
      // The settings meant for an ElevenLabs voice do not fit Deepgram's.
      '$.providerSettings.voice.stability': 'is not a field Vapi accepts here (Vapi: voice.stability)',
    });
    expect((await read(accepted.body.id)).voice).toEqual({ provider: '11labs', voiceId: 'burt' });
  });

  it('Retell: its LLM and agent schemas, its settings under "agent" and "llm", and its temperature range', async () => {
    const before = await agentCount();
    const retell = (body: Record<string, unknown>) => create({ name: 'On Retell', provider: 'retell', ...body });
    expect(detailsOf(await retell({ model: { provider: 'openai', name: 'gpt-4o-mini' } }))).toEqual({
      '$.model.name': expect.stringMatching(/^must be one of "gpt-4\.1", .* \(Retell: llm\.model\)$/),
    });
    expect(detailsOf(await retell({ language: 'es' }))).toEqual({
      '$.language': expect.stringContaining('(Retell: agent.language)'),
    });
    expect(detailsOf(await retell({ model: { provider: 'openai', name: 'gpt-4.1', temperature: 1.5 } }))).toEqual({
      '$.model.temperature': 'must be at most 1 on Retell (its model_temperature)',
    });
    expect(detailsOf(await retell({ providerSettings: { voice_speed: 1 } }))).toEqual({
      '$.providerSettings.voice_speed': 'Retell settings go under "agent" (the agent) or "llm" (its Retell LLM)',
    });
    expect(
      detailsOf(await retell({ providerSettings: { agent: { voice_speed: 3 }, llm: { start_speaker: 'robot' } } })),
    ).toEqual({
      '$.providerSettings.agent.voice_speed': 'At most 2 (Retell: agent.voice_speed)',
      '$.providerSettings.llm.start_speaker': 'must be one of "user", "agent" (Retell: llm.start_speaker)',
    });
    expect(
      detailsOf(
        await retell({
          providerSettings: { agent: { webhook_url: 'https://elsewhere.example' }, llm: { general_tools: [] } },
        }),
      ),
    ).toEqual({
      '$.providerSettings.agent.webhook_url': 'is set by Switchboard (its webhook, its ids): it cannot be changed',
      '$.providerSettings.llm.general_tools': 'is set by $.toolIds: change it there',
    });
    expect(await agentCount()).toBe(before);

    const accepted = await retell({
      model: { provider: 'openai', name: 'gpt-4.1', temperature: 0.3 },
      language: 'es-ES',
      voice: { provider: 'elevenlabs', voiceId: '11labs-Adrian' },
      providerSettings: { agent: { voice_speed: 1.1 }, llm: { start_speaker: 'agent' } },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    // Another provider's settings would not fit: moving the agent drops them unless the change sets new ones.
    const moved = await patch(accepted.body.id, { provider: 'vapi', model: null, language: null, voice: null });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.providerSettings).toBeNull();
  });
});
