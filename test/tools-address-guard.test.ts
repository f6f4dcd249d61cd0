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
    expect(run.body.error).toMatch(/localhost.*not allowed \(loopback\)/);
    expect(receiver.requests).toHaveLength(0);
  });
});
