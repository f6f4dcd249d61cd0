import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The two actions the dashboard adds to the API (decision 0022): a test call placed with the
// session, and "Send test" for a webhook integration.
let t: TestApp;
let org: Org;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('POST /v1/agents/:id/test-call', () => {
  it('places a click-to-call signed with the agent’s own credentials; the call runs as any other', async () => {
    const agent = await t.createAgent(org, {
      firstMessage: 'Hello {{name}}',
      simulator: { turns: [{ role: 'user', text: 'Hi' }], outcome: { status: 'SOLD' } },
    });
    const to = nextPhone();
    const placed = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: to, variables: { name: 'Ada' } },
    });
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({ success: true, callId: expect.any(String), status: 'queued' });
    const call = await t.waitForCall(org, placed.body.callId);
    expect(call).toMatchObject({ to, outcome: 'SOLD', variables: { name: 'Ada' } });
    expect(call.transcript[0]).toMatchObject({ role: 'agent', text: 'Hello Ada' });
  });

  it('answers as click-to-call does: ctc:009 by field for a bad number, ctc:007 while a call to it is live, ctc:004 when disabled', async () => {
    const agent = await t.createAgent(org, { simulator: { delayMs: 3000 } });
    const bad = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: '555-0123' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'ctc:009' });
    expect(bad.body.details.map((d: { path: string }) => d.path)).toContain('$.phone');

    const to = nextPhone();
    const first = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: to },
    });
    expect(first.status).toBe(200);
    const second = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: to },
    });
    expect(second.status).toBe(400);
    expect(second.body.code).toBe('ctc:007');

    await t.request('PATCH', `/v1/agents/${agent.id}`, { headers: org.auth, body: { enabled: false } });
    const disabled = await t.request('POST', `/v1/agents/${agent.id}/test-call`, {
      headers: org.auth,
      body: { phone: nextPhone() },
    });
    expect(disabled.body.code).toBe('ctc:004');
  });

  it('refuses agents without credentials (409), unknown agents (404), other organizations’ agents (404) and bad shapes (422)', async () => {
    const inbound = await t.createAgent(org, { type: 'inbound' });
    const before = (await t.request('GET', '/v1/calls?limit=100', { headers: org.auth })).body.data.length;
    const conflict = await t.request('POST', `/v1/agents/${inbound.id}/test-call`, {
      headers: org.auth,
      body: { phone: nextPhone() },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('api:conflict');
    expect(
      (await t.request('POST', '/v1/agents/agt_nope/test-call', { headers: org.auth, body: { phone: nextPhone() } }))
        .status,
    ).toBe(404);
    const other = await t.signup();
    const theirs = await t.createAgent(other);
    expect(
      (
        await t.request('POST', `/v1/agents/${theirs.id}/test-call`, {
          headers: org.auth,
          body: { phone: nextPhone() },
        })
      ).status,
    ).toBe(404);
    const shape = await t.request('POST', `/v1/agents/${inbound.id}/test-call`, {
      headers: org.auth,
      body: { phone: 42, variables: { name: 1 } },
    });
    expect(shape.status).toBe(422);
    expect(shape.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['$.phone', '$.variables.name']);
    expect(
      (await t.request('POST', `/v1/agents/${inbound.id}/test-call`, { body: { phone: nextPhone() } })).status,
    ).toBe(401);
    expect((await t.request('GET', '/v1/calls?limit=100', { headers: org.auth })).body.data.length).toBe(before);
  });
});

describe('POST /v1/integrations/:id/test', () => {
  it('sends a sample call.completed, signed and authorized as a real delivery, and shows what was sent and answered', async () => {
    const agent = await t.createAgent(org, { name: 'Webhook agent' });
    const integration = (
      await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: org.auth,
        body: { url: `${receiver.url}/hooks?x=1`, authorization: 'tok-123' },
      })
    ).body;
    receiver.answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('got it');
    });
    const sent = receiver.requests.length;
    const answer = await t.request('POST', `/v1/integrations/${integration.id}/test`, { headers: org.auth });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      delivered: true,
      request: { method: 'POST', url: `${receiver.url}/hooks?x=1` },
      attempt: { status: 200, error: null, responseExcerpt: 'got it', latencyMs: expect.any(Number) },
    });
    expect(receiver.requests).toHaveLength(sent + 1);
    const received = receiver.requests.at(-1)!;
    expect(received.url).toBe('/hooks?x=1');
    expect(received.body).toBe(answer.body.request.body);
    expect(JSON.parse(received.body)).toMatchObject({
      event: 'call.completed',
      test: true,
      agentId: agent.id,
      agent: 'Webhook agent',
      status: 'COMPLETED',
    });
    expect(received.headers.authorization).toBe('Bearer tok-123');
    expect(answer.body.request.headers.authorization).toBe('Bearer ••••••');
    expect(received.headers['user-agent']).toBe('Switchboard-Webhooks/1');
    expect(received.headers['x-webhook-signature']).toBe(
      createHmac('sha256', integration.signingSecret).update(received.body).digest('hex'),
    );
    expect(() =>
      new Webhook(integration.signingSecret).verify(received.body, {
        'webhook-id': String(received.headers['webhook-id']),
        'webhook-timestamp': String(received.headers['webhook-timestamp']),
        'webhook-signature': String(received.headers['webhook-signature']),
      }),
    ).not.toThrow();
    // Nothing is recorded: the deliveries log holds real calls only.
    const log = await t.request('GET', `/v1/deliveries?integrationId=${integration.id}`, { headers: org.auth });
    expect(log.body.data).toEqual([]);
  });

  it('reports a refusal without touching the integration: a 410 does not disable it, a disabled one can still be tested', async () => {
    const agent = await t.createAgent(org);
    const integration = (
      await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: org.auth,
        body: { url: `${receiver.url}/gone`, enabled: false, signing: false },
      })
    ).body;
    receiver.answer((_request, response) => {
      response.writeHead(410);
      response.end('bye');
    });
    const answer = await t.request('POST', `/v1/integrations/${integration.id}/test`, { headers: org.auth });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      delivered: false,
      attempt: { status: 410, errorCode: 'webhook:gone', responseExcerpt: 'bye' },
    });
    expect(answer.body.request.headers['x-webhook-signature']).toBeUndefined();
    expect(answer.body.request.headers['webhook-id']).toMatch(/^msg_/);
    const after = await t.request('GET', `/v1/integrations/${integration.id}`, { headers: org.auth });
    expect(after.body).toMatchObject({ enabled: false, disabledReason: null, failingSince: null });

    await t.request('PATCH', `/v1/integrations/${integration.id}`, {
      headers: org.auth,
      body: { url: 'http://127.0.0.1:1/closed' },
    });
    const refused = await t.request('POST', `/v1/integrations/${integration.id}/test`, { headers: org.auth });
    expect(refused.body).toMatchObject({ delivered: false, attempt: { status: null, errorCode: 'webhook:connect' } });
  });

  it('answers 404 for another organization’s integration and 401 without credentials', async () => {
    const agent = await t.createAgent(org);
    const integration = (
      await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: org.auth,
        body: { url: `${receiver.url}/x` },
      })
    ).body;
    const other = await t.signup();
    const sent = receiver.requests.length;
    expect((await t.request('POST', `/v1/integrations/${integration.id}/test`, { headers: other.auth })).status).toBe(
      404,
    );
    expect((await t.request('POST', `/v1/integrations/${integration.id}/test`)).status).toBe(401);
    expect(receiver.requests).toHaveLength(sent);
  });
});
