import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseUnreachable, rowsOf } from '../src/db/client.js';
import { openPostgres } from '../src/db/postgres.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { type ServerProcess, startServerProcess } from './helpers/process.js';
import { startGatedReceiver, startReceiver } from './helpers/receiver.js';
import { startProxyToDatabase, type TcpProxy } from './helpers/tcp-proxy.js';
import { until } from './helpers/wait.js';

// Issue 7, database faults: a server process whose PostgreSQL goes away (stopped, or unreachable
// with packets vanishing) answers promptly, pauses its background work without spinning, and picks
// everything up again when the database returns, without a restart and without losing an outcome.
// The machine's PostgreSQL is shared, so the fault is made by a TCP proxy between the process and it.

/** What the issue allows for an answer while the database is away. */
const PROMPT_MS = 2000;

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Answer {
  status: number;
  body: any;
  ms: number;
  /** When the answer had come whole (performance.now()). */
  at: number;
}

/** A request timed from send to the whole body read; a hang shows as a failed test, not a stuck one. */
async function timed(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const startedAt = performance.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  const at = performance.now();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    ms: Math.round(at - startedAt),
    at,
  } satisfies Answer;
}

interface Credentials {
  agentId: string;
  apiToken: string;
  apiSecret: string;
}

let phone = 1000;
function clickToCall(url: string, agent: Credentials, options: { signature?: string } = {}) {
  const body = JSON.stringify({ phone: `+1415557${String(phone++).padStart(4, '0')}` });
  return timed(`${url}/api/click-to-call`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'api-key': agent.apiToken,
      signature: options.signature ?? createHmac('sha256', agent.apiSecret).update(body).digest('hex'),
    },
    body,
  });
}

/** A receiver holding every request unanswered until `open()`, which answers them. */
async function gatedReceiver() {
  const gated = await startGatedReceiver();
  cleanups.push(() => gated.receiver.close());
  return gated;
}

/** CPU seconds (user + system) the process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** How the server process names itself to PostgreSQL, to tell its connections from the test's own. */
const APPLICATION_NAME = 'switchboard-faults';

/** The server's backends listening for changes: its change feed, when it is connected. */
async function listeners(db: TestDatabase): Promise<number> {
  const result = await db.database.db.execute(
    sql`select count(*)::int as count from pg_stat_activity
        where query = 'LISTEN switchboard_changes' and application_name = ${APPLICATION_NAME}
          and datname = current_database()`,
  );
  return rowsOf<{ count: number }>(result)[0]?.count ?? 0;
}

