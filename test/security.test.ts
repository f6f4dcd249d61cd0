import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED_PATHS } from '../src/app.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// Issue 7's security checks, through HTTP: secrets never in logs, errors or lists; session cookies;
// CSRF; the log-in limit; which proxies are believed; the address guard against DNS rebinding on
// every outbound path.

describe('secrets never reach the logs, error answers or lists', () => {
  let t: TestApp;
  let receiver: Receiver;
  const lines: string[] = [];

  beforeAll(async () => {
    // Every line the server writes, at its most talkative level, with the redaction it ships with.
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    t = await startTestApp({}, undefined, { logger: { level: 'trace', redact: REDACTED_PATHS, stream } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('after every kind of request that carries one', async () => {
    const password = 'correct horse battery staple 42';
    const email = `secrets-${Date.now()}@example.com`;
    const signup = await t.request('POST', '/v1/signup', { body: { organization: 'Secretive', email, password } });
    expect(signup.status).toBe(201);
    const org: Org = { ...signup.body, auth: { authorization: `Bearer ${signup.body.apiKey}` } };
    const login = await t.request('POST', '/v1/login', { body: { email, password } });
    const sessionToken = /switchboard_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    expect(sessionToken).toBeTruthy();
    await t.request('POST', '/v1/login', { body: { email, password: `${password}!` } });

    const toolSecret = 'Bearer sk_live_tool_secret_123';
    const tool = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: 'create_lead',
        method: 'POST',
        url: `${receiver.url}/leads`,
        headers: [{ key: 'Authorization', mode: 'fixed', value: toolSecret }],
        parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai' }],
      },
    });
    expect(tool.status).toBe(201);
    // A refusal that names the field does not repeat what was in it.
    const refused = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: {
        name: 'bad tool',
        method: 'POST',
        url: receiver.url,
        headers: [{ key: 'X-Key', mode: 'fixed', value: toolSecret }],
      },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).not.toContain(toolSecret);
    await t.request('POST', `/v1/tools/${tool.body.id}/test`, {
      headers: org.auth,
      body: { args: { email: 'a@b.c' } },
    });

    const agent = await t.createAgent(org, {
      toolIds: [tool.body.id],
      simulator: { turns: [{ tool: 'create_lead', args: { email: 'a@b.c' } }], outcome: { status: 'SOLD' } },
    });
    const bearer = 'whk_bearer_token_abc';
    const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: org.auth,
      body: { url: `${receiver.url}/hooks`, authorization: bearer },
    });
    const signingSecret = (await t.request('GET', `/v1/integrations/${integration.body.id}`, { headers: org.auth }))
      .body.signingSecret;
    await t.request('POST', `/v1/integrations/${integration.body.id}/test`, { headers: org.auth });
    const { apiToken, apiSecret } = await t.credentials(org, agent.id);
    const placed = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(placed.status).toBe(200);
    const wrong = await t.clickToCall({ token: apiToken, secret: 'not the secret', body: { phone: nextPhone() } });
    expect(wrong.body.code).toBe('ctc:006');
    await t.waitForCall(org, placed.body.callId, (call) => call.deliveries[0]?.state === 'delivered');

    const providerKey = 'vapi_provider_key_9876';
    const providerHookSecret = 'vapi_hook_secret_5432';
    await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Vapi', apiKey: providerKey, webhookSecret: providerHookSecret },
    });
    const badKey = await t.request('GET', '/v1/agents', { headers: { authorization: `Bearer ${apiSecret}` } });
    expect(badKey.status).toBe(401);
    expect(JSON.stringify(badKey.body)).not.toContain(apiSecret);

    const lists = await Promise.all(
      [
        '/v1/agents',
        '/v1/tools',
        `/v1/agents/${agent.id}/integrations`,
        '/v1/provider-credentials',
        '/v1/api-keys',
        '/v1/calls',
        '/v1/deliveries',
      ].map(async (path) => {
        const response = await t.request('GET', path, { headers: org.auth });
        expect(response.status, path).toBe(200);
        return JSON.stringify(response.body);
      }),
    );
    const secrets = {
      password,
      apiKey: org.apiKey,
      sessionToken: sessionToken ?? 'none',
      apiToken,
      apiSecret,
      toolSecret: 'sk_live_tool_secret_123',
      bearer,
      signingSecret,
      providerKey,
      providerHookSecret,
    };
    expect(lines.length).toBeGreaterThan(20);
    // Lines about a call carry its id beside the request's: the click-to-call's "request completed".
    const completed = lines.map((line) => JSON.parse(line)).find((line) => line.callId === placed.body.callId);
    expect(completed).toMatchObject({ reqId: expect.stringMatching(/^req_/), msg: 'request completed' });
    const logText = lines.join('');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(logText.includes(secret), `${name} in the log`).toBe(false);
      for (const [i, list] of lists.entries()) expect(list.includes(secret), `${name} in list ${i}`).toBe(false);
    }
    // The tool endpoint and the receiver did get them: they were sent, just never written down.
    expect(receiver.requests.some((r) => r.headers.authorization === toolSecret)).toBe(true);
    expect(receiver.requests.some((r) => r.headers.authorization === `Bearer ${bearer}`)).toBe(true);
  });
});

