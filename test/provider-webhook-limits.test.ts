import { connect } from 'node:net';
import Retell from 'retell-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_BODY_LIMIT } from '../src/providers/provider-webhooks.routes.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { rawRequest } from './helpers/raw-http.js';
import { vapiEndOfCallReport } from './helpers/vapi-report.js';
import { until } from './helpers/wait.js';

// Provider webhooks authenticate on their headers before reading a body, and read no more than a
// real report needs (decision 0029). Through real sockets: a refusal must arrive while most of the
// body is still unsent.

let t: TestApp;
let org: Org;
let vapi: FakeVapi;
let credentialId: string;
let creds: { apiToken: string; apiSecret: string };
const SECRET = 'vapi_webhook_secret_of_the_limits_test';
const NINE_AND_A_HALF_MB = Math.round(9.5 * 1024 * 1024);

beforeAll(async () => {
  vapi = await startFakeVapi({ phoneNumbers: ['+14155550100'] });
  t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
  org = await t.signup();
  const credential = await t.request('POST', '/v1/provider-credentials', {
    headers: org.auth,
    body: { provider: 'vapi', name: 'Vapi', apiKey: vapi.apiKey, webhookSecret: SECRET, baseUrl: vapi.url },
  });
  expect(credential.status).toBe(201);
  credentialId = credential.body.id;
  const agent = await t.request('POST', '/v1/agents', {
    headers: org.auth,
    body: { name: 'Vapi seller', provider: 'vapi', providerCredentialId: credentialId, fromNumber: '+14155550100' },
  });
  await until('the agent published', async () => {
    const a = (await t.request('GET', `/v1/agents/${agent.body.id}`, { headers: org.auth })).body;
    return a.providerSync.state === 'synced' ? a : undefined;
  });
  creds = await t.credentials(org, agent.body.id);
});
afterAll(async () => {
  await t.close();
  await vapi.close();
});

/**
 * Sends the request line, `headers` and the first 64 KiB of a body of `length` bytes, then waits for
 * the answer without sending more: a server that reads the body before refusing never answers
 * (the test then times out). Returns the status line; the rest of the body is never sent.
 */
