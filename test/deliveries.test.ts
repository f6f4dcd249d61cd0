import { createHmac } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, rowsOf } from '../src/db/client.js';
import { createDeliveriesRepository } from '../src/deliveries/deliveries.repository.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type ReceivedRequest, type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

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
async function agentWithIntegration(
  url: string,
  agent: Record<string, unknown> = {},
  integration: Record<string, unknown> = {},
) {
  const created = await t.createAgent(org, agent);
  const hook = await t.request('POST', `/v1/agents/${created.id}/integrations`, {
    headers: org.auth,
    body: { url, ...integration },
  });
  expect(hook.status).toBe(201);
  const creds = await t.credentials(org, created.id);
  return { agentId: created.id as string, integration: hook.body, creds };
}

async function call(
  creds: { apiToken: string; apiSecret: string },
  variables: Record<string, string> = { name: 'Ada' },
  expectedStatus = 200,
) {
  const answer = await t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables },
  });
  expect(answer.status).toBe(expectedStatus);
  return answer.body.callId as string;
}

/** Runs `statement` with foreign keys off: rows of other organizations, written without their calls and integrations. */
const bulk = (statement: SQL) =>
  t.db.database.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(statement);
  });

const deliveriesOf = async (callId: string) =>
  (await t.request('GET', `/v1/deliveries?callId=${callId}`, { headers: org.auth })).body.data as any[];