describe('sessions, CSRF and log-ins', () => {
  let t: TestApp;
  let org: Org;
  let email: string;
  const password = 'correct horse battery';

  beforeAll(async () => {
    t = await startTestApp();
    email = `cookies-${Date.now()}@example.com`;
    const signup = await t.request('POST', '/v1/signup', { body: { organization: 'Cookies', email, password } });
    org = { ...signup.body, auth: { authorization: `Bearer ${signup.body.apiKey}` } };
  });
  afterAll(() => t.close());

  const logIn = async (headers: Record<string, string> = {}) => {
    const response = await t.request('POST', '/v1/login', { body: { email, password }, headers });
    const cookie = response.headers.get('set-cookie') ?? '';
    return { response, cookie, session: { cookie: cookie.split(';')[0] ?? '' } };
  };

  it('sets the session cookie HttpOnly and SameSite=Lax, and Secure when a trusted proxy says TLS', async () => {
    const plain = await logIn();
    expect(plain.cookie).toMatch(/^switchboard_session=[^;]+;/);
    expect(plain.cookie).toMatch(/; HttpOnly/);
    expect(plain.cookie).toMatch(/; SameSite=Lax/);
    expect(plain.cookie).toMatch(/; Path=\//);
    expect(plain.cookie).not.toMatch(/; Secure/);
    // The test talks to the server over loopback: a proxy the default SWITCHBOARD_TRUST_PROXY believes.
    const behindTls = await logIn({ 'x-forwarded-proto': 'https' });
    expect(behindTls.cookie).toMatch(/; Secure/);
  });

  it('believes X-Forwarded-Proto only from the proxies it is told to trust', async () => {
    const untrusting = await startTestApp({ SWITCHBOARD_TRUST_PROXY: 'false' });
    try {
      const mail = `proxy-${Date.now()}@example.com`;
      await untrusting.request('POST', '/v1/signup', { body: { organization: 'P', email: mail, password } });
      const response = await untrusting.request('POST', '/v1/login', {
        body: { email: mail, password },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(response.headers.get('set-cookie')).not.toMatch(/; Secure/);
    } finally {
      await untrusting.close();
    }
  });

  it('refuses cookie-authenticated writes another site asks for, and nothing changes', async () => {
    const { session } = await logIn();
    const host = new URL(t.url).host;
    const before = (await t.request('GET', '/v1/agents', { headers: org.auth })).body.data.length;
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: `http://${host}` },
    ];
    for (const headers of crossSite) {
      const response = await t.request('POST', '/v1/agents', {
        headers: { ...session, ...headers },
        body: { name: 'Planted' },
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.body.code).toBe('api:forbidden');
    }
    // A log-in another site posts (log-in CSRF) is refused too.
    const planted = await t.request('POST', '/v1/login', {
      headers: { origin: 'https://evil.example' },
      body: { email, password },
    });
    expect(planted.status).toBe(403);
    expect((await t.request('GET', '/v1/agents', { headers: org.auth })).body.data.length).toBe(before);

    // The dashboard's own requests, clients that are not browsers, and API keys all pass; reads always do.
    const sameOrigin = await t.request('POST', '/v1/agents', {
      headers: { ...session, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
      body: { name: 'Mine' },
    });
    expect(sameOrigin.status).toBe(201);
    expect((await t.request('POST', '/v1/agents', { headers: session, body: { name: 'Script' } })).status).toBe(201);
    const withKey = await t.request('POST', '/v1/agents', {
      headers: { ...org.auth, origin: 'https://crm.example' },
      body: { name: 'Backend' },
    });
    expect(withKey.status).toBe(201);
    expect(
      (await t.request('GET', '/v1/agents', { headers: { ...session, 'sec-fetch-site': 'cross-site' } })).status,
    ).toBe(200);
  });

  it('locks an email after 10 failed log-ins in its 15-minute window, even for the right password', async () => {
    const mail = `locked-${Date.now()}@example.com`;
    await t.request('POST', '/v1/signup', { body: { organization: 'Locked', email: mail, password } });
    const attempt = (pass: string, from = '203.0.113.7') =>
      t.request('POST', '/v1/login', { body: { email: mail, password: pass }, headers: { 'x-forwarded-for': from } });
    for (let i = 0; i < 10; i++) expect((await attempt('wrong')).status).toBe(401);
    const locked = await attempt(password, '198.51.100.9');
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('api:rate_limited');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(locked.headers.get('set-cookie')).toBeNull();
    // Other accounts are not locked out by it.
    expect((await logIn()).response.status).toBe(200);
  });

  it('locks an address after 100 failed log-ins across emails; a success forgets the account’s failures', async () => {
    const from = { 'x-forwarded-for': '192.0.2.44' };
    for (let i = 0; i < 9; i++) {
      await t.request('POST', '/v1/login', { body: { email, password: 'nope' }, headers: from });
    }
    // Nine failures, then the right password: the email's count starts again.
    expect((await t.request('POST', '/v1/login', { body: { email, password }, headers: from })).status).toBe(200);
    const guesses = await Promise.all(
      Array.from({ length: 91 }, (_, i) =>
        t.request('POST', '/v1/login', {
          body: { email: `nobody-${i}@example.com`, password: 'guess' },
          headers: from,
        }),
      ),
    );
    expect(guesses.every((g) => g.status === 401)).toBe(true);
    const blocked = await t.request('POST', '/v1/login', { body: { email, password }, headers: from });
    expect(blocked.status).toBe(429);
    const elsewhere = await t.request('POST', '/v1/login', {
      body: { email, password },
      headers: { 'x-forwarded-for': '192.0.2.45' },
    });
    expect(elsewhere.status).toBe(200);
  }, 60_000);
});

describe('the private-address guard on every outbound path, against DNS rebinding', () => {
  let t: TestApp;
  let org: Org;
  let receiver: Receiver;
  // Each name answers a public address the first time (when its URL is saved) and loopback after.
  const lookups = new Map<string, number>();
  const rebinding = async (hostname: string) => {
    const seen = lookups.get(hostname) ?? 0;
    lookups.set(hostname, seen + 1);
    if (!hostname.endsWith('.rebind.test')) throw new Error(`unexpected lookup of ${hostname}`);
    return seen === 0 ? ['93.184.216.34'] : ['127.0.0.1'];
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(
      { SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'false', SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' },
      undefined,
      { resolveHost: rebinding },
    );
    org = await t.signup();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const at = (name: string) => `http://${name}.rebind.test:${new URL(receiver.url).port}`;

  it('tools: a name that answered a public address, then loopback, is refused when it connects', async () => {
    const tool = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'rebound', method: 'GET', url: `${at('tool')}/admin` },
    });
    expect(tool.status).toBe(201);
    // The first run connects to the public answer (nothing of ours is there); the second lookup says loopback.
    const first = await t.request('POST', `/v1/tools/${tool.body.id}/test`, { headers: org.auth, body: {} });
    expect(first.body.error ?? '').not.toMatch(/not allowed/);
    const second = await t.request('POST', `/v1/tools/${tool.body.id}/test`, { headers: org.auth, body: {} });
    expect(second.body).toMatchObject({ request: null, response: null });
    expect(second.body.error).toMatch(/127\.0\.0\.1.*not allowed \(loopback\)/);
    expect(lookups.get('tool.rebind.test')).toBe(2);
  });

  it('webhooks: Send test and a real delivery are both refused', async () => {
    const agent = await t.createAgent(org);
    const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: org.auth,
      body: { url: `${at('hook')}/hooks` },
    });
    expect(integration.status).toBe(201);
    const test = await t.request('POST', `/v1/integrations/${integration.body.id}/test`, { headers: org.auth });
    expect(test.body).toMatchObject({ delivered: false, attempt: { status: null, errorCode: 'webhook:blocked' } });

    const { apiToken, apiSecret } = await t.credentials(org, agent.id);
    const placed = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    const call = await t.waitForCall(org, placed.body.callId, (c) => c.deliveries[0]?.attempts.length > 0);
    expect(call.deliveries[0].attempts[0]).toMatchObject({ status: null, errorCode: 'webhook:blocked' });
  });

  it('providers: the SDK’s requests to a credential’s base URL are refused, and the agent says why', async () => {
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Rebound Vapi', apiKey: 'vapi-key', baseUrl: at('vapi') },
    });
    expect(credential.status).toBe(201);
    const agent = await t.createAgent(org, {
      provider: 'vapi',
      providerCredentialId: credential.body.id,
      fromNumber: '+14155550100',
    });
    const failed = await until(
      'the publish to fail',
      async () => {
        const read = (await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth })).body;
        return read.providerSync.error ? read : undefined;
      },
      15_000,
    );
    expect(failed.providerSync.error).toMatch(/not allowed \(loopback\)/);
    expect(receiver.requests).toHaveLength(0);
  });
});