function answerBeforeTheBody(path: string, headers: Record<string, string>, length: number): Promise<string> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const line = received.indexOf('\r\n');
      if (line >= 0) {
        resolve(received.slice(0, line));
        socket.destroy();
      }
    });
    socket.on('error', (error) => (received ? undefined : reject(error)));
    const head = Object.entries({ host: `${hostname}:${port}`, 'content-type': 'application/json', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}content-length: ${length}\r\n\r\n{"message":${' '.repeat(65_536)}`);
  });
}

describe('provider webhooks, before their bodies', () => {
  it('refuse a 9.5 MB Vapi body without the right secret before reading it', async () => {
    expect(await answerBeforeTheBody('/providers/vapi/webhook', {}, NINE_AND_A_HALF_MB)).toBe(
      'HTTP/1.1 401 Unauthorized',
    );
    expect(
      await answerBeforeTheBody('/providers/vapi/webhook', { 'x-vapi-secret': `${SECRET}-not` }, NINE_AND_A_HALF_MB),
    ).toBe('HTTP/1.1 401 Unauthorized');
  });

  it('refuse a 9.5 MB Retell body without a fresh, well-formed signature before reading it', async () => {
    for (const path of ['/providers/retell/webhook', '/providers/retell/tools/tool_1']) {
      expect(await answerBeforeTheBody(path, {}, NINE_AND_A_HALF_MB)).toBe('HTTP/1.1 401 Unauthorized');
      const stale = `v=${Date.now() - 10 * 60_000},d=${'a'.repeat(64)}`;
      expect(await answerBeforeTheBody(path, { 'x-retell-signature': stale }, NINE_AND_A_HALF_MB)).toBe(
        'HTTP/1.1 401 Unauthorized',
      );
    }
  });

  it('refuse a 9.5 MB Retell body whose URL names no Retell credential before reading it', async () => {
    const signature = await Retell.sign('{}', 'any key');
    for (const id of ['pcr_0000000000000000000000000a', credentialId /* a Vapi one */]) {
      for (const path of ['/providers/retell/webhook', '/providers/retell/tools/tool_1']) {
        expect(
          await answerBeforeTheBody(
            `${path}?credential=${id}`,
            { 'x-retell-signature': signature },
            NINE_AND_A_HALF_MB,
          ),
        ).toBe('HTTP/1.1 401 Unauthorized');
      }
    }
  });

  it('check a Retell body’s signature on its bytes before parsing them, when the URL names the credential', async () => {
    const key = 'key_of_the_limits_test_retell_account';
    const credential = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'retell', name: 'Retell limits', apiKey: key },
    });
    expect(credential.status).toBe(201);
    const path = `/providers/retell/webhook?credential=${credential.body.id}`;
    // Valid JSON, 1 MiB deep, that would take a while to parse: refused on its bytes.
    const depth = 512 * 1024;
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const send = async (text: string, signingKey: string) =>
      t.request('POST', path, {
        headers: { 'content-type': 'application/json', 'x-retell-signature': await Retell.sign(text, signingKey) },
        body: text,
      });
    const forged = await send(nested, 'another key');
    expect([forged.status, forged.body]).toEqual([401, { error: 'x-retell-signature does not verify' }]);
    // Signed with the credential's key, the same bytes are parsed, and name no call.
    expect((await send(nested, key)).status).toBe(404);
    // Over the limit: 413 from the length, before the bytes are read.
    expect(
      await answerBeforeTheBody(path, { 'x-retell-signature': await Retell.sign('{}', key) }, NINE_AND_A_HALF_MB),
    ).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it('answer 413 to an authenticated body over the limit, from its length, before reading it', async () => {
    expect(await answerBeforeTheBody('/providers/vapi/webhook', { 'x-vapi-secret': SECRET }, NINE_AND_A_HALF_MB)).toBe(
      'HTTP/1.1 413 Payload Too Large',
    );
    const signature = await Retell.sign('{}', 'any key');
    expect(
      await answerBeforeTheBody('/providers/retell/webhook', { 'x-retell-signature': signature }, NINE_AND_A_HALF_MB),
    ).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it('answer 413 to a chunked body once it passes the limit', async () => {
    const response = await rawRequest(t.url, {
      method: 'POST',
      path: '/providers/vapi/webhook',
      headers: [
        ['x-vapi-secret', SECRET],
        ['content-type', 'application/json'],
      ],
      body: Buffer.alloc(WEBHOOK_BODY_LIMIT + 1024, 0x20),
      chunked: true,
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ error: `The body is larger than ${WEBHOOK_BODY_LIMIT} bytes` });
  });

  it('take a one-hour call’s end-of-call report (1.7 MB) and end the call with it', async () => {
    const answer = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone(), variables: {} },
    });
    expect(answer.status).toBe(200);
    const callId = answer.body.callId;
    const report = vapiEndOfCallReport(60, {
      id: 'vapi-hour',
      assistantOverrides: { metadata: { switchboardCallId: callId } },
    });
    const body = JSON.stringify(report);
    expect(body.length).toBeGreaterThan(1.5 * 1024 * 1024);
    expect(body.length).toBeLessThan(WEBHOOK_BODY_LIMIT / 2);
    const sent = await t.request('POST', '/providers/vapi/webhook', { headers: { 'x-vapi-secret': SECRET }, body });
    expect(sent.status).toBe(200);
    const ended = await until('the call ended', async () => {
      const call = (await t.request('GET', `/v1/calls/${callId}`, { headers: org.auth })).body;
      return call.status === 'ended' ? call : undefined;
    });
    expect(ended).toMatchObject({ outcome: 'SOLD', durationSeconds: 3600 });
  });
});

describe('Vapi webhook secrets', () => {
  it('are at least 24 characters (422 on create and update), the mask and null still accepted', async () => {
    const short = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Short', apiKey: vapi.apiKey, webhookSecret: 'x'.repeat(23), baseUrl: vapi.url },
    });
    expect(short.status).toBe(422);
    expect(short.body.details).toEqual([
      { path: '$.webhookSecret', message: 'must be at least 24 characters (leave it out to have one generated)' },
    ]);
    const patched = await t.request('PATCH', `/v1/provider-credentials/${credentialId}`, {
      headers: org.auth,
      body: { webhookSecret: 'too-short' },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.details[0].path).toBe('$.webhookSecret');
    // Nothing changed: the old secret still opens the webhook.
    expect(await answerBeforeTheBody('/providers/vapi/webhook', { 'x-vapi-secret': SECRET }, NINE_AND_A_HALF_MB)).toBe(
      'HTTP/1.1 413 Payload Too Large',
    );
    const masked = await t.request('PATCH', `/v1/provider-credentials/${credentialId}`, {
      headers: org.auth,
      body: { webhookSecret: '••••••', name: 'Vapi' },
    });
    expect(masked.status).toBe(200);
    // Retell signs with its API key: its webhookSecret has no minimum.
    const retell = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'retell', name: 'Retell', apiKey: 'key_retell', webhookSecret: 'short' },
    });
    expect(retell.status).toBe(201);
  });

  it('are generated long enough when none is given, and open the webhook at once', async () => {
    const created = await t.request('POST', '/v1/provider-credentials', {
      headers: org.auth,
      body: { provider: 'vapi', name: 'Generated', apiKey: vapi.apiKey, baseUrl: vapi.url },
    });
    expect(created.status).toBe(201);
    const agent = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'Generated', provider: 'vapi', providerCredentialId: created.body.id, fromNumber: '+14155550100' },
    });
    const synced = await until('the agent published', async () => {
      const a = (await t.request('GET', `/v1/agents/${agent.body.id}`, { headers: org.auth })).body;
      return a.providerSync.state === 'synced' ? a : undefined;
    });
    const secret = vapi.assistants.get(synced.providerSync.providerAgentId)?.server?.headers?.['x-vapi-secret'];
    expect(typeof secret).toBe('string');
    expect(secret.length).toBeGreaterThanOrEqual(24);
    // A secret made after the last look at the set is found: the webhook gets past the headers.
    expect(await answerBeforeTheBody('/providers/vapi/webhook', { 'x-vapi-secret': secret }, NINE_AND_A_HALF_MB)).toBe(
      'HTTP/1.1 413 Payload Too Large',
    );
  });
});