const settled = (callId: string, state = 'delivered') =>
  until(`a ${state} delivery of ${callId}`, async () => {
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

  it('retries until a 2xx with one webhook-id and a fresh signature each time; every attempt is logged', async () => {
    let answered = 0;
    const hook = await receiver((_request, response) => {
      answered++;
      if (answered < 3) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`not yet ${answered}`);
      } else {
        response.writeHead(204);
        response.end();
      }
    });
    const { integration, creds } = await agentWithIntegration(hook.url);
    const callId = await call(creds);
    const [delivery] = await settled(callId);
    expect(hook.requests).toHaveLength(3);
    const ids = new Set(hook.requests.map((r) => r.headers['webhook-id']));
    expect(ids).toEqual(new Set([delivery.webhookId]));
    expect(new Set(hook.requests.map((r) => r.body)).size).toBe(1);
    const wh = new Webhook(integration.signingSecret);
    for (const r of hook.requests) {
      expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    }
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 204]);
    expect(delivery.attempts[0]).toMatchObject({
      error: 'HTTP 500',
      errorCode: 'webhook:http_status',
      responseExcerpt: 'not yet 1',
    });
    expect(delivery.attemptCount).toBe(3);
    // The call shows the same delivery with every attempt, alone and in the list (their attempts
    // are read beside the deliveries, by call).
    const shown = await t.request('GET', `/v1/calls/${callId}`, { headers: org.auth });
    expect(shown.body.deliveries).toEqual([delivery]);
    const listed = await t.request('GET', `/v1/calls?agentId=${integration.agentId}`, { headers: org.auth });
    expect(listed.body.data.find((c: { id: string }) => c.id === callId)?.deliveries).toEqual([delivery]);
  });

  it('fails the delivery once the schedule is spent, and logs why each attempt failed', async () => {
    const hook = await receiver((_request, response) => {
      response.writeHead(302, { location: 'https://elsewhere.example.com/' });
      response.end();
    });
    const { creds } = await agentWithIntegration(hook.url);
    const callId = await call(creds);
    const [delivery] = await settled(callId, 'failed');
    // One attempt, then one per delay of the schedule (three here), and redirects are never followed.
    expect(hook.requests).toHaveLength(4);
    expect(delivery.attempts).toHaveLength(4);
    expect(delivery.attempts[3]).toMatchObject({ status: 302, errorCode: 'webhook:redirect' });
    expect(delivery.attempts[3].error).toContain('redirects are not followed');
    expect(delivery.nextAttemptAt).toBeNull();
  });

  it('logs a receiver that is not there as a connection failure, without a status', async () => {
    const gone = await receiver();
    const url = gone.url;
    await gone.close();
    const { creds } = await agentWithIntegration(url);
    const [delivery] = await settled(await call(creds), 'failed');
    expect(delivery.attempts[0]).toMatchObject({ status: null, errorCode: 'webhook:connect', responseExcerpt: null });
    expect(delivery.attempts[0].error).toContain('Connection refused');
  });

  it('disables the integration at once on a 410, and queues nothing for it afterwards', async () => {
    const hook = await receiver((_request, response) => {
      response.writeHead(410);
      response.end('gone');
    });
    const { integration, creds } = await agentWithIntegration(hook.url);
    const [delivery] = await settled(await call(creds), 'failed');
    expect(hook.requests).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ status: 410, errorCode: 'webhook:gone' });
    const after = await t.request('GET', `/v1/integrations/${integration.id}`, { headers: org.auth });
    expect(after.body.enabled).toBe(false);
    expect(after.body.disabledReason).toMatch(/^The endpoint answered 410 Gone on \d{4}-/);

    const next = await call(creds);
    await t.waitForCall(org, next);
    expect(await deliveriesOf(next)).toEqual([]);
    // Retrying by hand needs the integration enabled again.
    const refused = await t.request('POST', `/v1/deliveries/${delivery.id}/retry`, { headers: org.auth });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('410 Gone');
  });

  it('disables an integration whose deliveries have all failed for the auto-disable period, and says so', async () => {
    const local = await startTestApp({
      SWITCHBOARD_RETRY_SCHEDULE: '0.5,0.5,0.5,0.5',
      SWITCHBOARD_AUTO_DISABLE_SECONDS: '1',
    });
    try {
      const localOrg = await local.signup();
      let healthy = true;
      const hook = await receiver((_request, response) => {
        response.writeHead(healthy ? 200 : 503);
        response.end();
      });
      const agent = await local.createAgent(localOrg);
      const created = await local.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: localOrg.auth,
        body: { url: hook.url },
      });
      const id = created.body.id;
      const creds = await local.credentials(localOrg, agent.id);
      const place = async () =>
        (await local.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone: nextPhone() } })).body
          .callId as string;
      const integration = () => local.request('GET', `/v1/integrations/${id}`, { headers: localOrg.auth });

      healthy = false;
      await place();
      await until('failingSince to be set', async () => ((await integration()).body.failingSince ? true : undefined));
      const disabled = await until('the integration to be disabled', async () => {
        const body = (await integration()).body;
        return body.enabled === false ? body : undefined;
      });
      expect(disabled.disabledReason).toMatch(/^Every delivery failed since \d{4}-/);

      // Enabled again by a person: the failing period starts over, and a success ends it.
      healthy = true;
      const enabled = await local.request('PATCH', `/v1/integrations/${id}`, {
        headers: localOrg.auth,
        body: { enabled: true },
      });
      expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
      const callId = await place();
      await until('the next call delivered', async () => {
        const [d] = (await local.request('GET', `/v1/deliveries?callId=${callId}`, { headers: localOrg.auth })).body
          .data;
        return d?.state === 'delivered' ? d : undefined;
      });
      expect((await integration()).body).toMatchObject({ enabled: true, failingSince: null });
    } finally {
      await local.close();
    }
  });

  it('honours Retry-After on 429 within twice the scheduled delay', async () => {
    const local = await startTestApp({ SWITCHBOARD_RETRY_SCHEDULE: '1' });
    try {
      const localOrg = await local.signup();
      const hook = await receiver((_request, response) => {
        response.writeHead(429, { 'retry-after': '3600' });
        response.end();
      });
      const agent = await local.createAgent(localOrg);
      await local.request('POST', `/v1/agents/${agent.id}/integrations`, {
        headers: localOrg.auth,
        body: { url: hook.url },
      });
      const creds = await local.credentials(localOrg, agent.id);
      const answer = await local.clickToCall({
        token: creds.apiToken,
        secret: creds.apiSecret,
        body: { phone: nextPhone() },
      });
      const callId = answer.body.callId;
      const delivery = await until('a first attempt', async () => {
        const [d] = (await local.request('GET', `/v1/deliveries?callId=${callId}`, { headers: localOrg.auth })).body
          .data;
        // The first attempt recorded and its retry scheduled; not the retry in flight, whose
        // nextAttemptAt is the claim's lease (50 s) until it is recorded.
        const first = d?.attempts.length === 1 ? d.attempts[0] : undefined;
        return first && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) - Date.parse(first.at) < 10_000
          ? d
          : undefined;
      });
      // Scheduled 1 s (jitter would make it at most 1.2 s); the receiver asked for an hour; 2 s is the most.
      // Counted from the attempt's end (its start plus its latency): the delay starts when the answer is
      // judged, and on busy cores recording it may come some hundreds of ms later; three times the
      // schedule (3 s) would still be caught.
      const [first] = delivery.attempts;
      const wait = (Date.parse(delivery.nextAttemptAt) - (Date.parse(first.at) + first.latencyMs)) / 1000;
      expect(wait).toBeGreaterThan(1.9);
      expect(wait).toBeLessThan(2.9);
    } finally {
      await local.close();
    }
  });

  it('sends both signatures while a rotated-out secret overlaps, each verifiable on its own', async () => {
    const hook = await receiver();
    const { integration, creds } = await agentWithIntegration(hook.url);
    const rotated = await t.request('POST', `/v1/integrations/${integration.id}/rotate-secret`, { headers: org.auth });
    await settled(await call(creds));
    const [received] = hook.requests as [ReceivedRequest];
    const headers = received.headers as Record<string, string>;
    expect(headers['x-webhook-signature']).toBe(
      createHmac('sha256', rotated.body.signingSecret).update(received.body).digest('hex'),
    );
    expect(headers['x-webhook-signature-previous']).toBe(
      createHmac('sha256', integration.signingSecret).update(received.body).digest('hex'),
    );
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(integration.signingSecret).verify(received.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.body.signingSecret).verify(received.body, headers)).not.toThrow();
  });

  it('leaves the signature headers out when signing is off, and keeps webhook-id for de-duplication', async () => {
    const hook = await receiver();
    const { creds } = await agentWithIntegration(hook.url, {}, { signing: false });
    const [delivery] = await settled(await call(creds));
    const [received] = hook.requests as [ReceivedRequest];
    expect(received.headers['x-webhook-signature']).toBeUndefined();
    expect(received.headers['webhook-signature']).toBeUndefined();
    expect(received.headers['webhook-id']).toBe(delivery.webhookId);
  });

  it('delivers only to integrations whose trigger conditions the call meets', async () => {
    const everything = await receiver();
    const soldOnly = await receiver();
    const longOnly = await receiver();
    const agent = await t.createAgent(org, {
      simulator: {
        outcome: { status: 'NOT_INTERESTED', collectedData: { email: 'ada@example.com' } },
        durationSeconds: 12,
      },
    });
    const add = (url: string, triggerConditions?: unknown) =>
      t.request('POST', `/v1/agents/${agent.id}/integrations`, { headers: org.auth, body: { url, triggerConditions } });
    await add(everything.url);
    await add(soldOnly.url, { conditions: [{ field: 'status', operator: 'equals', value: 'SOLD' }] });
    await add(longOnly.url, {
      match: 'any',
      conditions: [
        { field: 'durationSeconds', operator: 'gt', value: 60 },
        { field: 'collectedData.email', operator: 'contains', value: '@example.com' },
        { field: 'variables.name', operator: 'in', value: ['Grace'] },
      ],
    });
    const creds = await t.credentials(org, agent.id);
    const callId = await call(creds);
    const list = await until('two delivered and the third dropped', async () => {
      const l = await deliveriesOf(callId);
      return l.length === 2 && l.every((d) => d.state === 'delivered') ? l : undefined;
    });
    expect(list).toHaveLength(2);
    expect(everything.requests).toHaveLength(1);
    expect(longOnly.requests).toHaveLength(1);
    expect(soldOnly.requests).toHaveLength(0);
  });

  it.each([
    ['no_answer', 'NO_ANSWER', 'no_answer'],
    ['busy', 'BUSY', 'busy'],
    ['voicemail', 'VOICEMAIL', 'voicemail'],
    ['fail_to_start', 'FAILED', 'failed_to_start'],
  ])('delivers the outcome of a call that was not answered: %s', async (answer, status, endedReason) => {
    const hook = await receiver();
    const { creds } = await agentWithIntegration(hook.url, { simulator: { answer } });
    // A start the provider refuses is answered ctc:008 (500) with the call's id; its outcome is delivered too.
    const callId = await call(creds, {}, answer === 'fail_to_start' ? 500 : 200);
    await settled(callId);
    const body = JSON.parse((hook.requests[0] as ReceivedRequest).body);
    expect(body).toMatchObject({ callId, status, endedReason, durationSeconds: 0 });
  });

  it('delivers the outcome of a call the duration sweep closed', async () => {
    const hook = await receiver();
    const { creds } = await agentWithIntegration(hook.url, {
      maxCallDurationSeconds: 1,
      simulator: { delayMs: 600_000 },
    });
    const callId = await call(creds);
    await settled(callId);
    const body = JSON.parse((hook.requests[0] as ReceivedRequest).body);
    expect(body).toMatchObject({ callId, status: 'FAILED', endedReason: 'timeout' });
  });

  it('cuts a payload over 256 KiB, oldest turns first, and says so', async () => {
    const hook = await receiver();
    const turns = Array.from({ length: 100 }, (_, i) => ({ role: 'user', text: `${i}: ${'é'.repeat(1990)}` }));
    const { creds } = await agentWithIntegration(hook.url, { simulator: { turns } });
    const [delivery] = await settled(await call(creds));
    const received = hook.requests[0] as ReceivedRequest;
    expect(Buffer.byteLength(received.body)).toBeLessThanOrEqual(256 * 1024);
    const body = JSON.parse(received.body);
    expect(body.truncated.transcriptTurnsRemoved).toBeGreaterThan(0);
    expect(body.transcript.at(-1).text).toMatch(/^99: /);
    expect(delivery.payloadTruncated).toBe(true);
  });

  it('retries by hand with the same webhook-id, and lists deliveries by integration and state', async () => {
    const hook = await receiver();
    const { integration, creds } = await agentWithIntegration(hook.url);
    const callId = await call(creds);
    const [delivery] = await settled(callId);
    const retried = await t.request('POST', `/v1/deliveries/${delivery.id}/retry`, { headers: org.auth });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: delivery.id, state: 'pending', webhookId: delivery.webhookId });
    const again = await until('the second attempt', async () => {
      const d = (await t.request('GET', `/v1/deliveries/${delivery.id}`, { headers: org.auth })).body;
      return d.state === 'delivered' && d.attempts.length === 2 ? d : undefined;
    });
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([delivery.webhookId, delivery.webhookId]);
    expect(hook.requests[0]?.body).toBe(hook.requests[1]?.body);
    expect(again.attemptCount).toBe(2);

    const byIntegration = await t.request('GET', `/v1/deliveries?integrationId=${integration.id}&state=delivered`, {
      headers: org.auth,
    });
    expect(byIntegration.body.data.map((d: { id: string }) => d.id)).toEqual([delivery.id]);
    const none = await t.request('GET', `/v1/deliveries?integrationId=${integration.id}&state=failed`, {
      headers: org.auth,
    });
    expect(none.body.data).toEqual([]);
    const bad = await t.request('GET', '/v1/deliveries?state=lost', { headers: org.auth });
    expect(bad.status).toBe(422);
    expect((await t.request('POST', '/v1/deliveries/dlv_nope/retry', { headers: org.auth })).status).toBe(404);
  });

  it('does not let a receiver that hangs delay another integration', async () => {
    const hanging: { end(): void }[] = [];
    let hang = true;
    const slow = await receiver((_request, response) => {
      if (hang) hanging.push({ end: () => response.end() });
      else response.end();
    });
    const fast = await receiver();
    const stuck = await agentWithIntegration(slow.url);
    const flowing = await agentWithIntegration(fast.url);
    // More outcomes for the hanging receiver than it may hold at once, queued first.
    const stuckCalls = await Promise.all(Array.from({ length: 24 }, () => call(stuck.creds)));
    await until('the hanging receiver to hold its share', () => (slow.requests.length >= 16 ? true : undefined));
    const callId = await call(flowing.creds);
    await settled(callId);
    // Delivered while every request to the hanging receiver is still unanswered, and it holds no more than its share.
    expect(hanging.length).toBe(slow.requests.length);
    expect(slow.requests.length).toBe(16);
    hang = false;
    for (const h of hanging) h.end();
    await Promise.all(stuckCalls.map((id) => settled(id)));
  });
});

