import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// A call read while it ends (decision 0098). Its tool runs are written before its end, and its outcome
// deliveries with its end: a reader that sees the call `ended` must see all of them, and a delivery's
// state must never be ahead of its attempt log. On server PostgreSQL each statement of a read takes its
// own snapshot, so the order of the statements decides this; the embedded database runs them one at a
// time, in order, so there it holds either way.

let t: TestApp;
let org: Org;
let endpoint: Receiver;

beforeAll(async () => {
  endpoint = await startReceiver();
  t = await startTestApp();
  org = await t.signup();
});
afterAll(async () => {
  await t?.close();
  await endpoint?.close();
});

interface Seen {
  status: string;
  toolInvocations: unknown[];
  deliveries: { state: string; attempts: { status: number | null }[] }[];
}

/** What is wrong with one read of an ended call, or null. */
function inconsistency(call: Seen): string | null {
  if (call.status !== 'ended') return null;
  if (call.toolInvocations.length !== 1) return `ended with ${call.toolInvocations.length} tool runs`;
  if (call.deliveries.length !== 1) return `ended with ${call.deliveries.length} deliveries`;
  const [delivery] = call.deliveries;
  if (delivery!.state === 'delivered' && !delivery!.attempts.some((a) => a.status === 200)) {
    return `a delivered delivery without its attempt: ${JSON.stringify(delivery)}`;
  }
  return null;
}

describe('a call read while it ends', () => {
  it('shows every tool run and delivery of an ended call, and no delivery ahead of its attempts, in its view and in the list', async () => {
    const tool = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'look_up', method: 'POST', url: `${endpoint.url}/tool` },
    });
    expect(tool.status).toBe(201);
    const agent = await t.createAgent(org, {
      rateLimitPerMinute: null,
      maxConcurrentCalls: 100,
      toolIds: [tool.body.id],
      // Nine turns 10 ms apart, the tool last: the call ends 10 ms after it, while its readers read it.
      simulator: {
        delayMs: 100,
        turns: [
          ...Array.from({ length: 8 }, (_, i) => ({ role: 'agent', text: `Line ${i}` })),
          { tool: 'look_up', args: {} },
        ],
      },
    });
    const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: org.auth,
      body: { url: `${endpoint.url}/outcome` },
    });
    expect(integration.status).toBe(201);
    const creds = await t.credentials(org, agent.id);

    const problems: string[] = [];
    let endedReads = 0;
    /** Reads the call, on its own and in the agent's list, until it is ended and delivered. */
    const reader = async (callId: string) => {
      for (;;) {
        const [one, list] = await Promise.all([
          t.request('GET', `/v1/calls/${callId}`, { headers: org.auth }),
          t.request('GET', `/v1/calls?agentId=${agent.id}&limit=5`, { headers: org.auth }),
        ]);
        expect(one.status).toBe(200);
        const listed = list.body.data.find((call: { id: string }) => call.id === callId);
        for (const [where, call] of [
          ['its view', one.body],
          ['the list', listed],
        ] as const) {
          if (!call) continue;
          const problem = inconsistency(call);
          if (problem) problems.push(`${where}: ${problem}`);
        }
        if (one.body.status === 'ended') endedReads++;
        if (one.body.deliveries[0]?.state === 'delivered') return;
      }
    };

    // Waves of calls, each read by four readers at once: ends and deliveries land during reads.
    for (let wave = 0; wave < 6; wave++) {
      const placed = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone: nextPhone() } }),
        ),
      );
      await Promise.all(
        placed.flatMap((response) => {
          expect(response.status).toBe(200);
          return Array.from({ length: 4 }, () => reader(response.body.callId));
        }),
      );
    }
    expect(endedReads).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 90_000);
});
