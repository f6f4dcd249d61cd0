import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { LOG_REDACTION } from '../src/lib/log-redaction.js';
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
    t = await startTestApp({}, undefined, { logger: { level: 'trace', ...LOG_REDACTION, stream } });
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
    const tested = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: nextPhone() },
    });
    expect(tested.status).toBe(200);
    const wrong = await t.clickToCall({ token: apiToken, secret: 'not the secret', body: { phone: nextPhone() } });
    expect(wrong.body.code).toBe('ctc:006');
    await t.waitForCall(org, placed.body.callId, (call) => call.deliveries[0]?.state === 'delivered');

    const providerKey = 'vapi_provider_key_9876';
    const providerHookSecret = 'vapi_hook_secret_5432_long_enough';
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
    const parsed = lines.map((line) => JSON.parse(line));
    const completed = parsed.find((line) => line.callId === placed.body.callId);
    expect(completed).toMatchObject({ reqId: expect.stringMatching(/^req_/), msg: 'request completed' });
    // And a test call's, placed from the management API.
    expect(parsed.find((line) => line.callId === tested.body.callId)).toMatchObject({
      reqId: expect.stringMatching(/^req_/),
      msg: 'request completed',
      req: { url: `/v1/agents/${agent.id}/test-call` },
    });
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
    // Behind a proxy on loopback, so that each test can say which client address a request is from.
    t = await startTestApp({ SWITCHBOARD_TRUSTED_PROXIES: '127.0.0.1' });
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
    // The test talks to the server over loopback, which this server lists in SWITCHBOARD_TRUSTED_PROXIES.
    const behindTls = await logIn({ 'x-forwarded-proto': 'https' });
    expect(behindTls.cookie).toMatch(/; Secure/);
  });

  it('believes X-Forwarded-* only from SWITCHBOARD_TRUSTED_PROXIES, none by default', async () => {
    const lines: string[] = [];
    const logger = {
      level: 'warn',
      stream: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    };
    // Loopback, a private network and the old default are all not trusted unless listed.
    const untrusting = await startTestApp({}, undefined, { logger });
    const deprecated = await startTestApp({ SWITCHBOARD_TRUST_PROXY: '127.0.0.1' }, undefined, { logger });
    try {
      expect(lines.join('')).toContain('SWITCHBOARD_TRUST_PROXY is deprecated');
      for (const [app, believed] of [
        [untrusting, false],
        [deprecated, true],
      ] as const) {
        const mail = `proxy-${Date.now()}-${believed}@example.com`;
        await app.request('POST', '/v1/signup', { body: { organization: 'P', email: mail, password } });
        const response = await app.request('POST', '/v1/login', {
          body: { email: mail, password },
          headers: { 'x-forwarded-proto': 'https' },
        });
        expect(/; Secure/.test(response.headers.get('set-cookie') ?? ''), `believed: ${believed}`).toBe(believed);
      }
      // A forged X-Forwarded-For does not give a client a fresh address to guess from.
      const mail = `forged-${Date.now()}@example.com`;
      await untrusting.request('POST', '/v1/signup', { body: { organization: 'F', email: mail, password } });
      const guesses = [];
      for (let i = 0; i < 6; i++) {
        const from = { 'x-forwarded-for': `203.0.113.${i + 1}` };
        guesses.push(
          (await untrusting.request('POST', '/v1/login', { body: { email: mail, password: 'wrong' }, headers: from }))
            .status,
        );
      }
      expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
    } finally {
      await untrusting.close();
      await deprecated.close();
    }
    expect(() => loadConfig({ SWITCHBOARD_TRUSTED_PROXIES: '10.0.0.0/8, uniquelocal' })).toThrow(
      /SWITCHBOARD_TRUSTED_PROXIES must be a comma list of addresses and CIDRs, got "uniquelocal"/,
    );
    expect(loadConfig({ SWITCHBOARD_TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16,fd00::/8' }).trustedProxies).toBe(
      '10.0.0.1,192.168.0.0/16,fd00::/8',
    );
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

  it('never uses the session cookie beside an Authorization header: only a Bearer key authenticates', async () => {
    const { session } = await logIn();
    const basic = { authorization: `Basic ${Buffer.from('ada:secret').toString('base64')}` };
    const count = async () => (await t.request('GET', '/v1/agents', { headers: org.auth })).body.data.length;
    const before = await count();
    // What another site can make a browser send: its cookie, and Basic credentials it remembers.
    const crossSite = await t.request('POST', '/v1/agents', {
      headers: { ...session, ...basic, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: { name: 'Planted' },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe('api:forbidden');
    // Even when the request looks same-site, the cookie does not count beside another Authorization.
    for (const headers of [basic, { authorization: 'Bearer' }, { authorization: 'Bearer sb_live_nope' }]) {
      for (const [method, path, body] of [
        ['POST', '/v1/agents', { name: 'Planted' }],
        ['GET', '/v1/agents', undefined],
      ] as const) {
        const response = await t.request(method, path, { headers: { ...session, ...headers }, body });
        expect(response.status, `${method} ${headers.authorization}`).toBe(401);
        expect(response.body.code).toBe('api:unauthorized');
      }
    }
    expect(await count()).toBe(before);
    expect((await t.request('GET', '/v1/agents', { headers: session })).status).toBe(200);
  });

  /** A log-in of `mail` from the client address `from` (this server believes its loopback proxy). */
  const attempt = (mail: string, pass: string, from: string) =>
    t.request('POST', '/v1/login', { body: { email: mail, password: pass }, headers: { 'x-forwarded-for': from } });
  /** Moves every remembered failure `seconds` into the past, as if that much time went by. */
  const rewind = (seconds: number) =>
    t.db.database.db.execute(
      sql`update login_failures set window_start = window_start - make_interval(secs => ${seconds})`,
    );

  it('slows guesses at an email from one address (5, then 1 min, doubling), never its owner elsewhere', async () => {
    const mail = `guessed-${Date.now()}@example.com`;
    await t.request('POST', '/v1/signup', { body: { organization: 'Guessed', email: mail, password } });
    const attacker = '203.0.113.7';
    for (let i = 0; i < 5; i++) expect((await attempt(mail, 'wrong guess', attacker)).status).toBe(401);
    // The sixth is refused before its password is checked, the right one included.
    const waiting = await attempt(mail, password, attacker);
    expect(waiting.status).toBe(429);
    expect(waiting.body.code).toBe('api:rate_limited');
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(Number(waiting.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(waiting.headers.get('set-cookie')).toBeNull();
    // Its owner, from anywhere else, is not held up at all.
    const owner = await attempt(mail, password, '198.51.100.9');
    expect(owner.status).toBe(200);
    expect(owner.headers.get('set-cookie')).toMatch(/^switchboard_session=/);

    // A minute later one more guess, then twice as long to wait: 2 minutes.
    await rewind(61);
    expect((await attempt(mail, 'wrong guess', attacker)).status).toBe(401);
    const longer = await attempt(mail, 'wrong guess', attacker);
    expect(longer.status).toBe(429);
    expect(Number(longer.headers.get('retry-after'))).toBeGreaterThan(110);
    expect(Number(longer.headers.get('retry-after'))).toBeLessThanOrEqual(120);
    // Once the wait is over, the right password logs in and forgets the failures.
    await rewind(121);
    expect((await attempt(mail, password, attacker)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await attempt(mail, 'typo', attacker)).status).toBe(401);
  });

  it('lets guesses sent at once use only the tries that are free', async () => {
    const mail = `rushed-${Date.now()}@example.com`;
    await attempt(mail, 'first guess', '203.0.113.20');
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => attempt(mail, `guess ${i}`, '203.0.113.20').then((r) => r.status)),
    );
    // One failure before, five free in all: at most four of the twenty were checked.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((status) => status !== 401).every((status) => status === 429)).toBe(true);
  });

  it('slows an address after 50 failed log-ins across emails, not the accounts elsewhere', async () => {
    const from = '192.0.2.44';
    for (let i = 0; i < 50; i++) {
      expect((await attempt(`nobody-${i}@example.com`, 'guess', from)).status).toBe(401);
    }
    const blocked = await attempt(email, password, from);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await attempt(email, password, '192.0.2.45')).status).toBe(200);
  }, 60_000);

  it('limits sign-ups per address: 5 an hour by default (SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR)', async () => {
    // '' is the default: the test helper raises the limit for every other test.
    const limited = await startTestApp({
      SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR: '',
      SWITCHBOARD_TRUSTED_PROXIES: '127.0.0.1',
    });
    try {
      const signUp = (from: string, i: number) =>
        limited.request('POST', '/v1/signup', {
          body: { organization: `Org ${i}`, email: `signup-${i}@example.com`, password },
          headers: { 'x-forwarded-for': from },
        });
      for (let i = 0; i < 5; i++) expect((await signUp('192.0.2.10', i)).status).toBe(201);
      const refused = await signUp('192.0.2.10', 5);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('api:rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      expect(refused.headers.get('set-cookie')).toBeNull();
      // Nothing was created: the same email signs up from another address.
      expect((await signUp('192.0.2.11', 5)).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe('security headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('the dashboard and /docs carry a CSP without inline scripts, no framing, a referrer policy; every answer nosniff', async () => {
    for (const path of ['/', '/agents/agt_1', '/docs']) {
      const response = await fetch(`${t.url}${path}`, { headers: { accept: 'text/html' } });
      expect(response.status, path).toBe(200);
      await response.text();
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const org = await t.signup();
    const agent = await t.createAgent(org);
    const { apiToken, apiSecret } = await t.credentials(org, agent.id);
    const answers = [
      await t.request('GET', '/v1/agents', { headers: org.auth }),
      await t.request('GET', '/v1/nothing-here'),
      await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } }),
      await t.request('GET', '/openapi.json'),
      await t.request('GET', '/healthz'),
    ];
    for (const answer of answers) expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });
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
    expect(second.body.error).toMatch(
      /^The host "tool\.rebind\.test" resolves to a private address, which is not allowed/,
    );
    expect(second.body.error).not.toMatch(/127\.0\.0\.1|loopback/);
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
    expect(failed.providerSync.error).toMatch(
      /"vapi\.rebind\.test" resolves to a private address, which is not allowed/,
    );
    expect(failed.providerSync.error).not.toMatch(/127\.0\.0\.1|loopback/);
    expect(receiver.requests).toHaveLength(0);
  });
});
