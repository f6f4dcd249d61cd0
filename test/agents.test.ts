import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;
beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

describe('agents', () => {
  it('creates an agent with the contract defaults', async () => {
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Sales agent', type: 'click_to_call' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.stringMatching(/^agt_/),
      name: 'Sales agent',
      type: 'click_to_call',
      enabled: true,
      provider: 'simulator',
      providerCredentialId: null,
      disableSignatureVerification: false,
      maxConcurrentCalls: null,
      rateLimitPerMinute: 60,
      maxCallDurationSeconds: 3600,
      toolIds: [],
      outcomes: [
        'SOLD',
        'INTERESTED',
        'NOT_INTERESTED',
        'CALLBACK',
        'NO_ANSWER',
        'VOICEMAIL',
        'BUSY',
        'FAILED',
        'COMPLETED',
      ],
      simulator: null,
      // The definition of issue 17: nothing collected, every choice left to the default (decision 0036).
      collect: [],
      voice: null,
      model: null,
      language: null,
      voicemail: null,
      providerSettings: null,
      providerSync: { state: 'synced' },
      configured: true,
    });
  });

  it('stores every field and reads it back; PATCH changes only what it names', async () => {
    const body = {
      name: 'Everything',
      type: 'click_to_call',
      enabled: false,
      provider: 'simulator',
      prompt: 'You call {{name}} about {{product}}.',
      firstMessage: 'Hi {{name}}!',
      fromNumber: '+14155550100',
      disableSignatureVerification: true,
      maxConcurrentCalls: 3,
      rateLimitPerMinute: 10,
      maxCallDurationSeconds: 600,
      toolIds: [],
      outcomes: ['SOLD', 'COMPLETED'],
      simulator: {
        answer: 'answered',
        turns: [{ role: 'user', text: 'Yes' }],
        outcome: { status: 'SOLD' },
        durationSeconds: 42,
        delayMs: 0,
      },
    };
    const created = await t.request('POST', '/v1/agents', { headers: org.auth, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(body);
    expect(created.body.variables).toEqual(['name', 'product']);
    const read = await t.request('GET', `/v1/agents/${created.body.id}`, { headers: org.auth });
    expect(read.body).toEqual(created.body);
    const patched = await t.request('PATCH', `/v1/agents/${created.body.id}`, {
      headers: org.auth,
      body: { enabled: true, maxConcurrentCalls: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ ...body, enabled: true, maxConcurrentCalls: null });
  });

  it('refuses bad fields with 422 naming each by JSON path, and writes nothing', async () => {
    const before = await t.request('GET', '/v1/agents?limit=100', { headers: org.auth });
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'x'.repeat(101),
        type: 'Click to Call',
        provider: 'twilio',
        fromNumber: '4155550100',
        maxConcurrentCalls: 0,
        rateLimitPerMinute: '60',
        maxCallDurationSeconds: 1.5,
        outcomes: ['sold'],
        simulator: { answer: 'maybe', turns: [{ role: 'robot', text: 'x' }], delayMs: -1 },
        unknownField: 1,
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('api:validation');
    const paths = response.body.details.map((d: { path: string }) => d.path);
    for (const path of [
      '$.name',
      '$.type',
      '$.provider',
      '$.maxConcurrentCalls',
      '$.rateLimitPerMinute',
      '$.maxCallDurationSeconds',
      '$.outcomes[0]',
      '$.simulator.answer',
      '$.simulator.delayMs',
      '$.unknownField',
    ]) {
      expect(paths).toContain(path);
    }
    const after = await t.request('GET', '/v1/agents?limit=100', { headers: org.auth });
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('refuses a name of spaces like an empty one at $.name, and stores names trimmed', async () => {
    const blank = await t.request('POST', '/v1/agents', { headers: org.auth, body: { name: '   ' } });
    expect(blank.status).toBe(422);
    expect(blank.body).toMatchObject({
      code: 'api:validation',
      details: [{ path: '$.name', message: 'must contain a character other than spaces' }],
    });
    const created = await t.request('POST', '/v1/agents', { headers: org.auth, body: { name: '  Sales  ' } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Sales');
    const patch = (name: string) =>
      t.request('PATCH', `/v1/agents/${created.body.id}`, { headers: org.auth, body: { name } });
    expect((await patch('  ')).body.details).toEqual([
      { path: '$.name', message: 'must contain a character other than spaces' },
    ]);
    expect((await patch(' Support\n')).body.name).toBe('Support');
    const read = await t.request('GET', `/v1/agents/${created.body.id}`, { headers: org.auth });
    expect(read.body.name).toBe('Support');
  });

  it('checks what a schema cannot: E.164 caller id, simulator outcome among the outcomes, unknown tools', async () => {
    const response = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: {
        name: 'Rules',
        fromNumber: '+1415',
        outcomes: ['SOLD'],
        simulator: { outcome: { status: 'COMPLETED' } },
        toolIds: ['tool_nope'],
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '$.fromNumber',
      '$.simulator.outcome.status',
      '$.toolIds[0]',
    ]);
  });

  it('a real provider without credential and caller id is not configured', async () => {
    const agent = await t.createAgent(org, { provider: 'vapi' });
    expect(agent.configured).toBe(false);
    const inbound = await t.createAgent(org, { type: 'inbound' });
    expect(inbound.configured).toBe(false);
  });

  it('pages with a cursor, newest first', async () => {
    const other = await t.signup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.createAgent(other, { name: `Agent ${i}` })).id);
    const first = await t.request('GET', '/v1/agents?limit=2', { headers: other.auth });
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[3]]);
    const second = await t.request('GET', `/v1/agents?limit=2&cursor=${first.body.nextCursor}`, {
      headers: other.auth,
    });
    expect(second.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    const third = await t.request('GET', `/v1/agents?limit=2&cursor=${second.body.nextCursor}`, {
      headers: other.auth,
    });
    expect(third.body.data.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect(third.body.nextCursor).toBeNull();
    const bad = await t.request('GET', '/v1/agents?cursor=garbage', { headers: other.auth });
    expect(bad.status).toBe(422);
    expect(bad.body.details[0].path).toBe('query.cursor');
  });

  it('deletes with 204; the agent is gone and its token stops working', async () => {
    const agent = await t.createAgent(org);
    const creds = await t.credentials(org, agent.id);
    expect((await t.request('DELETE', `/v1/agents/${agent.id}`, { headers: org.auth })).status).toBe(204);
    expect((await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth })).status).toBe(404);
    expect((await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret })).body.code).toBe('ctc:003');
  });
});