async function setUp(url: string, hookUrl: string, trafficHookUrl: string) {
  const signup = await timed(`${url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      organization: 'Faults',
      email: `f-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse',
    }),
  });
  const auth = { authorization: `Bearer ${signup.body.apiKey}` };
  const agent = async (
    name: string,
    simulator: Record<string, unknown>,
    options: { hook?: string; fields?: Record<string, unknown> } = {},
  ): Promise<Credentials> => {
    const created = await timed(`${url}/v1/agents`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name, type: 'click_to_call', simulator, ...options.fields }),
    });
    expect(created.status).toBe(201);
    const hook = await timed(`${url}/v1/agents/${created.body.id}/integrations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: options.hook ?? hookUrl }),
    });
    expect(hook.status).toBe(201);
    const creds = await timed(`${url}/v1/agents/${created.body.id}/credentials`, { headers: auth });
    return { agentId: created.body.id, apiToken: creds.body.apiToken, apiSecret: creds.body.apiSecret };
  };
  return {
    auth,
    // Its calls end at once, outcome SOLD.
    quick: await agent('Quick', { turns: [{ role: 'user', text: 'Yes' }], outcome: { status: 'SOLD' } }),
    // Its calls are still under way when the database goes.
    slow: await agent('Slow', { delayMs: 1500, outcome: { status: 'INTERESTED' } }),
    // Never called before the outage: no process has it cached.
    unseen: await agent('Unseen', {}),
    // For the change feed after the outage.
    watched: await agent('Watched', {}),
    // Steady traffic across the fault, with no rate limit, so that each request reaches the
    // statement that records its call: alone (batched with others), or in a transaction that
    // counts the agent's open calls.
    batched: await agent('Batched', {}, { hook: trafficHookUrl, fields: { rateLimitPerMinute: null } }),
    counted: await agent(
      'Counted',
      {},
      { hook: trafficHookUrl, fields: { rateLimitPerMinute: null, maxConcurrentCalls: 1000 } },
    ),
  };
}

/** Click-to-calls sent back to back by two senders per agent until stopped, each answer kept. */
function startTraffic(url: string, agents: Credentials[]) {
  const answers: Answer[] = [];
  let running = true;
  const senders = agents
    .flatMap((agent) => [agent, agent])
    .map(async (agent) => {
      while (running) answers.push(await clickToCall(url, agent));
    });
  return {
    answers,
    async stop(): Promise<Answer[]> {
      running = false;
      await Promise.all(senders);
      return answers;
    },
  };
}

type Fault = 'down' | 'black-hole';

interface Figures {
  fault: Fault;
  /** The slowest answer while the database was away, per kind of request. */
  slowestMs: Record<string, number>;
  cpuShareWhileDown: number;
  readyAfterMs: number;
  acceptingAfterMs: number;
  deliveredAfterMs: number;
}

async function faultAndRecovery(fault: Fault): Promise<Figures> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  const proxy: TcpProxy = await startProxyToDatabase(db.url as string);
  cleanups.push(() => proxy.close());
  const hook = await gatedReceiver();
  const trafficHook = await startReceiver();
  cleanups.push(() => trafficHook.close());
  const server: ServerProcess = await startServerProcess({
    DATABASE_URL: `${proxy.via(db.url as string)}?application_name=${APPLICATION_NAME}`,
    SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
    SWITCHBOARD_SIGNUP: 'open',
    SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
    SWITCHBOARD_RETRY_SCHEDULE: '0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5',
    // A claim whose outcome could not be written lapses after this (60 s in production).
    SWITCHBOARD_DELIVERY_LEASE_SECONDS: '3',
  });
  cleanups.push(() => server.stop('SIGKILL'));
  const { auth, quick, slow, unseen, watched, batched, counted } = await setUp(
    server.url,
    hook.receiver.url,
    trafficHook.url,
  );

  // Before the fault: a call ended whose outcome is on its way (held by the receiver), and a call
  // still under way, whose end comes while the database is away.
  const ended = await clickToCall(server.url, quick);
  expect(ended.status).toBe(200);
  await until('the outcome in flight', () => hook.held === 1);
  const underWay = await clickToCall(server.url, slow);
  expect(underWay.status).toBe(200);
  const underWayEndsAt = Date.now() + 1500;
  // And requests arriving all along: some are in the middle of their transaction when the fault comes.
  const traffic = startTraffic(server.url, [batched, counted]);
  await until('traffic flowing', () => traffic.answers.length >= 10, 15_000, 5);

  if (fault === 'down') await proxy.down();
  else proxy.blackHole();
  const faultAt = performance.now();

  // Every kind of request answers within the bound, twice: the first requests meet connections
  // that the fault left behind, the second ones whatever the first left.
  const slowestMs: Record<string, number> = {};
  for (let round = 0; round < 2; round++) {
    const [cached, uncached, ready, api] = await Promise.all([
      clickToCall(server.url, quick),
      clickToCall(server.url, unseen),
      timed(`${server.url}/readyz`),
      timed(`${server.url}/v1/agents`, { headers: auth }),
    ]);
    for (const answer of [cached, uncached]) {
      expect(answer.status).toBe(500);
      expect(answer.body).toMatchObject({ success: false, code: 'ctc:002', message: 'Error fetching agent' });
    }
    expect(ready.status).toBe(503);
    expect(api.status).toBe(500);
    expect(api.body).toMatchObject({ code: 'api:internal' });
    for (const [kind, answer] of Object.entries({ cached, uncached, ready, api })) {
      slowestMs[kind] = Math.max(slowestMs[kind] ?? 0, answer.ms);
    }
  }
  for (const ms of Object.values(slowestMs)) expect(ms).toBeLessThan(PROMPT_MS);
  // The requests under way when it came answered too, promptly (counted from the fault for those
  // sent before it): accepted, or refused as the contract says.
  const trafficAnswers = await traffic.stop();
  slowestMs.traffic = Math.round(Math.max(...trafficAnswers.map((a) => Math.min(a.ms, a.at - faultAt))));
  expect(slowestMs.traffic).toBeLessThan(PROMPT_MS);
  for (const answer of trafficAnswers.filter((a) => a.status !== 200)) {
    expect(answer.status).toBe(500);
    expect(['ctc:002', 'ctc:008']).toContain(answer.body.code);
  }
  const trafficAccepted: string[] = trafficAnswers.filter((a) => a.status === 200).map((a) => a.body.callId);
  expect(trafficAnswers.some((a) => a.status !== 200)).toBe(true);

  // The attempt under way ends now: its receiver answers, but the delivery cannot be marked.
  hook.open();
  // The background work while down: no attempt is made, nothing spins, the process stays up. The
  // window lasts past the end of the call under way, whose end report meets the fault.
  const trafficDeliveriesBefore = trafficHook.requests.length;
  const cpuBefore = cpuSeconds(server.child.pid as number);
  const windowStartedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, Math.max(2500, underWayEndsAt + 1000 - Date.now())));
  const cpuShareWhileDown =
    (cpuSeconds(server.child.pid as number) - cpuBefore) / ((performance.now() - windowStartedAt) / 1000);
  expect(cpuShareWhileDown).toBeLessThan(0.5);
  expect(hook.receiver.requests).toHaveLength(1);
  expect(trafficHook.requests).toHaveLength(trafficDeliveriesBefore);
  expect(server.child.exitCode).toBeNull();
  if (fault === 'down') expect(await listeners(db)).toBe(0);

  await proxy.restore();
  const restoredAt = performance.now();
  await until('/readyz to answer 200', async () => (await timed(`${server.url}/readyz`)).status === 200, 30_000);
  const readyAfterMs = Math.round(performance.now() - restoredAt);
  const accepted = await until(
    'click-to-call to accept',
    async () => {
      const answer = await clickToCall(server.url, quick);
      return answer.status === 200 ? answer : undefined;
    },
    30_000,
  );
  const acceptingAfterMs = Math.round(performance.now() - restoredAt);
  const callIds = [ended.body.callId, underWay.body.callId, accepted.body.callId];
  await until('every outcome delivered', () => callIds.every((id) => hook.delivered.has(id)), 30_000);
  await until('every call the traffic placed delivered', () => {
    const delivered = new Set(trafficHook.requests.map((r) => JSON.parse(r.body).callId as string));
    return trafficAccepted.every((id) => delivered.has(id));
  });
  const deliveredAfterMs = Math.round(performance.now() - restoredAt);

  // The call under way ended as its provider reported it, not as a timeout; each call was delivered.
  const call = await timed(`${server.url}/v1/calls/${underWay.body.callId}`, { headers: auth });
  expect(call.body).toMatchObject({ status: 'ended', outcome: 'INTERESTED', endedReason: 'agent_hangup' });
  for (const id of callIds) {
    await until(`the delivery of ${id} logged as delivered`, async () => {
      const page = await timed(`${server.url}/v1/deliveries?callId=${id}`, { headers: auth });
      return page.body.data.length === 1 && page.body.data[0].state === 'delivered';
    });
  }

  // The change feed listens again: a change another process announces reaches this one's cache.
  await until('the change feed to listen again', async () => (await listeners(db)) === 1, 30_000);
  const wrongSignature = () => clickToCall(server.url, watched, { signature: '0'.repeat(64) });
  expect((await wrongSignature()).body.code).toBe('ctc:006'); // now cached
  await db.database.db.execute(
    sql`update agents set deleted_at = now(), api_token_hash = null where id = ${watched.agentId}`,
  );
  // Not announced yet: the cache still has it, so the cache is in use again.
  expect((await wrongSignature()).body.code).toBe('ctc:006');
  await db.database.db.execute(sql`select pg_notify('switchboard_changes', ${`agent:${watched.agentId}`})`);
  // Within 1 s of the announcement, give or take the probe's own wait: a server process answers a
  // refusal for credentials 0.5–1.5 s late (decision 0029).
  await until('the announced change to be heard', async () => (await wrongSignature()).body.code === 'ctc:003', 4000);

  expect(server.child.exitCode).toBeNull();
  expect(await server.stop('SIGTERM')).toBe(0);
  return {
    fault,
    slowestMs,
    cpuShareWhileDown: Math.round(cpuShareWhileDown * 100) / 100,
    readyAfterMs,
    acceptingAfterMs,
    deliveredAfterMs,
  };
}

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL going away and coming back', () => {
  it('stopped (connections dropped, new ones refused): prompt answers, paused work, full recovery', async () => {
    const figures = await faultAndRecovery('down');
    console.info('database faults:', JSON.stringify(figures));
  }, 120_000);

  it('unreachable (packets vanish): prompt answers, paused work, full recovery', async () => {
    const figures = await faultAndRecovery('black-hole');
    console.info('database faults:', JSON.stringify(figures));
  }, 120_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('the connection pool', () => {
  it('gets back every connection of transactions that failed while the database was unreachable', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const proxy = await startProxyToDatabase(db.url as string);
    cleanups.push(() => proxy.close());
    const poolSize = 2;
    const database = openPostgres({ url: proxy.via(db.url as string), poolSize });
    cleanups.push(() => database.close());
    // Every connection of the pool open and idle: the fault finds them all.
    await Promise.all(Array.from({ length: poolSize }, () => database.db.execute(sql`select pg_sleep(0.05)`)));

    proxy.blackHole();
    const failed = await Promise.allSettled(
      Array.from({ length: poolSize }, () => database.db.transaction((tx) => tx.execute(sql`select 1`))),
    );
    expect(failed.every((result) => result.status === 'rejected')).toBe(true);

    await proxy.restore();
    // Served by a new connection: none is still held by the failed transactions.
    await expect(database.db.execute(sql`select 1`)).resolves.toBeTruthy();
    await expect(database.db.transaction((tx) => tx.execute(sql`select 1`))).resolves.toBeTruthy();
  });

  it('fails a statement that gets no answer within the timeout, and drops its connection', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const proxy = await startProxyToDatabase(db.url as string);
    const database = openPostgres({ url: proxy.via(db.url as string), poolSize: 2, timeoutMs: 300 });
    // The proxy closed first: a statement still waiting (were the timeout broken) fails, and the pool can end.
    cleanups.push(() => database.close());
    cleanups.push(() => proxy.close());
    await Promise.all([database.db.execute(sql`select 1`), database.db.execute(sql`select 1`)]);

    proxy.blackHole();
    // Both ways a statement is sent: by the pool (a callback), and in a transaction (a promise).
    const [alone, inTransaction] = await Promise.allSettled([
      database.db.execute(sql`select 1`),
      database.db.transaction((tx) => tx.execute(sql`select 2`)),
    ]);
    for (const settled of [alone, inTransaction]) {
      expect(settled.status).toBe('rejected');
      const error = (settled as PromiseRejectedResult).reason;
      expect(isDatabaseUnreachable(error)).toBe(true);
      expect(messagesOf(error)).toContain('Query read timeout');
    }

    await proxy.restore();
    // The connections that timed out were dropped: the pool answers on new ones.
    await expect(database.db.execute(sql`select 3 as n`)).resolves.toMatchObject({ rows: [{ n: 3 }] });
    await expect(database.db.transaction((tx) => tx.execute(sql`select 4`))).resolves.toBeTruthy();
  }, 30_000);
});

/** The messages of an error and of its causes (Drizzle wraps the driver's error). */
function messagesOf(error: unknown): string[] {
  const messages: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) messages.push(e.message);
  return messages;
}
