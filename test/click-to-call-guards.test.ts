import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

// Toll fraud (costly number types, allowedCountries) and timestamped signatures (decision 0031).

let t: TestApp;
let org: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

const agentWithCredentials = (body: Record<string, unknown> = {}) => t.agentWithCredentials(org, body);

async function callsOf(agentId: string): Promise<unknown[]> {
  return (await t.request('GET', `/v1/calls?agentId=${agentId}`, { headers: org.auth })).body.data;
}

const seconds = () => Math.floor(Date.now() / 1000);
const sign = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

/** A click-to-call in the timestamped form: `signature` over `timestamp + "." + body`. */
function timestamped(secret: string, body: string, timestamp: number | string, headers: Record<string, string> = {}) {
  return { 'signature-timestamp': String(timestamp), signature: sign(secret, `${timestamp}.${body}`), ...headers };
}

describe('click to call refuses costly numbers by default (ctc:009)', () => {
  it.each([
    ['+19005550123', 'a premium-rate number (US)'],
    ['+19002001234', 'a premium-rate number (US)'],
    ['+449098790123', 'a premium-rate number (GB)'],
    ['+448712345678', 'a premium-rate number (GB)'],
    ['+491805123456', 'a shared-cost number (DE)'],
    ['+611300123456', 'a shared-cost number (AU)'],
    ['+447012345678', 'a personal (forwarding) number'],
    ['+447640123456', 'a pager number (GB)'],
    ['+15005550123', 'a personal (forwarding) number'],
  ])('%s is refused as %s, and no call is recorded', async (phone, kind) => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials();
    const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: 'ctc:009', message: 'Invalid request body' });
    expect(response.body.details).toEqual([{ path: '$.phone', message: expect.stringContaining(`is ${kind}`) }]);
    expect(response.body.details[0].message).toContain('toll-fraud protection');
    expect(await callsOf(agent.id)).toHaveLength(0);
  });

  it('refuses a satellite number (+881, a global service of no country)', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '+881612345678' } });
    expect(response.body.code).toBe('ctc:009');
    expect(response.body.details).toEqual([
      { path: '$.phone', message: expect.stringContaining('is a number of a global service (+881') },
    ]);
  });

  it.each([
    ['+18005550123', 'toll-free'],
    ['+442079460000', 'a UK fixed line'],
    ['+447400123456', 'a UK mobile'],
    ['+443001234567', 'a UK 03 (universal access, charged as geographic)'],
  ])('places a call to %s (%s)', async (phone) => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect((await t.waitForCall(org, response.body.callId)).to).toBe(phone);
  });
});

describe('allowedCountries', () => {
  it('["US"] refuses a +44 and a Jamaican +1 number with ctc:009, and places a US call', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ allowedCountries: ['US'] });
    expect(agent.allowedCountries).toEqual(['US']);
    const uk = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '+442079460000' } });
    expect(uk.status).toBe(400);
    expect(uk.body).toMatchObject({
      code: 'ctc:009',
      details: [{ path: '$.phone', message: 'is a number of GB; this agent calls only US (its allowedCountries)' }],
    });
    // +1 is not only the US: the Caribbean's numbers are the classic toll-fraud destinations.
    const jamaica = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '+18765550123' } });
    expect(jamaica.body.details).toEqual([
      { path: '$.phone', message: 'is a number of JM; this agent calls only US (its allowedCountries)' },
    ]);
    const us = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(us.status, JSON.stringify(us.body)).toBe(200);
    expect(await callsOf(agent.id)).toHaveLength(1);
  });

  it('a premium number outside the list names both reasons', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials({ allowedCountries: ['GB'] });
    const response = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: '+19005550123' } });
    expect(response.body.details.map((d: { message: string }) => d.message)).toEqual([
      expect.stringContaining('is a premium-rate number (US)'),
      'is a number of US; this agent calls only GB (its allowedCountries)',
    ]);
  });

  it('is validated on POST and PATCH: 422 by path, duplicates dropped, null for every country', async () => {
    const bad = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Countries', allowedCountries: ['US', 'us', 'XX', 'UK', 'USA'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('api:validation');
    expect(bad.body.details).toEqual(
      expect.arrayContaining([{ path: '$.allowedCountries[4]', message: expect.any(String) }]),
    );
    // The schema refuses "USA" first; without it, the service names each of the others.
    const named = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Countries', allowedCountries: ['US', 'us', 'XX', 'UK'] },
    });
    expect(named.status).toBe(422);
    expect(named.body.details).toEqual([
      { path: '$.allowedCountries[1]', message: 'must be in capitals: "US"' },
      {
        path: '$.allowedCountries[2]',
        message: 'is not an ISO 3166 alpha-2 country code whose phone numbers are known, e.g. "US"',
      },
      { path: '$.allowedCountries[3]', message: 'is not an ISO 3166 code: the United Kingdom is "GB"' },
    ]);
    for (const allowedCountries of [[], Array.from({ length: 251 }, () => 'US'), 'US', [1]]) {
      const refused = await t.request('POST', '/v1/agents', {
        headers: org.auth,
        body: { name: 'Countries', allowedCountries },
      });
      expect(refused.status, JSON.stringify(allowedCountries)).toBe(422);
      expect(refused.body.details[0].path).toMatch(/^\$\.allowedCountries/);
    }

    const agent = await t.createAgent(org, {});
    expect(agent).toMatchObject({ allowedCountries: null, requireSignatureTimestamp: false });
    const patched = await t.request('PATCH', `/v1/agents/${agent.id}`, {
      headers: org.auth,
      body: { allowedCountries: ['US', 'CA', 'US', 'GB', 'CA'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.allowedCountries).toEqual(['US', 'CA', 'GB']);
    const refusedPatch = await t.request('PATCH', `/v1/agents/${agent.id}`, {
      headers: org.auth,
      body: { allowedCountries: ['US', 'ZZ'] },
    });
    expect(refusedPatch.status).toBe(422);
    expect(refusedPatch.body.details).toEqual([{ path: '$.allowedCountries[1]', message: expect.any(String) }]);
    const read = await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth });
    expect(read.body.allowedCountries).toEqual(['US', 'CA', 'GB']); // the refused PATCH changed nothing
    const cleared = await t.request('PATCH', `/v1/agents/${agent.id}`, {
      headers: org.auth,
      body: { allowedCountries: null },
    });
    expect(cleared.body.allowedCountries).toBeNull();
  });
});