describe('the delivery claim on a large backlog', () => {
  // Newly due deliveries are always newer than anything the statistics have seen, so the planner
  // estimates no due delivery at all. The claim read each candidate through the whole due index
  // then (a nested loop with a join filter): 345 ms a claim with 7,000 due, a drain of 9 a second
  // (docs/benchmarks.md, "Ten million calls"). Its plan must read each candidate by its id.
  it('locks each candidate through the primary key, whatever the statistics say', async () => {
    const { db } = t.db.database;
    // A table of 20,000 settled deliveries (other organizations', written without their calls and
    // integrations, foreign keys off), analyzed: the statistics know of no pending one.
    await bulk(sql`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state)
      select 'dlv_plan' || i, 'org_plan', 'intg_plan', 'call_plan' || i, 'msg_plan' || i, 'delivered'
      from generate_series(1, 20000) i`);
    await db.execute(sql`analyze deliveries`);
    let plan: unknown;
    // The claim is a prepared statement (executePrepared): explained here with its values, as the
    // database plans its first runs.
    const real = db as unknown as {
      dialect: unknown;
      $client: { query(text: string, params: unknown[]): Promise<unknown> };
    };
    const explaining = {
      dialect: real.dialect,
      _: {
        session: {
          prepareQuery: (query: { sql: string; params: unknown[] }) => ({
            execute: async () => {
              const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
                await real.$client.query(`explain (format json) ${query.sql}`, query.params),
              );
              plan = row?.['QUERY PLAN'];
              return { rows: [] };
            },
          }),
        },
      },
    } as unknown as Db;
    try {
      await createDeliveriesRepository(explaining).claim({
        limit: 64,
        perIntegration: 16,
        room: new Map(),
        leaseSeconds: 10,
        lookAheadMs: 5000,
      });
    } finally {
      await bulk(sql`delete from deliveries where organization_id = 'org_plan'`);
    }
    interface PlanNode {
      'Node Type': string;
      'Relation Name'?: string;
      'Index Name'?: string;
      Plans?: PlanNode[];
    }
    const root = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
    const below = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(below)];
    const locks = below(root[0]?.Plan as PlanNode).filter((node) => node['Node Type'] === 'LockRows');
    expect(locks.length).toBeGreaterThan(0);
    const lockedReads = locks.flatMap(below).filter((node) => node['Relation Name'] === 'deliveries');
    expect(lockedReads.map((node) => `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim())).toEqual([
      'Index Scan deliveries_pkey',
    ]);
  });
});

describe('the delivery claim behind a backlog it may not take', () => {
  // Decision 0114: a slow receiver's integration holds all the room a worker gives it, and its due
  // deliveries pile up at the head of the queue. The claim read past them one by one to find other
  // integrations' (50 ms a claim behind 50,000); it now reads a bounded head and then each
  // integration's oldest by their own index.
  it("claims the other integrations' due deliveries, and of the backlog only what its room allows", async () => {
    const { db } = t.db.database;
    // 1,000 due for one integration, oldest first; then two for each of two others. Written without
    // their calls and integrations (foreign keys off): the claim's choice is in question, not the send.
    await bulk(sql`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
      select 'dlv_blk' || lpad(i::text, 5, '0'), 'org_blk', 'intg_blk_slow', 'call_blk' || i, 'msg_blk' || i, 'pending',
        now() - interval '1 hour' + i * interval '1 ms'
      from generate_series(1, 1000) i
      union all
      select 'dlv_blk_other' || i, 'org_blk', 'intg_blk_other' || (i % 2), 'call_blk_o' || i, 'msg_blk_o' || i,
        'pending', now() - interval '1 minute' + i * interval '1 ms'
      from generate_series(1, 4) i`);
    const claimedIds = async () =>
      rowsOf<{ id: string }>(
        await db.execute(sql`select id from deliveries where organization_id = 'org_blk' and claim > 0 order by id`),
      ).map((row) => row.id);
    const deliveries = createDeliveriesRepository(db as unknown as Db);
    const options = { limit: 50, perIntegration: 16, leaseSeconds: 30, lookAheadMs: 5000 };
    try {
      // The slow integration has no room left: the head of 200 is all its own, and the four behind it are taken.
      const first = await deliveries.claim({ ...options, room: new Map([['intg_blk_slow', 0]]) });
      expect(await claimedIds()).toEqual(['dlv_blk_other1', 'dlv_blk_other2', 'dlv_blk_other3', 'dlv_blk_other4']);
      expect(first.dueCount).toBe(4);
      // Room for two: its two oldest, and nothing more of it; work left waiting for room is said.
      const second = await deliveries.claim({ ...options, room: new Map([['intg_blk_slow', 2]]) });
      expect((await claimedIds()).filter((id) => id.startsWith('dlv_blk0'))).toEqual(['dlv_blk00001', 'dlv_blk00002']);
      expect(second.dueCount).toBeGreaterThan(2);
      // A worker that holds none of it: 16 more, the next oldest.
      const third = await deliveries.claim({ ...options, room: new Map() });
      expect((await claimedIds()).filter((id) => id.startsWith('dlv_blk0'))).toHaveLength(2 + 16);
      expect(third.dueCount).toBeGreaterThan(16);
      // A worker allowed 32 of one integration takes 16 a claim behind a blocked head, and hears that more wait.
      const fourth = await deliveries.claim({ ...options, perIntegration: 32, room: new Map() });
      expect((await claimedIds()).filter((id) => id.startsWith('dlv_blk0'))).toHaveLength(2 + 16 + 16);
      expect(fourth.dueCount).toBeGreaterThan(16);
    } finally {
      await bulk(sql`delete from deliveries where organization_id = 'org_blk'`);
    }
  });
});

// Decision 0053: an organization's deliveries grow with its calls, so the delivery log counts at
// most 10,000 of them; above that, `total` is 10,000 and `totalCapped` is true.
describe('GET /v1/deliveries total, capped at 10,000', () => {
  it('answers 10,000 and totalCapped above 10,000 deliveries, and the exact count at 10,000 and below', async () => {
    const big = await t.signup();
    const agent = await t.createAgent(big, { name: 'Many deliveries', type: 'outbound' });
    const hook = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: big.auth,
      body: { url: 'https://hooks.example.com/outcomes', enabled: false },
    });
    expect(hook.status).toBe(201);
    // 10,001 ended calls, each with one delivered outcome: one statement each, not 10,001 calls.
    await t.db.database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, direction, to_number, status, variables,
        collected_data, transcript, created_at, deadline_at)
      select 'call_dcap' || lpad(i::text, 17, '0'), ${big.organization.id}, ${agent.id}, 'simulator', 'outbound',
        '+1415556' || lpad(i::text, 4, '0'), 'ended', '{}', '{}', '[]', now(), now() + interval '1 day'
      from generate_series(1, 10001) i`);
    await t.db.database.db.execute(sql`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
      select 'dlv_dcap' || lpad(i::text, 18, '0'), ${big.organization.id}, ${hook.body.id},
        'call_dcap' || lpad(i::text, 17, '0'), 'msg_dcap' || lpad(i::text, 18, '0'),
        case when i = 1 then 'failed' else 'delivered' end, null
      from generate_series(1, 10001) i`);
    const get = async (query: string) => (await t.request('GET', `/v1/deliveries${query}`, { headers: big.auth })).body;
    expect(await get('?limit=2')).toMatchObject({ total: 10_000, totalCapped: true });
    expect((await get('?limit=2')).data).toHaveLength(2);
    expect(await get('?limit=1&state=delivered')).toMatchObject({ total: 10_000, totalCapped: false });
    expect(await get('?state=failed')).toMatchObject({ total: 1, totalCapped: false });
    expect(await get('?state=pending')).toEqual({ data: [], nextCursor: null, total: 0, totalCapped: false });
  }, 60_000);
});