describe('credentials', () => {
  it('exist for click_to_call agents only (409 otherwise), unmasked, with the endpoint and instructions', async () => {
    const agent = await t.createAgent(org, { firstMessage: 'Hi {{name}}' });
    const response = await t.request('GET', `/v1/agents/${agent.id}/credentials`, { headers: org.auth });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toMatchObject({
      apiToken: expect.stringMatching(/^ctc_/),
      apiSecret: expect.stringMatching(/^ctcs_/),
      endpoint: `${t.url}/api/click-to-call`,
    });
    expect(response.body.instructions).toContain('curl');
    expect(response.body.instructions).toContain('Node.js');
    expect(response.body.instructions).toContain('Python');
    expect(response.body.instructions).toContain(response.body.apiToken);
    // Shown again: the same pair each time until rotated.
    expect((await t.credentials(org, agent.id)).apiToken).toBe(response.body.apiToken);

    const outbound = await t.createAgent(org, { type: 'outbound' });
    const refused = await t.request('GET', `/v1/agents/${outbound.id}/credentials`, { headers: org.auth });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('api:conflict');
    expect(
      (await t.request('POST', `/v1/agents/${outbound.id}/credentials/rotate`, { headers: org.auth })).status,
    ).toBe(409);
  });

  it('appear when an agent becomes click_to_call', async () => {
    const agent = await t.createAgent(org, { type: 'inbound' });
    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { type: 'click_to_call' } });
    expect((await t.credentials(org, agent.id)).apiToken).toMatch(/^ctc_/);
  });

  it("are per agent: one agent's token and secret do not serve another", async () => {
    const a = await t.createAgent(org);
    const b = await t.createAgent(org);
    const credsA = await t.credentials(org, a.id);
    const credsB = await t.credentials(org, b.id);
    expect(credsA.apiToken).not.toBe(credsB.apiToken);
    // B's token signed with A's secret.
    expect((await t.clickToCall({ token: credsB.apiToken, secret: credsA.apiSecret })).body.code).toBe('ctc:006');
  });

  it('rotate replaces token and secret; the old pair stops working at once', async () => {
    const agent = await t.createAgent(org);
    const old = await t.credentials(org, agent.id);
    const rotated = await t.request('POST', `/v1/agents/${agent.id}/credentials/rotate`, { headers: org.auth });
    expect(rotated.status).toBe(200);
    expect(rotated.body.apiToken).not.toBe(old.apiToken);
    expect(rotated.body.apiSecret).not.toBe(old.apiSecret);
    expect((await t.clickToCall({ token: old.apiToken, secret: old.apiSecret })).body.code).toBe('ctc:003');
    // The new token with the old secret fails the signature; the new pair works.
    expect((await t.clickToCall({ token: rotated.body.apiToken, secret: old.apiSecret })).body.code).toBe('ctc:006');
    const ok = await t.clickToCall({ token: rotated.body.apiToken, secret: rotated.body.apiSecret });
    expect(ok.status).toBe(200);
  });

  it('are stored neither as the token nor as the secret', async () => {
    const agent = await t.createAgent(org);
    const creds = await t.credentials(org, agent.id);
    const { rows } = (await t.db.database.db.execute(
      // A test-only look at the table: what an attacker holding a copy of the database would see.
      (
        await import('drizzle-orm')
      ).sql`select * from agents where id = ${agent.id}`,
    )) as unknown as { rows: Record<string, unknown>[] };
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(creds.apiToken);
    expect(stored).not.toContain(creds.apiSecret);
    expect(stored).not.toContain(creds.apiSecret.slice(5));
  });
});