describe('signature-timestamp', () => {
  it('the timestamped form is accepted, and the body-only form still is when not required', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const body = JSON.stringify({ phone: nextPhone() });
    const stamped = await t.clickToCall({ token: apiToken, body, headers: timestamped(apiSecret, body, seconds()) });
    expect(stamped.status, JSON.stringify(stamped.body)).toBe(200);
    const bodyOnly = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(bodyOnly.status).toBe(200);
    // Within the window either way is fine; 290 s old still passes.
    const older = JSON.stringify({ phone: nextPhone() });
    const old = await t.clickToCall({
      token: apiToken,
      body: older,
      headers: timestamped(apiSecret, older, seconds() - 290),
    });
    expect(old.status).toBe(200);
  });

  it('a timestamp 301 s old or more than 300 s ahead is ctc:006, with how far off it is', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const body = JSON.stringify({ phone: nextPhone() });
    const past = await t.clickToCall({ token: apiToken, body, headers: timestamped(apiSecret, body, seconds() - 301) });
    expect(past.status).toBe(403);
    expect(past.body).toMatchObject({ success: false, code: 'ctc:006', message: 'Invalid signature' });
    expect(past.body.details).toEqual([
      { path: 'headers.signature-timestamp', message: expect.stringMatching(/^is 30\d s in the past; at most 300 s/) },
    ]);
    // 305 rather than 301: the server's clock may pass a second boundary after this one.
    const future = await t.clickToCall({
      token: apiToken,
      body,
      headers: timestamped(apiSecret, body, seconds() + 305),
    });
    expect(future.body.code).toBe('ctc:006');
    expect(future.body.details[0].message).toMatch(/^is 30\d s in the future/);
    const millis = Date.now();
    const inMs = await t.clickToCall({ token: apiToken, body, headers: timestamped(apiSecret, body, millis) });
    expect(inMs.body.details[0].message).toContain('it looks like milliseconds: send seconds');
  });

  it('a malformed timestamp is ctc:006; a signature that does not match says nothing of the clock', async () => {
    const { apiToken, apiSecret } = await agentWithCredentials();
    const body = JSON.stringify({ phone: nextPhone() });
    for (const bad of ['abc', '1.5', '-60', '0x10', `${seconds()}s`, '1'.repeat(16)]) {
      const response = await t.clickToCall({ token: apiToken, body, headers: timestamped(apiSecret, body, bad) });
      expect(response.body.code, bad).toBe('ctc:006');
      expect(response.body.details, bad).toEqual([
        { path: 'headers.signature-timestamp', message: 'must be the Unix time in whole seconds, e.g. 1767225600' },
      ]);
    }
    // The body-only signature sent with a timestamp, another secret, a stale timestamp and a wrong one.
    const now = seconds();
    for (const headers of [
      { 'signature-timestamp': String(now), signature: sign(apiSecret, body) },
      timestamped('another secret', body, now),
      timestamped('another secret', body, now - 3600),
    ]) {
      const response = await t.clickToCall({ token: apiToken, body, headers });
      expect(response.body.code).toBe('ctc:006');
      expect(response.body.details).toBeUndefined();
    }
    // Signed with one timestamp, sent with another.
    const moved = { ...timestamped(apiSecret, body, now), 'signature-timestamp': String(now - 1) };
    expect((await t.clickToCall({ token: apiToken, body, headers: moved })).body.code).toBe('ctc:006');
  });

  it('requireSignatureTimestamp: without the header is ctc:001 (Missing headers); with it, accepted', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ requireSignatureTimestamp: true });
    expect(agent.requireSignatureTimestamp).toBe(true);
    const bodyOnly = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(bodyOnly.status).toBe(400);
    expect(bodyOnly.body).toMatchObject({ code: 'ctc:001', message: 'Missing headers' });
    expect(bodyOnly.body.details).toEqual([
      { path: 'headers.signature-timestamp', message: expect.stringContaining('is required by this agent') },
    ]);
    const body = JSON.stringify({ phone: nextPhone() });
    const empty = await t.clickToCall({
      token: apiToken,
      body,
      headers: { 'signature-timestamp': '', signature: sign(apiSecret, body) },
    });
    expect(empty.body.code).toBe('ctc:001');
    const stamped = await t.clickToCall({ token: apiToken, body, headers: timestamped(apiSecret, body, seconds()) });
    expect(stamped.status).toBe(200);
    expect(await callsOf(agent.id)).toHaveLength(1);
  });

  it('turning requireSignatureTimestamp on takes effect at once, though the agent was cached', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials();
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } })).status).toBe(
      200,
    );
    await t.request('PATCH', `/v1/agents/${agent.id}`, {
      headers: org.auth,
      body: { requireSignatureTimestamp: true, allowedCountries: ['GB'] },
    });
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } })).body.code).toBe(
      'ctc:001',
    );
    const body = JSON.stringify({ phone: nextPhone() });
    const stamped = await t.clickToCall({ token: apiToken, body, headers: timestamped(apiSecret, body, seconds()) });
    expect(stamped.body.details?.[0].message).toBe(
      'is a number of US; this agent calls only GB (its allowedCountries)',
    );
  });

  it('a request repeated within the window places a second call, unless it carries an Idempotency-Key', async () => {
    const { agent, apiToken, apiSecret } = await agentWithCredentials({ requireSignatureTimestamp: true });
    const body = JSON.stringify({ phone: nextPhone() });
    const headers = timestamped(apiSecret, body, seconds());
    const first = await t.clickToCall({ token: apiToken, body, headers });
    expect(first.status).toBe(200);
    await t.waitForCall(org, first.body.callId);
    const replayed = await t.clickToCall({ token: apiToken, body, headers });
    expect(replayed.status).toBe(200);
    expect(replayed.body.callId).not.toBe(first.body.callId);
    expect(await callsOf(agent.id)).toHaveLength(2);

    const keyed = JSON.stringify({ phone: nextPhone() });
    const withKey = timestamped(apiSecret, keyed, seconds(), { 'idempotency-key': 'lead-42' });
    const once = await t.clickToCall({ token: apiToken, body: keyed, headers: withKey });
    await t.waitForCall(org, once.body.callId);
    const again = await t.clickToCall({ token: apiToken, body: keyed, headers: withKey });
    expect(again.status).toBe(200);
    expect(again.body.callId).toBe(once.body.callId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // A retry signed anew, with a later timestamp, is the same request: the key still answers it.
    const resigned = timestamped(apiSecret, keyed, seconds() + 1, { 'idempotency-key': 'lead-42' });
    expect((await t.clickToCall({ token: apiToken, body: keyed, headers: resigned })).body.callId).toBe(
      once.body.callId,
    );
    expect(await callsOf(agent.id)).toHaveLength(3);
  });

  it('with disableSignatureVerification nothing of it applies', async () => {
    const { apiToken } = await agentWithCredentials({
      disableSignatureVerification: true,
      requireSignatureTimestamp: true,
    });
    const stale = await t.clickToCall({
      token: apiToken,
      body: { phone: nextPhone() },
      headers: { 'signature-timestamp': 'yesterday', signature: 'nonsense' },
    });
    expect(stale.status).toBe(200);
    expect((await t.clickToCall({ token: apiToken, body: { phone: nextPhone() } })).status).toBe(200);
  });

  it("the dashboard's test call works when the agent requires the timestamp, and refuses a premium number", async () => {
    const { agent } = await agentWithCredentials({ requireSignatureTimestamp: true });
    const placed = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: nextPhone() },
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const premium = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: '+19005550123' },
    });
    expect(premium.body).toMatchObject({ code: 'ctc:009', details: [{ path: '$.phone' }] });
  });
});
