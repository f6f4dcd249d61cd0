import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
});
afterAll(() => t.close());

describe('GET /v1/calls', () => {
  it('lists newest first in cursor pages, filtered by agent and status', async () => {
    const a = await t.createAgent(org);
    const b = await t.createAgent(org, { simulator: { delayMs: 5000 } });
    const credsA = await t.credentials(org, a.id);
    const credsB = await t.credentials(org, b.id);
    const idsA: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.clickToCall({ token: credsA.apiToken, secret: credsA.apiSecret, body: { phone: nextPhone() } });
      idsA.push(r.body.callId);
      await t.waitForCall(org, r.body.callId);
    }
    const open = await t.clickToCall({
      token: credsB.apiToken,
      secret: credsB.apiSecret,
      body: { phone: nextPhone() },
    });
    await t.waitForCall(org, open.body.callId, (c) => c.status === 'in_progress');

    const page1 = await t.request('GET', `/v1/calls?agentId=${a.id}&limit=2`, { headers: org.auth });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([idsA[4], idsA[3]]);
    const page2 = await t.request('GET', `/v1/calls?agentId=${a.id}&limit=2&cursor=${page1.body.nextCursor}`, {
      headers: org.auth,
    });
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([idsA[2], idsA[1]]);
    const page3 = await t.request('GET', `/v1/calls?agentId=${a.id}&limit=2&cursor=${page2.body.nextCursor}`, {
      headers: org.auth,
    });
    expect(page3.body.data.map((c: { id: string }) => c.id)).toEqual([idsA[0]]);
    expect(page3.body.nextCursor).toBeNull();

    const inProgress = await t.request('GET', '/v1/calls?status=in_progress', { headers: org.auth });
    expect(inProgress.body.data.map((c: { id: string }) => c.id)).toEqual([open.body.callId]);
    const ended = await t.request('GET', '/v1/calls?status=ended&limit=100', { headers: org.auth });
    expect(ended.body.data).toHaveLength(5);
  });

  it("shows each call's direction, summary, recording and warnings, in the list as on its own", async () => {
    const agent = await t.createAgent(org, { simulator: { outcome: { status: 'SOLD', summary: 'A short call.' } } });
    const creds = await t.credentials(org, agent.id);
    const placed = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone() },
    });
    const call = await t.waitForCall(org, placed.body.callId);
    const details = { direction: 'outbound', summary: 'A short call.', recordingUrl: null, warnings: [] };
    expect(call).toMatchObject(details);
    const listed = await t.request('GET', `/v1/calls?agentId=${agent.id}`, { headers: org.auth });
    expect(listed.body.data).toEqual([expect.objectContaining(details)]);
  });

  it('refuses an unknown status or a bad limit with 422', async () => {
    const bad = await t.request('GET', '/v1/calls?status=done&limit=1000', { headers: org.auth });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['query.limit', 'query.status']);
  });

  it('answers 404 api:not_found for an unknown call', async () => {
    const response = await t.request('GET', '/v1/calls/call_nope', { headers: org.auth });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('api:not_found');
  });
});
