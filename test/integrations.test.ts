import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  agentId = (await t.createAgent(org)).id;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>, agent = agentId) =>
  t.request('POST', `/v1/agents/${agent}/integrations`, { headers: org.auth, body });

describe('webhook integrations', () => {
  it('creates one with defaults and a generated whsec_ secret; lists, reads, updates and deletes it', async () => {
    const created = await create({ url: 'https://crm.example.com/hooks/calls' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^intg_/),
      agentId,
      type: 'webhook',
      url: 'https://crm.example.com/hooks/calls',
      enabled: true,
      authorization: null,
      signing: true,
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previousSigningSecretExpiresAt: null,
      triggerConditions: null,
      disabledReason: null,
    });
    const id = created.body.id;
    expect((await t.request('GET', `/v1/integrations/${id}`, { headers: org.auth })).body).toEqual(created.body);
    const list = await t.request('GET', `/v1/agents/${agentId}/integrations`, { headers: org.auth });
    expect(list.body.data.map((i: { id: string }) => i.id)).toContain(id);
    // A list never carries the signing secret; the integration itself does.
    expect(list.body.data.find((i: { id: string }) => i.id === id).signingSecret).toBe('••••••');

    const patched = await t.request('PATCH', `/v1/integrations/${id}`, {
      headers: org.auth,
      body: {
        enabled: false,
        triggerConditions: { match: 'any', conditions: [{ field: 'status', operator: 'in', value: ['SOLD'] }] },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled: false, signingSecret: created.body.signingSecret });
    expect(patched.body.triggerConditions.conditions).toHaveLength(1);

    expect((await t.request('DELETE', `/v1/integrations/${id}`, { headers: org.auth })).status).toBe(204);
    expect((await t.request('GET', `/v1/integrations/${id}`, { headers: org.auth })).status).toBe(404);
  });

  it('answers 404 for an agent that does not exist', async () => {
    expect((await create({ url: 'https://crm.example.com/x' }, 'agt_nope')).status).toBe(404);
    expect((await t.request('GET', '/v1/agents/agt_nope/integrations', { headers: org.auth })).status).toBe(404);
  });

  it('keeps the bearer token write-only: sealed at rest, masked on read, kept when the mask is written back', async () => {
    const created = await create({ url: 'https://crm.example.com/x', authorization: 'tok_secret_123' });
    expect(created.body.authorization).toBe('••••••');
    const stored = await t.db.database.db.execute(`select * from integrations where id = '${created.body.id}'`);
    expect(JSON.stringify(stored)).not.toContain('tok_secret_123');
    expect(JSON.stringify(stored)).not.toContain(created.body.signingSecret);
    const kept = await t.request('PATCH', `/v1/integrations/${created.body.id}`, {
      headers: org.auth,
      body: { authorization: '••••••', url: 'https://crm.example.com/y' },
    });
    expect(kept.body.authorization).toBe('••••••');
    const removed = await t.request('PATCH', `/v1/integrations/${created.body.id}`, {
      headers: org.auth,
      body: { authorization: null },
    });
    expect(removed.body.authorization).toBeNull();
  });

  it('rotates the signing secret, the old one signing alongside for 24 h', async () => {
    const created = await create({ url: 'https://crm.example.com/x' });
    const before = Date.now();
    const rotated = await t.request('POST', `/v1/integrations/${created.body.id}/rotate-secret`, { headers: org.auth });
    expect(rotated.status).toBe(200);
    // As many clients send it: a JSON content type and no body.
    const again = await fetch(`${t.url}/v1/integrations/${created.body.id}/rotate-secret`, {
      method: 'POST',
      headers: { ...org.auth, 'content-type': 'application/json' },
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { signingSecret: string }).signingSecret).not.toBe(rotated.body.signingSecret);
    expect(rotated.body.signingSecret).toMatch(/^whsec_/);
    expect(rotated.body.signingSecret).not.toBe(created.body.signingSecret);
    const expires = Date.parse(rotated.body.previousSigningSecretExpiresAt);
    expect(expires - before).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(expires - before).toBeLessThan(24 * 3600_000 + 60_000);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a URL that is not http(s)', { url: 'ftp://crm.example.com/x' }, '$.url', /http/],
    ['credentials in the URL', { url: 'https://u:p@crm.example.com/x' }, '$.url', /credentials/],
    [
      'an unknown field',
      {
        url: 'https://x.example.com',
        triggerConditions: { conditions: [{ field: 'outcome', operator: 'equals', value: 'SOLD' }] },
      },
      '$.triggerConditions.conditions[0].field',
      /status/,
    ],
    [
      'an unknown operator',
      {
        url: 'https://x.example.com',
        triggerConditions: { conditions: [{ field: 'status', operator: 'startsWith', value: 'S' }] },
      },
      '$.triggerConditions.conditions[0].operator',
      /equals/,
    ],
    [
      'a value the operator cannot use',
      {
        url: 'https://x.example.com',
        triggerConditions: { conditions: [{ field: 'durationSeconds', operator: 'gt', value: 'ten' }] },
      },
      '$.triggerConditions.conditions[0].value',
      /number/,
    ],
    ['an unknown property', { url: 'https://x.example.com', secret: 'x' }, '$.secret', /not a known field/],
  ])('refuses %s (422 at its path, nothing written)', async (_label, body, path, message) => {
    const before = await t.request('GET', `/v1/agents/${agentId}/integrations?limit=100`, { headers: org.auth });
    const response = await create(body);
    expect(response.status).toBe(422);
    const problem = response.body.details.find((d: { path: string }) => d.path === path);
    expect(problem, JSON.stringify(response.body.details)).toBeDefined();
    expect(problem.message).toMatch(message);
    const after = await t.request('GET', `/v1/agents/${agentId}/integrations?limit=100`, { headers: org.auth });
    expect(after.body.data).toHaveLength(before.body.data.length);
  });
});

describe('integration URLs and the private-address guard', () => {
  let guarded: TestApp;
  let owner: Org;
  let agent: string;
  beforeAll(async () => {
    guarded = await startTestApp({ SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'false' });
    owner = await guarded.signup();
    agent = (await guarded.createAgent(owner)).id;
  });
  afterAll(() => guarded.close());

  it.each([
    'http://127.0.0.1:8080/x',
    'http://[::1]/x',
    'http://10.0.0.5/x',
    'http://169.254.169.254/latest',
    'http://localhost:3000/x',
  ])('refuses %s when private networks are not allowed', async (url) => {
    const response = await guarded.request('POST', `/v1/agents/${agent}/integrations`, {
      headers: owner.auth,
      body: { url },
    });
    expect(response.status).toBe(422);
    expect(response.body.details).toEqual([{ path: '$.url', message: expect.stringMatching(/address/) }]);
  });
});
