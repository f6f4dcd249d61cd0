import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

const agentWithCredentials = (body: Record<string, unknown> = {}) => t.agentWithCredentials(org, body);

async function callCount(): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: { body: { data: unknown[]; nextCursor: string | null } } = await t.request(
      'GET',
      `/v1/calls?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: org.auth },
    );
    count += page.body.data.length;
    cursor = page.body.nextCursor;
  } while (cursor);
  return count;
}

function expectError(response: { status: number; body: any }, code: string, status: number, message: string) {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ success: false, code, message, requestId: expect.stringMatching(/^req_/) });
}

describe('POST /api/click-to-call: success', () => {
  it('starts a call and answers {success, callId, status: "queued"}', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ firstMessage: 'Hi {{name}}' });
    const phone = nextPhone();
    const response = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone, variables: { name: 'Ada' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, callId: expect.stringMatching(/^call_/), status: 'queued' });
    const call = await t.waitForCall(org, response.body.callId);
    expect(call).toMatchObject({ to: phone, status: 'ended', outcome: 'COMPLETED', variables: { name: 'Ada' } });
    expect(call.transcript[0]).toMatchObject({ role: 'agent', text: 'Hi Ada' });
  });

  it('verifies the signature over the bytes received: odd whitespace and non-ASCII text pass as sent', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ firstMessage: 'Bonjour {{name}}' });
    const phone = nextPhone();
    const raw = `{ "phone" :"${phone}",\n\t"variables":{ "name" : "Zoë 👋 Ünïcødé" }   }\n`;
    const signature = createHmac('sha256', apiSecret).update(Buffer.from(raw, 'utf8')).digest('hex');
    const ok = await t.clickToCall({ token: apiToken, body: raw, headers: { signature } });
    expect(ok.status).toBe(200);
    const call = await t.waitForCall(org, ok.body.callId);
    expect(call.transcript[0].text).toBe('Bonjour Zoë 👋 Ünïcødé');

    // The same signature over a re-serialisation of that body does not verify.
    const reserialised = JSON.stringify(JSON.parse(raw));
    expect(reserialised).not.toBe(raw);
    const refused = await t.clickToCall({ token: apiToken, body: reserialised, headers: { signature } });
    expectError(refused, 'ctc:006', 403, 'Invalid signature');
  });

  it('accepts an uppercase hex signature (hex is case-insensitive) and a body without variables', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ firstMessage: 'Hi {{name}}, {{company}}' });
    const raw = JSON.stringify({ phone: nextPhone() });
    const signature = createHmac('sha256', apiSecret).update(raw).digest('hex').toUpperCase();
    const response = await t.clickToCall({ token: apiToken, body: raw, headers: { signature } });
    expect(response.status).toBe(200);
    const call = await t.waitForCall(org, response.body.callId);
    // Variables the script uses but the request left out are sent as "", never undefined.
    expect(call.variables).toEqual({ name: '', company: '' });
    expect(call.transcript[0].text).toBe('Hi , ');
  });

  it('skips the signature when Disable Signature Verification is on', async () => {
    const { apiToken } = await agentWithCredentials({ disableSignatureVerification: true });
    const response = await t.clickToCall({ token: apiToken, body: { phone: nextPhone(), variables: {} } });
    expect(response.status).toBe(200);
  });
});

describe('POST /api/click-to-call: every error code', () => {
  it('ctc:001 when api-key is absent or empty', async () => {
    const none = await fetch(`${t.url}/api/click-to-call`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expectError({ status: none.status, body: await none.json() }, 'ctc:001', 400, 'Missing headers');
    expectError(await t.clickToCall({ token: '' }), 'ctc:001', 400, 'Missing headers');
  });

  it('ctc:003 for an unknown token', async () => {
    expectError(await t.clickToCall({ token: 'ctc_unknown', secret: 'x' }), 'ctc:003', 403, 'Invalid API key');
  });

  it('ctc:001 when verification is on and the signature is absent', async () => {
    const { apiToken } = await agentWithCredentials();
    expectError(await t.clickToCall({ token: apiToken }), 'ctc:001', 400, 'Missing headers');
  });

  it('ctc:006 for a signature that does not match, of any shape', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const body = JSON.stringify({ phone: nextPhone() });
    const good = createHmac('sha256', apiSecret).update(body).digest('hex');
    for (const signature of [
      'nope',
      `${good}00`,
      good.slice(0, 63),
      `sha256=${good}`,
      'z'.repeat(64),
      createHmac('sha256', 'other').update(body).digest('hex'),
    ]) {
      expectError(
        await t.clickToCall({ token: apiToken, body, headers: { signature } }),
        'ctc:006',
        403,
        'Invalid signature',
      );
    }
  });

  it('ctc:004 for a disabled agent', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ enabled: false });
    expectError(await t.clickToCall({ token: apiToken, secret: apiSecret }), 'ctc:004', 400, 'Agent is disabled');
  });

  it('ctc:005 for an agent that is not configured', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ provider: 'retell' });
    expectError(await t.clickToCall({ token: apiToken, secret: apiSecret }), 'ctc:005', 400, 'Agent not configured');
  });

  it('ctc:009 for every kind of bad body, with details naming the field, and no call written', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const before = await callCount();
    const cases: [string, string][] = [
      ['', '$'],
      ['not json', '$'],
      ['{"phone": "+14155550123"', '$'],
      ['[1,2]', '$'],
      ['"text"', '$'],
      ['null', '$'],
      ['{}', '$.phone'],
      ['{"phone": 14155550123}', '$.phone'],
      ['{"phone": "4155550123"}', '$.phone'],
      ['{"phone": "+1 415 555 0123"}', '$.phone'],
      ['{"phone": "+1415"}', '$.phone'],
      ['{"phone": "+14155550123", "variables": []}', '$.variables'],
      ['{"phone": "+14155550123", "variables": "x"}', '$.variables'],
      ['{"phone": "+14155550123", "variables": null}', '$.variables'],
      ['{"phone": "+14155550123", "variables": {"age": 42}}', '$.variables.age'],
      ['{"phone": "+14155550123", "variables": {"nested": {"a": "b"}}}', '$.variables.nested'],
      ['{"phone": "+14155550123", "variables": {"flag": true}}', '$.variables.flag'],
      ['{"phone": "+14155550123", "variables": {"": "x"}}', '$.variables[""]'],
      [`{"phone": "+14155550123", "variables": {"${'a'.repeat(65)}": "x"}}`, `$.variables.${'a'.repeat(65)}`],
      ['{"phone": "+14155550123", "variables": {"system_prompt": "x"}}', '$.variables.system_prompt'],
      ['{"phone": "+14155550123", "variables": {"SYSTEM": "x"}}', '$.variables.SYSTEM'],
      ['{"phone": "+14155550123", "variables": {"SwitchBoardId": "x"}}', '$.variables.SwitchBoardId'],
    ];
    for (const [body, path] of cases) {
      const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body });
      expectError(response, 'ctc:009', 400, 'Invalid request body');
      expect(
        response.body.details.map((d: { path: string }) => d.path),
        body,
      ).toContain(path);
    }
    // A 64-character name is allowed; the limit is "over 64".
    const ok = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone: nextPhone(), variables: { ['a'.repeat(64)]: 'x' } },
    });
    expect(ok.status).toBe(200);
    expect(await callCount()).toBe(before + 1);
  });

  it('ctc:009 for a body over 64 KiB, refused before parsing', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const before = await callCount();
    const body = JSON.stringify({ phone: nextPhone(), variables: { filler: 'x'.repeat(64 * 1024) } });
    const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body });
    expectError(response, 'ctc:009', 400, 'Invalid request body');
    expect(await callCount()).toBe(before);
  });

  it('keeps "__proto__" and "constructor" as ordinary variable names', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const raw = `{"phone":"${nextPhone()}","variables":{"__proto__":"x","constructor":"y"}}`;
    const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body: raw });
    expect(response.status).toBe(200);
    const call = await t.waitForCall(org, response.body.callId);
    expect(Object.keys(call.variables).sort()).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('ctc:007 while a call to the number is active, and again after it ends it is free', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ simulator: { delayMs: 600 } });
    const phone = nextPhone();
    const first = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(first.status).toBe(200);
    expectError(
      await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } }),
      'ctc:007',
      400,
      'Call already in progress',
    );
    await t.waitForCall(org, first.body.callId);
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } })).status).toBe(200);
  });

  it('ctc:007 for 29 of 30 simultaneous requests for one number: exactly one call', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ simulator: { delayMs: 2000 } });
    const phone = nextPhone();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.body.code === 'ctc:007')).toHaveLength(29);
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.data).toHaveLength(1);
  });

  it('ctc:007 once the agent is at maxConcurrentCalls, decided atomically', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({
      maxConcurrentCalls: 2,
      simulator: { delayMs: 2000 },
    });
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(2);
    expect(responses.filter((r) => r.body.code === 'ctc:007')).toHaveLength(6);
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.data).toHaveLength(2);
  });

  it('ctc:008 when the provider fails to start; the number is not left locked and a retry succeeds', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ simulator: { answer: 'fail_to_start' } });
    const phone = nextPhone();
    const failed = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expectError(failed, 'ctc:008', 500, 'Error initiating call');
    const record = await t.request('GET', `/v1/calls/${failed.body.callId}`, { headers: org.auth });
    expect(record.body).toMatchObject({ status: 'ended', outcome: 'FAILED', endedReason: 'failed_to_start' });
    expect(record.body.error).toContain('fail_to_start');

    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { simulator: null } });
    const retried = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(retried.status).toBe(200);
  });

  it('ctc:010 past rateLimitPerMinute, with Retry-After', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    let limited: { status: number; body: any; headers: Headers } | undefined;
    for (let i = 0; i < 5; i++) {
      const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    // Three per minute window; a window boundary in the middle of the loop may allow a fourth.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(limited).toBeDefined();
    expectError(limited!, 'ctc:010', 429, 'Too many requests');
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});

describe('POST /api/click-to-call: a rate limit leased in chunks (decision 0051)', () => {
  it('lets exactly the limit through in one process, however the burst falls on the leases', async () => {
    const limit = 120;
    // Disabled: counted, then refused with ctc:004, so no call is placed.
    const { apiToken, apiSecret } = await agentWithCredentials({ rateLimitPerMinute: limit, enabled: false });
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const windowBefore = Math.floor(Date.now() / 60_000);
    const codes: string[] = [];
    for (let wave = 0; wave < 4; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } }),
        ),
      );
      codes.push(...answers.map((answer) => answer.body.code));
    }
    expect(Math.floor(Date.now() / 60_000), 'the burst stayed in one window').toBe(windowBefore);
    expect(codes.filter((code) => code === 'ctc:004')).toHaveLength(limit);
    expect(codes.filter((code) => code === 'ctc:010')).toHaveLength(160 - limit);
  });

  it('a limit lowered mid-minute holds at once; raised, lets more through', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ rateLimitPerMinute: 1000, enabled: false });
    const send = () => t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const windowBefore = Math.floor(Date.now() / 60_000);
    for (let i = 0; i < 10; i++) expect((await send()).body.code).toBe('ctc:004');
    // Ten used; the tokens still leased under the old limit are dropped with it.
    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { rateLimitPerMinute: 5 } });
    expect((await send()).body.code).toBe('ctc:010');
    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { rateLimitPerMinute: 1000 } });
    expect((await send()).body.code).toBe('ctc:004');
    expect(Math.floor(Date.now() / 60_000), 'the requests stayed in one window').toBe(windowBefore);
  });
});

describe('POST /api/click-to-call: the order of checks', () => {
  it('an unknown token without signature → ctc:003', async () => {
    expectError(await t.clickToCall({ token: 'ctc_unknown' }), 'ctc:003', 403, 'Invalid API key');
  });

  it('a disabled agent with a bad signature → ctc:006 (signature before disabled)', async () => {
    const { apiToken } = await agentWithCredentials({ enabled: false });
    expectError(await t.clickToCall({ token: apiToken, secret: 'wrong secret' }), 'ctc:006', 403, 'Invalid signature');
  });

  it('a disabled, unconfigured agent → ctc:004; an unconfigured agent with a bad body → ctc:005', async () => {
    const disabled = await agentWithCredentials({ enabled: false, provider: 'vapi' });
    expectError(
      await t.clickToCall({ token: disabled.apiToken, secret: disabled.apiSecret, body: 'x' }),
      'ctc:004',
      400,
      'Agent is disabled',
    );
    const unconfigured = await agentWithCredentials({ provider: 'vapi' });
    expectError(
      await t.clickToCall({ token: unconfigured.apiToken, secret: unconfigured.apiSecret, body: 'x' }),
      'ctc:005',
      400,
      'Agent not configured',
    );
  });

  it('a rate-limited request to a disabled agent → ctc:010', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ enabled: false, rateLimitPerMinute: 1 });
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await t.clickToCall({ token: apiToken, secret: apiSecret })).body.code);
    expect(codes).toContain('ctc:004');
    expect(codes).toContain('ctc:010');
  });

  it('a bad body for a busy number → ctc:009 (body before the in-progress check)', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ simulator: { delayMs: 1000 } });
    const phone = nextPhone();
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } })).status).toBe(200);
    const response = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone, variables: { system: 'x' } },
    });
    expect(response.body.code).toBe('ctc:009');
  });
});

describe('POST /api/click-to-call: Idempotency-Key', () => {
  it('returns the first response to a retry instead of starting a second call', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials();
    const body = { phone: nextPhone(), variables: { name: 'Ada' } };
    const headers = { 'idempotency-key': 'order-1234' };
    const first = await t.clickToCall({ token: apiToken, secret: apiSecret, body, headers });
    expect(first.status).toBe(200);
    await t.waitForCall(org, first.body.callId);
    const second = await t.clickToCall({ token: apiToken, secret: apiSecret, body, headers });
    expect(second.status).toBe(200);
    expect(second.body.callId).toBe(first.body.callId);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // The same body as the first answer, its requestId included (issue 16; decision 0033).
    expect(second.body).toEqual(first.body);
    expect(second.body.requestId).toBe(first.headers.get('x-request-id'));
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.data).toHaveLength(1);
  });

  it('starts exactly one call for simultaneous requests with one key', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ simulator: { delayMs: 500 } });
    const body = { phone: nextPhone() };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.clickToCall({ token: apiToken, secret: apiSecret, body, headers: { 'idempotency-key': 'burst' } }),
      ),
    );
    const callIds = new Set(responses.filter((r) => r.status === 200).map((r) => r.body.callId));
    expect(callIds.size).toBe(1);
    for (const r of responses) if (r.status !== 200) expect(r.body.code).toBe('ctc:012');
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.data).toHaveLength(1);
  });

  it('refuses a key reused with a different body, or longer than 255 characters (ctc:011)', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const headers = { 'idempotency-key': 'reuse' };
    expect(
      (await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() }, headers })).status,
    ).toBe(200);
    const reused = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() }, headers });
    expectError(reused, 'ctc:011', 400, 'Invalid Idempotency-Key');
    const long = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone: nextPhone() },
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expectError(long, 'ctc:011', 400, 'Invalid Idempotency-Key');
    const max = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone: nextPhone() },
      headers: { 'idempotency-key': 'k'.repeat(255) },
    });
    expect(max.status).toBe(200);
  });

  it('does not keep a failed start: a retry with the same key runs again', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ simulator: { answer: 'fail_to_start' } });
    const body = { phone: nextPhone() };
    const headers = { 'idempotency-key': 'retry-me' };
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body, headers })).body.code).toBe('ctc:008');
    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { simulator: null } });
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body, headers })).status).toBe(200);
  });

  it('answers a retry whose first request died mid-way with that call, never placing a second', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials();
    const body = { phone: nextPhone() };
    const headers = { 'idempotency-key': 'died-mid-way' };
    const first = await t.clickToCall({ token: apiToken, secret: apiSecret, body, headers });
    expect(first.status).toBe(200);
    await t.waitForCall(org, first.body.callId);
    // What a process killed between recording the call and storing its answer leaves behind: the
    // key still in progress, claimed two minutes ago (a test-only write standing in for the crash).
    const { sql } = await import('drizzle-orm');
    await t.db.database.db.execute(
      sql`update idempotency_keys set state = 'in_progress', response = null, created_at = now() - interval '2 minutes' where key = 'died-mid-way'`,
    );
    const retry = await t.clickToCall({ token: apiToken, secret: apiSecret, body, headers });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ success: true, callId: first.body.callId, status: 'queued' });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const calls = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(calls.body.data).toHaveLength(1);
  });

  it('keys belong to one agent', async () => {
    const a = await agentWithCredentials();
    const b = await agentWithCredentials();
    const headers = { 'idempotency-key': 'shared-key' };
    const first = await t.clickToCall({
      token: a.apiToken,
      secret: a.apiSecret,
      body: { phone: nextPhone() },
      headers,
    });
    const second = await t.clickToCall({
      token: b.apiToken,
      secret: b.apiSecret,
      body: { phone: nextPhone() },
      headers,
    });
    expect(second.status).toBe(200);
    expect(second.body.callId).not.toBe(first.body.callId);
  });
});

describe('POST /api/click-to-call: the database fails', () => {
  it('answers ctc:002 when the agent cannot be loaded', async () => {
    const broken = await startTestApp();
    try {
      const o = await broken.signup();
      const agent = await broken.createAgent(o);
      const creds = await broken.credentials(o, agent.id);
      await broken.db.database.close();
      const response = await broken.clickToCall({ token: creds.apiToken, secret: creds.apiSecret });
      expectError(response, 'ctc:002', 500, 'Error fetching agent');
    } finally {
      await broken.app.close();
      await broken.db.drop().catch(() => {});
    }
  });
});
