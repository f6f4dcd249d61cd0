import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type ReceivedRequest, type Receiver, startReceiver } from './helpers/receiver.js';

let t: TestApp;
let org: Org;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startTestApp({ SWITCHBOARD_RETRY_SCHEDULE: '0.2,0.2,0.2' });
  org = await t.signup();
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(handler?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(handler);
  receivers.push(r);
  return r;
}

/** An agent on the simulator with an integration pointing at `url`. */
async function agentWithIntegration(url: string, agent: Record<string, unknown> = {}, integration: Record<string, unknown> = {}) {
  const created = await t.createAgent(org, agent);
  const hook = await t.request('POST', `/v1/agents/${created.id}/integrations`, {
    headers: org.auth,
    body: { url, ...integration },
  });
  expect(hook.status).toBe(201);
  const creds = await t.credentials(org, created.id);
  return { agentId: created.id as string, integration: hook.body, creds };
}

async function call(creds: { apiToken: string; apiSecret: string }, variables: Record<string, string> = { name: 'Ada' }) {
  const answer = await t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables },
  });
  expect(answer.status).toBe(200);
  return answer.body.callId as string;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const deliveriesOf = async (callId: string) =>
  (await t.request('GET', `/v1/deliveries?callId=${callId}`, { headers: org.auth })).body.data as any[];

const settled = (callId: string, state = 'delivered') =>
  waitFor(`a ${state} delivery of ${callId}`, async () => {
    const list = await deliveriesOf(callId);
    return list.length > 0 && list.every((d) => d.state === state) ? list : undefined;
  });

describe('call-outcome webhooks', () => {
  it('delivers the outcome, signed so that the hex HMAC and Standard Webhooks both verify, non-ASCII text included', async () => {
    const hook = await receiver();
    const { integration, creds, agentId } = await agentWithIntegration(
      `${hook.url}/hooks/calls`,
      {
        name: 'Ventes — Zürich',
        firstMessage: 'Grüße, {{name}}! 東京からです 🎉',
        simulator: { turns: [{ role: 'user', text: 'Oui, très bien — ça marche ✓' }], outcome: { status: 'SOLD' } },
      },
      { authorization: 'tok_live_123' },
    );
    const callId = await call(creds, { name: 'Zoë' });
    const [delivery] = await settled(callId);
    const received = hook.requests.find((r) => r.url === '/hooks/calls') as ReceivedRequest;
    expect(received.method).toBe('POST');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['user-agent']).toBe('Switchboard-Webhooks/1');
    expect(received.headers.authorization).toBe('Bearer tok_live_123');
    const body = JSON.parse(received.body);
    expect(body).toMatchObject({
      event: 'call.completed',
      callId,
      agentId,
      agent: 'Ventes — Zürich',
      status: 'SOLD',
      variables: { name: 'Zoë' },
    });
    expect(body.transcript.map((turn: { text: string }) => turn.text)).toContain('Oui, très bien — ça marche ✓');
    expect(received.body).toContain('東京からです 🎉');

    // The hex signature is over the exact bytes received.
    const bytes = Buffer.from(received.body, 'utf8');
    expect(received.headers['x-webhook-signature']).toBe(
      createHmac('sha256', integration.signingSecret).update(bytes).digest('hex'),
    );
    // Standard Webhooks, checked by the library itself.
    const verified = new Webhook(integration.signingSecret).verify(received.body, {
      'webhook-id': received.headers['webhook-id'] as string,
      'webhook-timestamp': received.headers['webhook-timestamp'] as string,
      'webhook-signature': received.headers['webhook-signature'] as string,
    });
    expect(verified).toEqual(body);

    expect(delivery).toMatchObject({
      integrationId: integration.id,
      callId,
      webhookId: received.headers['webhook-id'],
      state: 'delivered',
      nextAttemptAt: null,
      attempts: [{ status: 200, error: null, responseExcerpt: '{"ok":true}' }],
    });
    const shown = await t.request('GET', `/v1/calls/${callId}`, { headers: org.auth });
    expect(shown.body.deliveries).toEqual([delivery]);
  });
});
