import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveriesRepository } from '../src/deliveries/deliveries.repository.js';
import { createDeliveryWorker } from '../src/deliveries/delivery-worker.js';
import { createSecretBox } from '../src/lib/crypto.js';
import { createOutboundClient } from '../src/lib/outbound-http.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startGatedReceiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

/**
 * What an idle delivery worker asks the database, and that it is still awake when a delivery falls
 * due (decision 0079). The app runs in the api role, so that it sends nothing itself: calls end and
 * queue their deliveries there, and the workers under test are built here over the app's database,
 * their claims counted. None of them hears the app's announcements: each must find its work alone.
 */
describe('delivery worker, idle', () => {
  let t: TestApp;
  let org: Org;
  const masterKey = randomBytes(32);
  const outbound = createOutboundClient({ allowPrivateNetworks: true });
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_ROLE: 'api' }, masterKey);
    org = await t.signup();
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await outbound.close();
    await t?.close();
  });

  /** A worker over the app's database; `claims` holds what each of its claims said of the next due delivery. */
  function worker(options: { maxIdleMs?: number; shutdownGraceMs?: number } = {}) {
    const repository = createDeliveriesRepository(t.db.database.db);
    const claims: (number | null)[] = [];
    const errors: unknown[] = [];
    const made = createDeliveryWorker({
      repository: {
        ...repository,
        claim: async (claim) => {
          const result = await repository.claim(claim);
          claims.push(result.nextDueInMs);
          return result;
        },
      },
      outbound,
      secretBox: createSecretBox(masterKey),
      retryScheduleSeconds: [1],
      onError: (error) => errors.push(error),
      ...options,
    });
    made.start();
    let stopped = false;
    const stop = () => {
      stopped = true;
      return made.stop();
    };
    cleanups.push(async () => {
      if (!stopped) await stop();
    });
    return { claims, errors, stop };
  }

  async function receiver(answer: (count: number) => number): Promise<Receiver> {
    let count = 0;
    const r = await startReceiver((_request, response) => {
      response.writeHead(answer(++count));
      response.end();
    });
    cleanups.push(() => r.close());
    return r;
  }

  /** The call's outcome delivery as `GET /v1/deliveries` shows it; undefined until there is one. */
  const stateOf = async (callId: string) =>
    (await t.request('GET', `/v1/deliveries?callId=${callId}`, { headers: org.auth })).body.data[0];

  /** A call of an agent sending its outcome to `url`, ended, with its delivery queued and not sent. */
  async function queuedDelivery(url: string): Promise<{ id: string; callId: string }> {
    const agent = await t.createAgent(org, {});
    const hook = await t.request('POST', `/v1/agents/${agent.id}/integrations`, { headers: org.auth, body: { url } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const creds = await t.credentials(org, agent.id);
    const answer = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone() },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const callId = answer.body.callId as string;
    const delivery = await until(`the delivery of ${callId}`, () => stateOf(callId));
    expect(delivery.state).toBe('pending');
    return { id: delivery.id, callId };
  }

  it('sends a retry it scheduled when the retry falls due, though idle it would look again only after a minute', async () => {
    const hook = await receiver((count) => (count === 1 ? 500 : 200));
    const { callId } = await queuedDelivery(`${hook.url}/outcomes`);
    const { claims, errors, stop } = worker({ maxIdleMs: 60_000 });

    // The first attempt fails; the retry, due a second later (+ up to 20 %), is sent by the same worker.
    await until('the retry', () => hook.requests.length >= 2 && true);
    const delivered = await until('the delivery delivered', async () => {
      const delivery = await stateOf(callId);
      return delivery.state === 'delivered' ? delivery : undefined;
    });
    expect(delivered.attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
    // One claim found the delivery, one the retry; nothing was pending after either, so no claim in
    // between (one more if a timer fired before the database's clock reached the retry).
    expect(claims.length).toBeGreaterThanOrEqual(2);
    expect(claims.length).toBeLessThanOrEqual(3);
    expect(errors).toEqual([]);
    expect(await stop()).toBe(false);
  });

  it("wakes for a delivery its claim saw pending and not due: another process's retry, or a lease that lapses", async () => {
    const hook = await receiver(() => 200);
    const { id, callId } = await queuedDelivery(`${hook.url}/outcomes`);
    // As a worker that died leaves it: claimed, its lease lapsing in 1.5 s.
    await t.db.database.db.execute(
      sql`update deliveries set claim = claim + 1, next_attempt_at = now() + interval '1500 milliseconds' where id = ${id}`,
    );
    // A claim looks only as far ahead as it is told (its worker's longest sleep): not 1.5 s ahead in 1 s.
    const claimOptions = { limit: 10, perIntegration: 16, room: new Map(), leaseSeconds: 50 };
    const repository = createDeliveriesRepository(t.db.database.db);
    expect(await repository.claim({ ...claimOptions, lookAheadMs: 1000 })).toEqual({
      deliveries: [],
      dueCount: 0,
      nextDueInMs: null,
    });
    const { claims, errors, stop } = worker({ maxIdleMs: 60_000 });

    await until('the delivery delivered', async () => (await stateOf(callId)).state === 'delivered');
    expect(hook.requests).toHaveLength(1);
    // The first claim found nothing due, and the lease's end in at most 1.5 s.
    expect(claims[0]).toBeGreaterThan(0);
    expect(claims[0]).toBeLessThanOrEqual(1500);
    expect(claims.length).toBeLessThanOrEqual(3);
    expect(errors).toEqual([]);
    await stop();
  });

  it('claims once per maxIdleMs (5 s by default) when nothing is pending', async () => {
    const { claims, errors, stop } = worker();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // Its first claim, at start. A worker polling every 500 ms made five or six by now.
    expect(claims).toEqual([null]);
    expect(errors).toEqual([]);
    await stop();
  });

  it('tells, when stopped, whether it gave deliveries back to the queue', async () => {
    const gated = await startGatedReceiver();
    cleanups.push(() => gated.receiver.close());
    const { callId } = await queuedDelivery(`${gated.receiver.url}/outcomes`);
    const { stop } = worker({ maxIdleMs: 60_000, shutdownGraceMs: 100 });
    await until('the attempt under way', () => gated.held === 1);

    // The attempt is abandoned after the grace period and the delivery is due again at once.
    expect(await stop()).toBe(true);
    const delivery = await stateOf(callId);
    expect(delivery.state).toBe('pending');
    expect(Date.parse(delivery.nextAttemptAt)).toBeLessThanOrEqual(Date.now());
    gated.open();
  });
});
