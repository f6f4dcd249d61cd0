import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { hmacSha256Hex } from '../src/lib/crypto.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

// The simulator scenario's `answers`: the agent's n-th call to a number is answered as answers[n - 1].

const masterKey = randomBytes(32);
let t: TestApp;
let org: Org;

beforeAll(async () => {
  t = await startTestApp({}, masterKey);
  org = await t.signup();
});
afterAll(() => t.close());

async function callAgent(agent: { apiToken: string; apiSecret: string }, phone: string) {
  const response = await t.clickToCall({ token: agent.apiToken, secret: agent.apiSecret, body: { phone } });
  if (response.status !== 200) return { status: response.status, code: response.body.code, call: undefined };
  return { status: 200, code: undefined, call: await t.waitForCall(org, response.body.callId) };
}

const summary = (call: any) => [call.outcome, call.endedReason];

describe("the simulator scenario's answers", () => {
  it('answers the first call to a number as answers[0] and the second as answers[1]', async () => {
    const agent = await t.agentWithCredentials(org, { simulator: { answers: ['no_answer', 'answered'] } });
    expect(agent.agent.simulator).toEqual({ answers: ['no_answer', 'answered'] });
    const phone = nextPhone();
    const first = await callAgent(agent, phone);
    const second = await callAgent(agent, phone);
    expect(summary(first.call)).toEqual(['NO_ANSWER', 'no_answer']);
    expect(summary(second.call)).toEqual(['COMPLETED', 'agent_hangup']);
    expect(second.call.answeredAt).not.toBeNull();
    expect(first.call.answeredAt).toBeNull();
  });

  it('repeats the last answer once the list is used up, and counts each number on its own', async () => {
    const agent = await t.agentWithCredentials(org, { simulator: { answers: ['busy', 'voicemail'] } });
    const phone = nextPhone();
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await callAgent(agent, phone)).call.outcome);
    expect(outcomes).toEqual(['BUSY', 'VOICEMAIL', 'VOICEMAIL', 'VOICEMAIL']);
    // Another number starts at answers[0].
    expect((await callAgent(agent, nextPhone())).call.outcome).toBe('BUSY');
  });

  it("counts only the agent's own calls: another agent's calls to the number do not move it on", async () => {
    const phone = nextPhone();
    const other = await t.agentWithCredentials(org, { simulator: { answers: ['answered'] } });
    expect((await callAgent(other, phone)).call.outcome).toBe('COMPLETED');
    expect((await callAgent(other, phone)).call.outcome).toBe('COMPLETED');
    const agent = await t.agentWithCredentials(org, { simulator: { answers: ['no_answer', 'answered'] } });
    expect((await callAgent(agent, phone)).call.outcome).toBe('NO_ANSWER');
    expect((await callAgent(agent, phone)).call.outcome).toBe('COMPLETED');
  });

  it('wins over answer', async () => {
    const agent = await t.agentWithCredentials(org, { simulator: { answer: 'busy', answers: ['answered'] } });
    expect((await callAgent(agent, nextPhone())).call.outcome).toBe('COMPLETED');
  });

  it('refuses to start a call whose answer is fail_to_start (ctc:008); that call counts too', async () => {
    const agent = await t.agentWithCredentials(org, {
      simulator: { answers: ['fail_to_start', 'no_answer', 'answered'] },
    });
    const phone = nextPhone();
    const first = await callAgent(agent, phone);
    expect([first.status, first.code]).toEqual([500, 'ctc:008']);
    expect((await callAgent(agent, phone)).call.outcome).toBe('NO_ANSWER');
    expect((await callAgent(agent, phone)).call.outcome).toBe('COMPLETED');
  });

  it('plays the answered scenario (turns, outcome, delay) for an answered call', async () => {
    const agent = await t.agentWithCredentials(org, {
      outcomes: ['SOLD'],
      simulator: {
        answers: ['voicemail', 'answered'],
        turns: [{ role: 'user', text: 'Yes please' }],
        outcome: { status: 'SOLD' },
        delayMs: 50,
      },
    });
    const phone = nextPhone();
    const first = await callAgent(agent, phone);
    expect([first.call.outcome, first.call.transcript]).toEqual(['VOICEMAIL', []]);
    const second = await callAgent(agent, phone);
    expect(second.call.outcome).toBe('SOLD');
    expect(second.call.transcript.map((turn: any) => turn.text)).toContain('Yes please');
  });

  it('is counted from the calls table: another app on the same database goes on where the first left off', async () => {
    const agent = await t.agentWithCredentials(org, {
      simulator: { answers: ['no_answer', 'busy', 'answered'] },
    });
    const phone = nextPhone();
    expect((await callAgent(agent, phone)).call.outcome).toBe('NO_ANSWER');
    // A second app (its own simulator, as another process or a restart would have) on the same database.
    const second = await buildApp({
      config: { ...t.config, role: 'api' },
      database: t.db.database,
      masterKey,
      logger: false,
      httpLimits: { refusalDelayMs: 0 },
    });
    try {
      const body = JSON.stringify({ phone });
      const response = await second.inject({
        method: 'POST',
        url: '/api/click-to-call',
        headers: {
          'content-type': 'application/json',
          'api-key': agent.apiToken,
          signature: hmacSha256Hex(agent.apiSecret, body),
        },
        payload: body,
      });
      expect(response.statusCode).toBe(200);
      const call = await t.waitForCall(org, response.json().callId);
      expect(call.outcome).toBe('BUSY');
    } finally {
      await second.close();
    }
    expect((await callAgent(agent, phone)).call.outcome).toBe('COMPLETED');
  });

  it('refuses an empty list, more than 20 answers and an unknown answer, and changes nothing', async () => {
    const agent = await t.createAgent(org, { simulator: { answers: ['busy'] } });
    const refused = [
      { answers: [], path: '$.simulator.answers', message: 'List at least one' },
      { answers: Array(21).fill('busy'), path: '$.simulator.answers', message: 'List at most 20' },
      {
        answers: ['answered', 'hung_up'],
        path: '$.simulator.answers[1]',
        message: 'must be one of "answered", "no_answer", "busy", "voicemail", "fail_to_start"',
      },
    ];
    for (const { answers, path, message } of refused) {
      const created = await t.request('POST', '/v1/agents', {
        headers: org.auth,
        body: { name: 'Refused', type: 'click_to_call', simulator: { answers } },
      });
      expect(created.status).toBe(422);
      expect(created.body.details[0]).toEqual({ path, message });
      const patched = await t.request('PATCH', `/v1/agents/${agent.id}`, {
        headers: org.auth,
        body: { simulator: { answers } },
      });
      expect(patched.status).toBe(422);
    }
    const after = await t.request('GET', `/v1/agents/${agent.id}`, { headers: org.auth });
    expect(after.body.simulator).toEqual({ answers: ['busy'] });
    const agents = await t.request('GET', '/v1/agents?limit=100', { headers: org.auth });
    expect(agents.body.data.some((a: any) => a.name === 'Refused')).toBe(false);
  });
});
