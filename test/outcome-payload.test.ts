import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcomePayload, MAX_PAYLOAD_BYTES } from '../src/integrations/outcome-payload.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// The payload is built from calls as GET /v1/calls/:id shows them once they have ended: each kind
// of ending a real call can have is produced through the public API, then turned into a payload.
let t: TestApp;
let org: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

async function endedCall(simulator: Record<string, unknown> | null, extra: Record<string, unknown> = {}) {
  const agent = await t.createAgent(org, { name: 'Sales agent', firstMessage: 'Hi {{name}}', simulator, ...extra });
  const creds = await t.credentials(org, agent.id);
  const response = await t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables: { name: 'Ada' } },
  });
  return { agent, response, call: response.body.callId ? await t.waitForCall(org, response.body.callId) : undefined };
}

describe('the call-outcome payload', () => {
  it('carries the seed and contract fields of an answered call, in the contract order', async () => {
    const { call } = await endedCall(
      {
        turns: [{ role: 'user', text: 'Yes, sign me up — Grüße' }],
        outcome: { status: 'SOLD', collectedData: { email: 'ada@example.com' } },
        durationSeconds: 42,
      },
      { fromNumber: '+14155550100' },
    );
    const { body, truncated } = buildOutcomePayload(call, 'Sales agent');
    expect(truncated).toBe(false);
    const payload = JSON.parse(body.toString('utf8'));
    expect(Object.keys(payload)).toEqual([
      'event',
      'callId',
      'agentId',
      'agent',
      'from',
      'to',
      'status',
      'transcript',
      'collectedData',
      'variables',
      'startedAt',
      'endedAt',
      'durationSeconds',
      'endedReason',
      // Issue 17's, after the contract's (decision 0037).
      'direction',
      'summary',
      'recordingUrl',
      'warnings',
      // Issue 19's: null for a call no campaign placed.
      'campaignId',
      'contactId',
    ]);
    expect(payload).toMatchObject({
      event: 'call.completed',
      callId: call.id,
      agent: 'Sales agent',
      from: '+14155550100',
      to: call.to,
      status: 'SOLD',
      transcript: [
        { role: 'agent', text: 'Hi Ada', at: expect.any(String) },
        { role: 'user', text: 'Yes, sign me up — Grüße', at: expect.any(String) },
      ],
      collectedData: { email: 'ada@example.com' },
      variables: { name: 'Ada' },
      durationSeconds: 42,
      endedReason: 'agent_hangup',
      direction: 'outbound',
      summary: null,
      recordingUrl: null,
      warnings: [],
      campaignId: null,
      contactId: null,
    });
    expect(buildOutcomePayload(call, 'Sales agent').body.equals(body)).toBe(true);
  });

  it("carries the call's direction, summary, recording and warnings, and defaults for a call that has none", async () => {
    const { call } = await endedCall({ outcome: { status: 'SOLD', summary: 'Ada said yes.' } });
    const payload = JSON.parse(buildOutcomePayload(call, 'Sales agent').body.toString());
    expect(payload).toMatchObject({
      direction: 'outbound',
      summary: 'Ada said yes.',
      recordingUrl: null,
      warnings: [],
    });
    const recorded = {
      ...call,
      direction: 'inbound',
      recordingUrl: 'https://r.example/a.wav',
      warnings: ['collectedData.age: expected a number, got "forty"'],
    };
    expect(JSON.parse(buildOutcomePayload(recorded, 'Sales agent').body.toString())).toMatchObject({
      direction: 'inbound',
      recordingUrl: 'https://r.example/a.wav',
      warnings: ['collectedData.age: expected a number, got "forty"'],
    });
    // A call read without them (a caller that predates them) still has every field.
    const { direction: _d, summary: _s, recordingUrl: _r, warnings: _w, ...bare } = call;
    expect(JSON.parse(buildOutcomePayload(bare, 'Sales agent').body.toString())).toMatchObject({
      direction: 'outbound',
      summary: null,
      recordingUrl: null,
      warnings: [],
    });
  });

  it.each([
    ['no_answer', 'NO_ANSWER', 'no_answer'],
    ['busy', 'BUSY', 'busy'],
    ['voicemail', 'VOICEMAIL', 'voicemail'],
  ])('an unanswered call (%s) has status %s and endedReason %s', async (answer, status, reason) => {
    const { call } = await endedCall({ answer });
    const payload = JSON.parse(buildOutcomePayload(call, 'Sales agent').body.toString());
    expect(payload).toMatchObject({ status, endedReason: reason, transcript: [], collectedData: {} });
  });

  it('a call that failed to start after it was accepted, and one closed by the duration sweep, are FAILED', async () => {
    const failed = await endedCall({ answer: 'fail_to_start' });
    expect(failed.response.body.code).toBe('ctc:008');
    const record = await t.waitForCall(org, failed.response.body.callId);
    expect(JSON.parse(buildOutcomePayload(record, 'Sales agent').body.toString())).toMatchObject({
      status: 'FAILED',
      endedReason: 'failed_to_start',
    });
    const swept = await endedCall({ delayMs: 600_000 }, { maxCallDurationSeconds: 1 });
    expect(JSON.parse(buildOutcomePayload(swept.call, 'Sales agent').body.toString())).toMatchObject({
      status: 'FAILED',
      endedReason: 'timeout',
    });
  });

  it('over 256 KiB, drops the oldest transcript turns first and says so', async () => {
    const { call } = await endedCall({ turns: [{ role: 'user', text: 'short' }] });
    const long = Array.from({ length: 400 }, (_, i) => ({
      role: 'user' as const,
      text: `${i} ${'x'.repeat(1000)}`,
      at: call.endedAt,
    }));
    const { body, truncated } = buildOutcomePayload({ ...call, transcript: long }, 'Sales agent');
    expect(truncated).toBe(true);
    expect(body.length).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const payload = JSON.parse(body.toString());
    expect(payload.truncated.transcriptTurnsRemoved).toBeGreaterThan(100);
    expect(payload.transcript.at(-1).text.startsWith('399 ')).toBe(true);
    expect(payload.transcript).toHaveLength(400 - payload.truncated.transcriptTurnsRemoved);
    expect(payload.truncated.collectedDataRemoved).toBe(false);
  });

  it('a simulator agent without a fromNumber calls from the simulated caller id, in its record and its delivered payload', async () => {
    const hook = await startReceiver();
    try {
      const { agent, call } = await endedCall({ outcome: { status: 'SOLD' } });
      expect(agent.fromNumber).toBeNull();
      // The caller id docs/interface.md#calls documents for such calls.
      expect(call.from).toBe('+15555550100');
      const listed = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
      expect(listed.body.data.map((c: { from: unknown }) => c.from)).toEqual(['+15555550100']);

      const added = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: org.auth,
        body: { url: `${hook.url}/outcome` },
      });
      expect(added.status).toBe(201);
      const creds = await t.credentials(org, agent.id);
      const answer = await t.clickToCall({
        token: creds.apiToken,
        secret: creds.apiSecret,
        body: { phone: nextPhone(), variables: { name: 'Ada' } },
      });
      expect(answer.status).toBe(200);
      const received = await until('the outcome webhook', () => hook.requests.find((r) => r.url === '/outcome'));
      expect(JSON.parse(received.body)).toMatchObject({ callId: answer.body.callId, from: '+15555550100' });
    } finally {
      await hook.close();
    }
  });
});
