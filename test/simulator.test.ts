import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

async function placeCall(agentBody: Record<string, unknown>, variables: Record<string, string> = {}) {
  const agent = await t.createAgent(org, agentBody);
  const creds = await t.credentials(org, agent.id);
  const phone = nextPhone();
  const response = await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone, variables } });
  return { agent, creds, phone, response };
}

describe('the simulator provider', () => {
  it('with no scenario greets, invokes nothing and ends COMPLETED', async () => {
    const { agent, phone, response } = await placeCall(
      { firstMessage: 'Hello {{name}}, this is Sam.', fromNumber: '+14155550100' },
      { name: 'Ada' },
    );
    expect(response.status).toBe(200);
    const call = await t.waitForCall(org, response.body.callId);
    expect(call).toMatchObject({
      agentId: agent.id,
      provider: 'simulator',
      providerCallId: expect.stringMatching(/^sim_/),
      from: '+14155550100',
      to: phone,
      status: 'ended',
      outcome: 'COMPLETED',
      endedReason: 'agent_hangup',
      collectedData: {},
      toolInvocations: [],
      durationSeconds: 0,
    });
    expect(call.transcript).toEqual([{ role: 'agent', text: 'Hello Ada, this is Sam.', at: expect.any(String) }]);
    expect(Date.parse(call.startedAt)).toBeLessThanOrEqual(Date.parse(call.answeredAt));
    expect(Date.parse(call.answeredAt)).toBeLessThanOrEqual(Date.parse(call.endedAt));
  });

  it('plays its turns with variables filled, and ends with the scenario outcome and duration', async () => {
    const { response } = await placeCall(
      {
        firstMessage: 'Hi {{name}}!',
        simulator: {
          turns: [
            { role: 'user', text: 'Hi, who is this?' },
            { role: 'agent', text: 'Sam from {{company}}. Want the {{plan}} plan?' },
            { role: 'user', text: 'Yes, sign me up' },
          ],
          outcome: { status: 'SOLD', collectedData: { name: 'Ada', email: 'ada@example.com', address: '1 Main St' } },
          durationSeconds: 42,
        },
      },
      { name: 'Ada', company: 'Acme', plan: 'Pro' },
    );
    const call = await t.waitForCall(org, response.body.callId);
    expect(call.transcript.map((turn: { role: string; text: string }) => [turn.role, turn.text])).toEqual([
      ['agent', 'Hi Ada!'],
      ['user', 'Hi, who is this?'],
      ['agent', 'Sam from Acme. Want the Pro plan?'],
      ['user', 'Yes, sign me up'],
    ]);
    expect(call).toMatchObject({
      outcome: 'SOLD',
      durationSeconds: 42,
      collectedData: { name: 'Ada', email: 'ada@example.com', address: '1 Main St' },
    });
  });

  it("ends with the scenario's summary, filled like the turns (variables and tool results); none without one", async () => {
    const { response } = await placeCall(
      {
        simulator: {
          turns: [{ role: 'user', text: 'Gold, please' }],
          outcome: { status: 'SOLD', summary: '{{name}} ({{missing}}) chose gold.' },
        },
      },
      { name: 'Ada' },
    );
    const call = await t.waitForCall(org, response.body.callId);
    expect(call).toMatchObject({
      direction: 'outbound',
      summary: 'Ada () chose gold.',
      recordingUrl: null,
      warnings: [],
    });
    const plain = await placeCall({ simulator: { outcome: { status: 'SOLD' } } });
    expect((await t.waitForCall(org, plain.response.body.callId)).summary).toBeNull();
  });

  it('fills a placeholder named like an Object.prototype member only from the variables sent', async () => {
    const { response } = await placeCall({ firstMessage: 'A{{constructor}}B{{toString}}C{{__proto__}}D' });
    const call = await t.waitForCall(org, response.body.callId);
    expect(call.transcript[0].text).toBe('ABCD');
  });

  it('does not expand placeholders inside variable values', async () => {
    const { response } = await placeCall(
      { firstMessage: 'Hi {{name}} from {{company}}' },
      { name: '{{company}}', company: 'Acme' },
    );
    const call = await t.waitForCall(org, response.body.callId);
    expect(call.transcript[0].text).toBe('Hi {{company}} from Acme');
  });

  it.each([
    ['no_answer', 'NO_ANSWER'],
    ['busy', 'BUSY'],
    ['voicemail', 'VOICEMAIL'],
  ])('answer "%s" ends the call with outcome %s and runs no turns', async (answer, outcome) => {
    const { response } = await placeCall({
      firstMessage: 'Hi',
      simulator: { answer, turns: [{ role: 'user', text: 'never said' }] },
    });
    expect(response.status).toBe(200);
    const call = await t.waitForCall(org, response.body.callId);
    expect(call).toMatchObject({ status: 'ended', outcome, endedReason: answer, transcript: [], answeredAt: null });
  });

  it('answer "fail_to_start" fails the start itself (ctc:008) and leaves no call active', async () => {
    const { agent, response } = await placeCall({ simulator: { answer: 'fail_to_start' } });
    expect(response.body.code).toBe('ctc:008');
    const active = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(active.body.data.every((c: { status: string }) => c.status === 'ended')).toBe(true);
  });

  it('stays in progress for delayMs, with the transcript growing live, then ends', async () => {
    const { response } = await placeCall({
      firstMessage: 'Hello',
      simulator: {
        delayMs: 1500,
        turns: [
          { role: 'user', text: 'one' },
          { role: 'agent', text: 'two' },
        ],
      },
    });
    const live = await t.waitForCall(
      org,
      response.body.callId,
      (c) => c.status === 'in_progress' && c.transcript.length >= 1,
    );
    expect(live.endedAt).toBeNull();
    // Written with the call's first status event, which came before the end.
    expect(live.providerCallId).toMatch(/^sim_/);
    const seen = new Set<string>([live.status]);
    const ended = await t.waitForCall(org, response.body.callId, (c) => {
      seen.add(c.status);
      return c.status === 'ended';
    });
    expect(ended.transcript.map((turn: { text: string }) => turn.text)).toEqual(['Hello', 'one', 'two']);
    expect(Date.parse(ended.endedAt) - Date.parse(ended.answeredAt)).toBeGreaterThanOrEqual(1400);
    expect(ended.durationSeconds).toBe(2);
  });
});

describe('the duration sweep', () => {
  it('closes a call open past maxCallDurationSeconds as FAILED / timeout and frees its number', async () => {
    const { creds, phone, response } = await placeCall({ maxCallDurationSeconds: 1, simulator: { delayMs: 60_000 } });
    expect(response.status).toBe(200);
    const busy = await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone } });
    expect(busy.body.code).toBe('ctc:007');
    const call = await t.waitForCall(org, response.body.callId);
    expect(call).toMatchObject({
      status: 'ended',
      outcome: 'FAILED',
      endedReason: 'timeout',
      providerCallId: expect.stringMatching(/^sim_/),
    });
    // The time it was answered for, in whole seconds (the limit counts from the start, so this can be 0).
    expect(call.durationSeconds).toBe(Math.floor((Date.parse(call.endedAt) - Date.parse(call.answeredAt)) / 1000));
    expect(Date.parse(call.endedAt) - Date.parse(call.startedAt)).toBeGreaterThanOrEqual(1000);
    const again = await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone } });
    expect(again.status).toBe(200);
  });
});
