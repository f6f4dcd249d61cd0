import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The service as deployed: SWITCHBOARD_ALLOW_PRIVATE_NETWORKS unset, so tools may reach public addresses only.
let t: TestApp;
let org: Org;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({ SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'false' });
  org = await t.signup();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('the private-address guard on tools', () => {
  const port = () => new URL(receiver.url).port;
  const literals = [
    '127.0.0.1',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
  ];

  it.each(literals)('refuses a tool whose URL names %s (422 at $.url)', async (host) => {
    const response = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'internal', method: 'GET', url: `http://${host}:${port()}/admin` },
    });
    expect(response.status).toBe(422);
    expect(response.body.details).toEqual([{ path: '$.url', message: expect.stringMatching(/address/) }]);
  });

  it('refuses, when connecting, a hostname that resolves to loopback; nothing is sent', async () => {
    const created = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'sneaky', method: 'GET', url: `http://localhost:${port()}/admin` },
    });
    expect(created.status).toBe(201);
    const run = await t.request('POST', `/v1/tools/${created.body.id}/test`, { headers: org.auth, body: {} });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ request: null, response: null });
    expect(run.body.error).toMatch(/^The host "localhost" resolves to a private address, which is not allowed/);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('refusals do not say what a name resolves to (no DNS oracle)', () => {
  // Names of the organization's choosing that resolve to our private addresses: the refusal may say
  // that the name resolves to a private address, never which one or which kind (here: the metadata service).
  const privateAddress = '169.254.169.254';
  const tells = /169\.254|metadata|link-local/;
  let app: TestApp;
  let tenant: Org;
  const lookups = new Map<string, number>();
  const resolveHost = async (hostname: string) => {
    const seen = lookups.get(hostname) ?? 0;
    lookups.set(hostname, seen + 1);
    // `later.test` answers a public address when its URL is saved, the private one when it connects.
    return hostname === 'later.test' && seen === 0 ? ['93.184.216.34'] : [privateAddress];
  };

  beforeAll(async () => {
    app = await startTestApp({ SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'false' }, undefined, { resolveHost });
    tenant = await app.signup();
  });
  afterAll(() => app.close());

  it('when a URL is saved (webhook, provider base URL) or a tool connects', async () => {
    const agent = await app.createAgent(tenant);
    const saves = [
      ['/v1/tools', { name: 'vm', method: 'GET', url: 'http://vm.test/x' }, '$.url'],
      [`/v1/agents/${agent.id}/integrations`, { url: 'https://vm.test/hooks' }, '$.url'],
      [
        '/v1/provider-credentials',
        { provider: 'vapi', name: 'VM', apiKey: 'k', baseUrl: 'https://vm.test' },
        '$.baseUrl',
      ],
    ] as const;
    for (const [path, body, field] of saves) {
      const response = await app.request('POST', path, { headers: tenant.auth, body });
      if (path === '/v1/tools') {
        // A tool's name is judged when it connects (below); its URL is refused at once only for a typed address.
        expect(response.status, path).toBe(201);
        const run = await app.request('POST', `/v1/tools/${response.body.id}/test`, { headers: tenant.auth, body: {} });
        expect(run.body.error).toBe(
          'The host "vm.test" resolves to a private address, which is not allowed; ' +
            'set SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true to allow private networks',
        );
        expect(JSON.stringify(run.body)).not.toMatch(tells);
        continue;
      }
      expect(response.status, path).toBe(422);
      expect(response.body.details, path).toEqual([
        { path: field, message: 'its host "vm.test" resolves to a private address, which Switchboard may not reach' },
      ]);
      expect(JSON.stringify(response.body), path).not.toMatch(tells);
    }
  });

  it('when a webhook connects: Send test and the delivery log', async () => {
    const agent = await app.createAgent(tenant);
    const integration = await app.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: tenant.auth,
      body: { url: 'https://later.test/hooks' },
    });
    expect(integration.status).toBe(201);
    const test = await app.request('POST', `/v1/integrations/${integration.body.id}/test`, { headers: tenant.auth });
    expect(test.body.attempt).toMatchObject({
      errorCode: 'webhook:blocked',
      error: expect.stringMatching(/^The host "later\.test" resolves to a private address/),
    });
    expect(JSON.stringify(test.body)).not.toMatch(tells);

    const { apiToken, apiSecret } = await app.credentials(tenant, agent.id);
    const placed = await app.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '+14155550177' } });
    const call = await app.waitForCall(tenant, placed.body.callId, (c) => c.deliveries[0]?.attempts.length > 0);
    expect(call.deliveries[0].attempts[0]).toMatchObject({ errorCode: 'webhook:blocked' });
    expect(JSON.stringify(call.deliveries)).not.toMatch(tells);
  });

  it('a typed private address is named with its kind: that tells the user nothing new', async () => {
    const response = await app.request('POST', '/v1/tools', {
      headers: tenant.auth,
      body: { name: 'typed', method: 'GET', url: `http://${privateAddress}/latest` },
    });
    expect(response.body.details).toEqual([
      {
        path: '$.url',
        message: 'points at a cloud metadata address (169.254.169.254), which Switchboard may not reach',
      },
    ]);
  });
});
