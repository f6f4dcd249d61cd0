import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { startReceiver } from './helpers/receiver.js';

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

  it('keeps the bearer token for the mask only on the same origin; another origin needs it again (422)', async () => {
    const mask = '••••••';
    const patch = (id: string, body: Record<string, unknown>) =>
      t.request('PATCH', `/v1/integrations/${id}`, { headers: org.auth, body });
    const sendTest = async (id: string) => {
      const before = receiver.requests.length;
      const test = await t.request('POST', `/v1/integrations/${id}/test`, { headers: org.auth });
      expect(test.body.delivered).toBe(true);
      return receiver.requests.slice(before)[0]!;
    };
    const receiver = await startReceiver();
    try {
      // The mask stands for nothing on a new integration.
      const masked = await create({ url: `${receiver.url}/a`, authorization: mask });
      expect(masked.status).toBe(422);
      expect(masked.body.details).toEqual([{ path: '$.authorization', message: expect.stringMatching(/no secret/) }]);

      const created = await create({ url: `${receiver.url}/a`, authorization: 'tok_first' });
      const id = created.body.id;
      const port = new URL(receiver.url).port;
      for (const url of [`http://localhost:${port}/a`, `https://127.0.0.1:${port}/a`, 'https://crm.example.com/a']) {
        for (const body of [{ url }, { url, authorization: mask }]) {
          const refused = await patch(id, body);
          expect(refused.status, url).toBe(422);
          expect(refused.body.details, url).toEqual([
            { path: '$.authorization', message: expect.stringMatching(/given again/) },
          ]);
        }
      }
      // Refused, nothing changed; another path on the same origin keeps the token, and the signing secret.
      expect((await t.request('GET', `/v1/integrations/${id}`, { headers: org.auth })).body.url).toBe(
        `${receiver.url}/a`,
      );
      const moved = await patch(id, { url: `${receiver.url}/b`, authorization: mask });
      expect(moved.body).toMatchObject({ url: `${receiver.url}/b`, signingSecret: created.body.signingSecret });
      expect((await sendTest(id)).headers.authorization).toBe('Bearer tok_first');

      // Given again with the new origin, it goes there; the signing secret is ours and stays.
      const given = await patch(id, { url: `http://localhost:${port}/c`, authorization: 'tok_second' });
      expect(given.body).toMatchObject({ authorization: mask, signingSecret: created.body.signingSecret });
      expect(await sendTest(id)).toMatchObject({ url: '/c', headers: { authorization: 'Bearer tok_second' } });

      // Without a token, the URL moves freely; the mask there is refused.
      const plain = (await create({ url: `${receiver.url}/a` })).body.id;
      expect((await patch(plain, { url: 'https://crm.example.com/x' })).status).toBe(200);
      const nothing = await patch(plain, { authorization: mask });
      expect(nothing.status).toBe(422);
      expect(nothing.body.details).toEqual([{ path: '$.authorization', message: expect.stringMatching(/no secret/) }]);
    } finally {
      await receiver.close();
    }
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
