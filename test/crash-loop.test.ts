import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';
import { createTestDatabase } from './helpers/database.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { requestJson, runCli, type ServerProcess, startServerProcess } from './helpers/process.js';
import { startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// Crash safety (issue 7): real server processes killed with SIGKILL again and again, at random
// moments (a call accepted but not yet ended, a webhook attempt under way, a receiver's answer not
// yet recorded, or while starting), each restarted on the same data. At the end every accepted call
// has ended exactly once, every matching integration has exactly one delivered outcome of it, and
// no request started two calls at the provider.
//
// The seed fixes the plan (the call mix, when calls are placed, which moment each kill waits for
// and its jitter); timing on a busy machine decides the rest. CRASH_LOOP_SEED=<n> replays a plan,
// CRASH_LOOP_LOOPS=<n> runs a longer hunt.

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SEED = process.env.CRASH_LOOP_SEED ? Number(process.env.CRASH_LOOP_SEED) : randomInt(1, 2 ** 31 - 1);
const LOOPS = Number(process.env.CRASH_LOOP_LOOPS ?? 6);
/** A loop takes 5–15 s on two busy cores (most of it a restart); setting up and settling, up to a minute. */
const TEST_TIMEOUT_MS = 60_000 + LOOPS * 20_000;
/** Every agent's calls are closed by the duration sweep this long after they start. */
const MAX_CALL_SECONDS = 4;
/** The shortest `maxDurationSeconds` Vapi takes: the Vapi agent's calls are swept after this. */
const VAPI_MIN_CALL_SECONDS = 10;
/** A Vapi call is swept this long after its maximum duration (decision 0097). */
const REPORT_GRACE_SECONDS = 1;
/** How long a simulated "live" call stays in progress before the simulator ends it. */
const LIVE_DELAY_MS = 1_500;
const VAPI_FROM = '+14155550100';
const VAPI_SECRET = 'vapi_crash_loop_secret_00001';

const CRASH_ENV = {
  SWITCHBOARD_SIGNUP: 'open',
  SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true',
  // Retries come fast, and never run out within the test: a delivery must end delivered.
  SWITCHBOARD_RETRY_SCHEDULE: Array.from({ length: 30 }, () => '0.3').join(','),
  // A claim held by a killed process lapses after this (50 s in production). Well over the slow
  // receiver's answers and the recording of their completion, even on busy cores (3 s was not: on
  // PGlite beside another test run, an attempt recorded late was claimed again by the live process),
  // since a live process must not reclaim an attempt under way.
  SWITCHBOARD_DELIVERY_LEASE_SECONDS: '10',
  SWITCHBOARD_SWEEP_INTERVAL_MS: '200',
  SWITCHBOARD_PUBLISH_INTERVAL_MS: '100',
  // A Vapi call's report is waited for this long past its maximum duration (300 s in production).
  SWITCHBOARD_PROVIDER_REPORT_GRACE_SECONDS: String(REPORT_GRACE_SECONDS),
};

type Engine = 'pglite' | 'postgres';
type AgentKey = 'instant' | 'live' | 'vapi';
/** Where a kill waits for before it strikes. */
type KillMoment = 'call-open' | 'mid-delivery' | 'mid-lease' | 'random';
const KILL_MOMENTS: readonly KillMoment[] = ['call-open', 'mid-delivery', 'mid-lease', 'random'];

/** mulberry32: a small seeded generator, so a failing plan can be replayed. */
function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    /** An integer from min to max, both included. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy;
    },
  };
}
type Rng = ReturnType<typeof seededRandom>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One-shot waits for things the test observes (an answer given, a call accepted), for kills to aim at. */
function createMoments<K extends string>() {
  const waiting = new Map<K, (() => void)[]>();
  return {
    emit(kind: K): void {
      for (const resolve of waiting.get(kind)?.splice(0) ?? []) resolve();
    },
    next(kind: K): Promise<void> {
      return new Promise((resolve) => {
        const list = waiting.get(kind) ?? [];
        list.push(resolve);
        waiting.set(kind, list);
      });
    },
  };
}

const started: ServerProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Receipt {
  /** The integration's path on the receiver. */
  path: string;
  webhookId: string;
  callId: string;
  outcome: string;
  /** What the receiver answered, or was about to answer when the sender died. */
  status: number;
  /** Date.now() when it arrived. */
  at: number;
}

/**
 * The customers' endpoints, one path per integration: `/flaky/…` answers 500 to the first attempt
 * of each webhook and 200 after; `/slow/…` holds each attempt 150–700 ms before its 200.
 */
async function startHooks(random: Rng) {
  const receipts: Receipt[] = [];
  const moments = createMoments<'held' | 'answered'>();
  const seen = new Set<string>();
  const receiver = await startReceiver((request, response) => {
    const webhookId = String(request.headers['webhook-id']);
    const payload = JSON.parse(request.body) as { callId: string; status: string };
    const arrivedAt = Date.now();
    const answer = (status: number) => {
      const receipt = { path: request.url, webhookId, callId: payload.callId, outcome: payload.status, status };
      receipts.push({ ...receipt, at: arrivedAt });
      // Written even when the sender has died meanwhile: the receiver has the webhook either way.
      response.writeHead(status);
      response.end();
      moments.emit('answered');
    };
    if (request.url.startsWith('/flaky/')) {
      const key = `${request.url} ${webhookId}`;
      const first = !seen.has(key);
      seen.add(key);
      answer(first ? 500 : 200);
      return;
    }
    moments.emit('held');
    setTimeout(() => answer(200), random.int(150, 700));
  });
  cleanups.push(() => receiver.close());
  return { url: receiver.url, receipts, moments };
}

interface IntegrationPlan {
  id: string;
  path: string;
  /** Only SOLD outcomes match its trigger conditions. */
  soldOnly: boolean;
}

interface AgentPlan {
  id: string;
  creds: { apiToken: string; apiSecret: string };
  integrations: IntegrationPlan[];
}

/**
 * An organization with three agents, each with two integrations: `instant` (simulated calls that
 * end at once), `live` (simulated calls in progress for LIVE_DELAY_MS), `vapi` (calls placed at the
 * fake Vapi, whose end-of-call reports the test sends as Vapi would). One integration of `live` and
 * of `vapi` takes SOLD outcomes only, so calls a crash cut off (FAILED, timeout) must not reach it.
 */
async function setUp(url: string, hooksUrl: string, vapi: FakeVapi) {
  const signup = await requestJson(`${url}/v1/signup`, {
    method: 'POST',
    body: {
      organization: 'Crash loop',
      email: `l-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse battery',
    },
  });
  expect(signup.status).toBe(201);
  const auth = { authorization: `Bearer ${signup.body.apiKey}` };
  const credential = await requestJson(`${url}/v1/provider-credentials`, {
    method: 'POST',
    headers: auth,
    body: { provider: 'vapi', name: 'Vapi', apiKey: vapi.apiKey, webhookSecret: VAPI_SECRET, baseUrl: vapi.url },
  });
  expect(credential.status).toBe(201);
  const soldOnly = { conditions: [{ field: 'status', operator: 'equals', value: 'SOLD' }] };

  const agent = async (
    key: AgentKey,
    settings: Record<string, unknown>,
    hooks: { path: string; soldOnly: boolean }[],
  ): Promise<AgentPlan> => {
    const created = await requestJson(`${url}/v1/agents`, {
      method: 'POST',
      headers: auth,
      body: {
        name: `Crash ${key}`,
        type: 'click_to_call',
        maxCallDurationSeconds: MAX_CALL_SECONDS,
        rateLimitPerMinute: null,
        ...settings,
      },
    });
    expect(created.status).toBe(201);
    const integrations: IntegrationPlan[] = [];
    for (const hook of hooks) {
      const integration = await requestJson(`${url}/v1/agents/${created.body.id}/integrations`, {
        method: 'POST',
        headers: auth,
        body: { url: `${hooksUrl}${hook.path}`, ...(hook.soldOnly ? { triggerConditions: soldOnly } : {}) },
      });
      expect(integration.status).toBe(201);
      integrations.push({ id: integration.body.id, ...hook });
    }
    const creds = await requestJson(`${url}/v1/agents/${created.body.id}/credentials`, { headers: auth });
    return { id: created.body.id, creds: creds.body, integrations };
  };

  const sold = { turns: [{ role: 'user', text: 'Yes' }], outcome: { status: 'SOLD' } };
  const agents: Record<AgentKey, AgentPlan> = {
    instant: await agent('instant', { simulator: sold }, [
      { path: '/flaky/instant', soldOnly: false },
      { path: '/slow/instant', soldOnly: false },
    ]),
    live: await agent('live', { simulator: { ...sold, delayMs: LIVE_DELAY_MS } }, [
      { path: '/slow/live', soldOnly: false },
      { path: '/flaky/live-sold', soldOnly: true },
    ]),
    vapi: await agent(
      'vapi',
      {
        provider: 'vapi',
        providerCredentialId: credential.body.id,
        fromNumber: VAPI_FROM,
        prompt: 'Sell.',
        firstMessage: 'Hi!',
        // Vapi's own shortest maximum duration (its published schema refuses less when the agent is saved).
        maxCallDurationSeconds: VAPI_MIN_CALL_SECONDS,
      },
      [
        { path: '/flaky/vapi', soldOnly: false },
        { path: '/slow/vapi-sold', soldOnly: true },
      ],
    ),
  };
  await until(
    'the Vapi agent published',
    async () => {
      const read = await requestJson(`${url}/v1/agents/${agents.vapi.id}`, { headers: auth });
      return read.body.providerSync?.state === 'synced' ? true : undefined;
    },
    30_000,
  );
  return { auth, agents };
}

/**
 * Vapi's side of its calls: each call the fake Vapi was asked to place ends with an end-of-call
 * report (SOLD) sent 400–2000 ms later to whichever process is up then. A report that finds no
 * process up is, for about half the calls, sent again every 200 ms until one answers (so it may
 * come after the sweep closed the call); for the others it is lost, and the sweep must close the call.
 */
function playVapi(vapi: FakeVapi, currentUrl: () => string | undefined, random: Rng) {
  const scheduled = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  /** Per our call id: when a report was answered 200. */
  const reported = new Map<string, number>();
  /** Reports answered otherwise than 200: a provider would take that as a failure of ours. */
  const refused: string[] = [];
  let lost = 0;
  let stopped = false;
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, ms);
    timers.add(timer);
  };
  const send = async (vapiCallId: string, callId: string, persistent: boolean) => {
    const url = currentUrl();
    const at = new Date();
    let answered: { status: number; body: unknown } | undefined;
    if (url) {
      answered = await requestJson(`${url}/providers/vapi/webhook`, {
        method: 'POST',
        headers: { 'x-vapi-secret': VAPI_SECRET },
        body: {
          message: {
            type: 'end-of-call-report',
            endedReason: 'customer-ended-call',
            startedAt: new Date(at.getTime() - 1000).toISOString(),
            endedAt: at.toISOString(),
            call: { id: vapiCallId, assistantOverrides: { metadata: { switchboardCallId: callId } } },
            artifact: { messages: [{ role: 'user', message: 'Yes', time: at.getTime(), secondsFromStart: 1 }] },
            analysis: { structuredData: { status: 'SOLD' } },
          },
        },
      }).catch(() => undefined); // the process died under the report
    }
    if (answered?.status === 200) reported.set(callId, Date.now());
    else if (answered) refused.push(`${callId}: ${answered.status} ${JSON.stringify(answered.body)}`);
    else if (persistent) later(200, () => void send(vapiCallId, callId, persistent));
    else lost++;
  };
  const scan = setInterval(() => {
    for (const [vapiCallId, call] of vapi.calls) {
      if (scheduled.has(vapiCallId)) continue;
      scheduled.add(vapiCallId);
      const callId = String(call.assistantOverrides?.metadata?.switchboardCallId);
      const persistent = random.next() < 0.5;
      later(random.int(400, 2000), () => void send(vapiCallId, callId, persistent));
    }
  }, 25);
  return {
    reported,
    refused,
    get lost() {
      return lost;
    },
    stop() {
      stopped = true;
      clearInterval(scan);
      for (const timer of timers) clearTimeout(timer);
    },
  };
}

/** One signed click-to-call request as the test sent it, and what became of it. */
interface SentRequest {
  loop: number;
  agent: AgentKey;
  phone: string;
  idempotencyKey: string | undefined;
  /** Date.now() when it was sent. */
  sentAt: number;
  answer?: { status: number; code?: string; callId?: string; replayed: boolean };
  /** It got no answer: the process died under it. */
  unanswered?: boolean;
  /** The same request sent again (same key, same body) after a restart. */
  retry?: SentRequest;
}

let phoneCounter = 0;

/** Sends `request`'s exact signed bytes; records the answer, or that none came. */
async function clickToCall(url: string, agent: AgentPlan, request: SentRequest): Promise<void> {
  const body = JSON.stringify({ phone: request.phone, variables: { name: 'Ada' } });
  try {
    const response = await fetch(`${url}/api/click-to-call`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'api-key': agent.creds.apiToken,
        signature: createHmac('sha256', agent.creds.apiSecret).update(body).digest('hex'),
        ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey } : {}),
      },
      body,
    });
    const answer = (await response.json()) as { callId?: string; code?: string };
    request.answer = {
      status: response.status,
      code: answer.code,
      callId: answer.callId,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    request.unanswered = true;
  }
}

/** A call as `GET /v1/calls` shows it: the parts checked here. */
interface CallSeen {
  id: string;
  agentId: string;
  provider: string;
  providerCallId: string | null;
  to: string;
  status: string;
  outcome: string | null;
  endedReason: string | null;
  startedAt: string;
  endedAt: string;
  deliveries: { integrationId: string; webhookId: string; state: string }[];
}

interface KillRecord {
  loop: number;
  moment: KillMoment | 'while-starting';
  /** The moment never came before the deadline: killed then instead. */
  fallback: boolean;
  /** Date.now() at the kill. */
  at: number;
  detail: string;
}

interface Summary {
  engine: Engine;
  seed: number;
  loops: number;
  kills: Record<string, number>;
  killFallbacks: number;
  requestsSent: number;
  requestsUnanswered: number;
  retriesAfterRestart: number;
  retriesReplayed: number;
  retriesInProgress: number;
  callsAccepted: number;
  callsInDatabase: number;
  closedBySweep: number;
  acceptedLiveCallsCutByCrash: number;
  vapiCallsPlaced: number;
  /** Vapi calls ended by their end-of-call report (the others were closed by the sweep). */
  vapiCallsEndedByReport: number;
  vapiReportsLost: number;
  simulatorCallsWithoutProviderId: number;
  deliveriesDelivered: number;
  webhookReceipts: number;
  duplicateReceipts: number;
  /** Of those, repeats no kill explains (expected 0). */
  duplicateReceiptsWithoutKill: number;
  runtimeMs: number;
}

/** What one engine's crash loop left: what the test sent and saw, and the calls as the API reads them at the end. */
interface CrashRun {
  engine: Engine;
  agents: Record<AgentKey, AgentPlan>;
  requests: SentRequest[];
  kills: KillRecord[];
  calls: CallSeen[];
  receipts: Receipt[];
  vapi: FakeVapi;
  vapiPlayer: ReturnType<typeof playVapi>;
  runtimeMs: number;
}

/**
 * LOOPS times: start `switchboard serve` on the data (some loops first kill a process while it
 * starts), retry the requests the last kill left unanswered, send a burst of calls, SIGKILL the
 * process at the loop's moment. Then a last process, left alone until every call has ended and no
 * delivery is pending.
 */
async function runCrashLoop(engine: Engine, dataEnv: Record<string, string>): Promise<CrashRun> {
  const began = Date.now();
  const plan = seededRandom(SEED);
  const hooks = await startHooks(seededRandom(SEED ^ 0x5bd1e995));
  const vapi = await startFakeVapi({ phoneNumbers: [VAPI_FROM] });
  cleanups.push(() => vapi.close());
  const env = { ...CRASH_ENV, ...dataEnv };
  const log = (line: string) => console.log(`[crash-loop ${engine} seed=${SEED}] ${line}`);

  /** The process up now, if any: where Vapi's reports go. */
  let up: ServerProcess | undefined;
  const boot = async () => {
    const child = await startServerProcess(env);
    started.push(child);
    up = child;
    return child;
  };
  let server = await boot();
  const { auth, agents } = await setUp(server.url, hooks.url, vapi);
  const vapiPlayer = playVapi(vapi, () => up?.url, seededRandom(SEED ^ 0x27d4eb2f));

  const requests: SentRequest[] = [];
  const kills: KillRecord[] = [];
  // Each moment in turn, in a seeded order, so every kind is aimed at within four loops.
  const moments = plan.shuffle(KILL_MOMENTS);

  const newRequest = (loop: number, agent: AgentKey): SentRequest => ({
    loop,
    agent,
    phone: `+1415557${String(phoneCounter++).padStart(4, '0')}`,
    // Half the requests carry a key, so both ways of accepting a call are crashed (decision 0003).
    idempotencyKey: plan.next() < 0.5 ? `crash-${SEED}-${phoneCounter}` : undefined,
    sentAt: 0,
  });

  /** The same request again, after a restart: a client that got no answer retries with its key. */
  const retryUnanswered = async (url: string, loop: number) => {
    const pending = requests.filter((r) => r.unanswered && r.idempotencyKey && !r.retry);
    await Promise.all(
      pending.map(async (first) => {
        const retry: SentRequest = { ...first, loop, sentAt: Date.now(), unanswered: undefined, answer: undefined };
        first.retry = retry;
        await clickToCall(url, agents[first.agent], retry);
      }),
    );
  };

  let killedWhileStarting = false;
  for (let loop = 0; loop < LOOPS; loop++) {
    if (loop > 0) {
      // A process may die before it is up, too: while migrating or reopening the data.
      if (plan.next() < 0.4 || (loop === LOOPS - 1 && !killedWhileStarting)) {
        killedWhileStarting = true;
        const afterMs = plan.int(300, 2500);
        const port = await freePort();
        const booting = runCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
        await sleep(afterMs);
        booting.child.kill('SIGKILL');
        await booting.exited;
        kills.push({ loop, moment: 'while-starting', fallback: false, at: Date.now(), detail: `${afterMs} ms in` });
      }
      const booting = Date.now();
      server = await boot();
      log(`loop ${loop}: restarted in ${Date.now() - booting} ms`);
    }
    const url = server.url;
    await retryUnanswered(url, loop);

    // A burst of calls over 1.3 s and a kill aimed at one moment of it, not before `earliest` ms:
    // by then part of the burst is out. Two live calls come after `earliest`, for `call-open`.
    const moment = moments[loop % moments.length] as KillMoment;
    const earliest = plan.int(300, 900);
    let killed = false;
    const loopAccepted = createMoments<'live'>();
    const burst: Promise<void>[] = [];
    const count = plan.int(8, 14);
    for (let i = 0; i < count; i++) {
      const roll = plan.next();
      const agent: AgentKey = i < 2 ? 'live' : roll < 0.35 ? 'instant' : roll < 0.6 ? 'live' : 'vapi';
      const request = newRequest(loop, agent);
      const delay = i < 2 ? plan.int(earliest, 1300) : plan.int(0, 1200);
      burst.push(
        sleep(delay).then(async () => {
          if (killed) return;
          request.sentAt = Date.now();
          requests.push(request);
          await clickToCall(url, agents[agent], request);
          if (agent === 'live' && request.answer?.status === 200) loopAccepted.emit('live');
        }),
      );
    }
    const jitter = plan.int(0, 600);
    const aim: Record<KillMoment, { wait: () => Promise<void>; jitterMs: number; detail: string }> = {
      // Between a call's acceptance and its outcome: the live call is still in progress.
      'call-open': {
        wait: () => loopAccepted.next('live'),
        jitterMs: jitter % 150,
        detail: 'after a live call was accepted',
      },
      // A webhook attempt under way: the slow receiver holds each at least 150 ms.
      'mid-delivery': {
        wait: () => hooks.moments.next('held'),
        jitterMs: jitter % 60,
        detail: 'after an attempt reached the slow receiver',
      },
      // The receiver has answered, its completion is not recorded yet: the claim stays leased.
      'mid-lease': {
        wait: () => hooks.moments.next('answered'),
        jitterMs: jitter % 8,
        detail: 'after a receiver answered',
      },
      random: { wait: async () => {}, jitterMs: jitter, detail: `after the burst's first ${earliest} ms` },
    };
    const target = aim[moment];
    await sleep(earliest);
    const came = await Promise.race([target.wait().then(() => true), sleep(5_000).then(() => false)]);
    if (came) await sleep(target.jitterMs);
    killed = true;
    up = undefined;
    await server.stop('SIGKILL');
    kills.push({
      loop,
      moment,
      fallback: !came,
      // Taken once the process is gone: a call sent before this is judged against a kill no earlier than it was.
      at: Date.now(),
      detail: came ? `${target.jitterMs} ms ${target.detail}` : 'at the deadline: the moment never came',
    });
    await Promise.all(burst);
    const mine = requests.filter((r) => r.loop === loop);
    log(
      `loop ${loop}: ${mine.length} requests, ${mine.filter((r) => r.answer?.status === 200).length} accepted, ` +
        `killed ${kills.at(-1)?.detail} (${moment})`,
    );
  }

  // The last restart: nothing kills it. Everything the crashes left must now settle by itself.
  const settling = Date.now();
  server = await boot();
  const url = server.url;
  await retryUnanswered(url, LOOPS);

  const allCalls = async () => {
    const calls: CallSeen[] = [];
    let cursor: string | null = null;
    do {
      const page = await requestJson(`${url}/v1/calls?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: auth,
      });
      expect(page.status).toBe(200);
      calls.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    return calls;
  };
  await until('every call ended', async () => (await allCalls()).every((call) => call.status === 'ended'), 40_000, 200);
  vapiPlayer.stop();
  await until(
    'no delivery pending',
    async () => {
      const pending = await requestJson(`${url}/v1/deliveries?state=pending&limit=1`, { headers: auth });
      return pending.body.data.length === 0;
    },
    40_000,
    200,
  );
  const calls = await allCalls();
  log(`restarted and settled in ${Date.now() - settling} ms`);
  up = undefined;
  await server.stop('SIGTERM');

  return {
    engine,
    agents,
    requests,
    kills,
    calls,
    receipts: hooks.receipts,
    vapi,
    vapiPlayer,
    runtimeMs: Date.now() - began,
  };
}

/** Requests with their retries, those that got an answer, and those answered 200. */
function answersOf(requests: SentRequest[]) {
  const answered = requests.flatMap((r) => [r, ...(r.retry ? [r.retry] : [])]).filter((r) => r.answer);
  return { answered, accepted: answered.filter((r) => r.answer?.status === 200) };
}

/** Accepted live calls that a kill struck before the simulator could have ended them. */
function liveCallsCutByKill({ requests, kills }: CrashRun): SentRequest[] {
  return answersOf(requests).accepted.filter((r) => {
    if (r.agent !== 'live') return false;
    // A replayed answer is the first request's call: started when that request was sent.
    const origin = (r.answer?.replayed && requests.find((q) => q.retry === r)) || r;
    const kill = kills.find((k) => k.loop === origin.loop && k.moment !== 'while-starting');
    // The simulator ends a live call LIVE_DELAY_MS after it starts, which is after it was sent.
    return kill !== undefined && kill.at < origin.sentAt + LIVE_DELAY_MS - 50;
  });
}

/** Receipts by webhook id. */
function receiptsByWebhook(receipts: Receipt[]): Map<string, Receipt[]> {
  const byId = new Map<string, Receipt[]>();
  for (const receipt of receipts) byId.set(receipt.webhookId, [...(byId.get(receipt.webhookId) ?? []), receipt]);
  return byId;
}

/**
 * Webhooks a receiver took (answered 200) more than once, each extra receipt with whether a kill
 * came between its arrival and the one before's: at-least-once allows a repeat after a crash.
 */
function duplicateReceipts({ receipts, kills }: CrashRun): { receipt: Receipt; afterKill: boolean }[] {
  const repeats: { receipt: Receipt; afterKill: boolean }[] = [];
  for (const list of receiptsByWebhook(receipts).values()) {
    const taken = list.filter((r) => r.status === 200);
    for (const [i, receipt] of taken.entries()) {
      const before = taken[i - 1];
      if (!before) continue;
      repeats.push({ receipt, afterKill: kills.some((k) => k.at >= before.at && k.at <= receipt.at) });
    }
  }
  return repeats;
}

/** Everything that must hold after the crashes, as sentences; empty when all of it holds. */
function findProblems(run: CrashRun): string[] {
  const { requests, calls, vapi, vapiPlayer, agents } = run;
  const problems: string[] = [];
  const callsById = new Map(calls.map((call) => [call.id, call]));
  const agentOf = new Map(Object.values(agents).map((agent) => [agent.id, agent]));
  const { answered, accepted } = answersOf(requests);

  for (const r of answered) {
    const ok =
      r.answer?.status === 200 || (r.idempotencyKey && r.answer?.status === 409 && r.answer.code === 'ctc:012');
    if (!ok) problems.push(`request for ${r.phone} answered ${r.answer?.status} ${r.answer?.code}`);
  }

  // Every accepted call, and every call the crashes left behind, reached one terminal state.
  for (const r of accepted) {
    if (!callsById.has(r.answer?.callId as string)) problems.push(`accepted call ${r.answer?.callId} is missing`);
  }
  for (const call of calls) {
    if (call.status !== 'ended' || !call.outcome || !call.endedReason || !call.endedAt) {
      problems.push(`call ${call.id} did not end: ${call.status} ${call.outcome} ${call.endedReason}`);
    }
    // The sweep closes a call only once its time is up. On the embedded database, a simulated call
    // whose process a kill ended is closed by the next process as it starts (decision 0085): a kill
    // came between its start and its end.
    if (call.endedReason === 'timeout') {
      const lasted = Date.parse(call.endedAt) - Date.parse(call.startedAt);
      const closedAtRestart =
        run.engine === 'pglite' &&
        call.provider === 'simulator' &&
        run.kills.some((kill) => kill.at > Date.parse(call.startedAt) && kill.at < Date.parse(call.endedAt));
      // A provider call waits past its maximum for its report (decision 0097).
      const earliest = call.provider === 'simulator' ? MAX_CALL_SECONDS : VAPI_MIN_CALL_SECONDS + REPORT_GRACE_SECONDS;
      if (lasted < earliest * 1000 && !closedAtRestart) {
        problems.push(`call ${call.id} (${call.provider}) was swept after ${lasted} ms`);
      }
    }
  }

  // One request, one call: a retry with the same key, or a restart, never started a second one.
  const callsPerPhone = new Map<string, number>();
  for (const call of calls) callsPerPhone.set(call.to, (callsPerPhone.get(call.to) ?? 0) + 1);
  for (const [phone, n] of callsPerPhone) if (n > 1) problems.push(`${n} calls to ${phone}, placed by one request`);

  // No call started twice at the provider.
  const vapiPosts = vapi.requests.filter((q) => q.route === 'POST /call');
  const postsPerCall = new Map<string, number>();
  const postsPerPhone = new Map<string, number>();
  for (const post of vapiPosts) {
    const callId = String(post.body?.assistantOverrides?.metadata?.switchboardCallId);
    postsPerCall.set(callId, (postsPerCall.get(callId) ?? 0) + 1);
    const phone = String(post.body?.customer?.number);
    postsPerPhone.set(phone, (postsPerPhone.get(phone) ?? 0) + 1);
    if (!callsById.has(callId)) problems.push(`Vapi was asked to place ${callId}, which we do not know`);
  }
  for (const [id, n] of postsPerCall) if (n > 1) problems.push(`call ${id} was placed at Vapi ${n} times`);
  for (const [phone, n] of postsPerPhone) if (n > 1) problems.push(`${phone} was called at Vapi ${n} times`);
  for (const r of accepted.filter((a) => a.agent === 'vapi')) {
    const callId = r.answer?.callId as string;
    if (postsPerCall.get(callId) !== 1)
      problems.push(`accepted Vapi call ${callId} was placed ${postsPerCall.get(callId) ?? 0} times`);
    const vapiCall = [...vapi.calls.values()].find((c) => c.assistantOverrides?.metadata?.switchboardCallId === callId);
    const providerCallId = callsById.get(callId)?.providerCallId;
    if (providerCallId && providerCallId !== vapiCall?.id)
      problems.push(`call ${callId} has provider id ${providerCallId}`);
  }
  const providerIds = calls.map((call) => call.providerCallId).filter(Boolean);
  if (new Set(providerIds).size !== providerIds.length) problems.push('two calls share a provider call id');
  for (const call of calls) {
    // A simulated call that the simulator itself ended always has its provider id (decision 0009).
    if (call.provider === 'simulator' && call.endedReason === 'agent_hangup' && !call.providerCallId) {
      problems.push(`simulated call ${call.id} ended by its report without a provider id`);
    }
  }

  // A Vapi report we were answered 200 for ended its call, unless the sweep had closed it before.
  for (const refusal of vapiPlayer.refused) problems.push(`Vapi's report refused: ${refusal}`);
  for (const [callId, answeredAt] of vapiPlayer.reported) {
    const call = callsById.get(callId);
    if (call && call.endedReason !== 'customer-ended-call' && Date.parse(call.endedAt) > answeredAt) {
      problems.push(`Vapi's report for ${callId} was acknowledged, yet the call ended ${call.endedReason} later`);
    }
  }

  // Live calls a kill struck before the simulator could end them are closed by the sweep.
  for (const r of liveCallsCutByKill(run)) {
    const call = callsById.get(r.answer?.callId as string);
    if (call?.endedReason !== 'timeout') {
      problems.push(`live call ${r.answer?.callId}, cut by a kill, ended ${call?.endedReason} instead of timeout`);
    }
  }

  // Exactly one delivered outcome per call and matching integration; none for the others.
  const receiptsById = receiptsByWebhook(run.receipts);
  for (const call of calls) {
    const agent = agentOf.get(call.agentId);
    if (!agent) continue;
    for (const integration of agent.integrations) {
      const matching = !integration.soldOnly || call.outcome === 'SOLD';
      const mine = call.deliveries.filter((d) => d.integrationId === integration.id);
      if (!matching) {
        if (mine.length > 0) problems.push(`call ${call.id} (${call.outcome}) was delivered to ${integration.path}`);
        continue;
      }
      const [only] = mine;
      if (!only || mine.length !== 1 || only.state !== 'delivered') {
        problems.push(
          `call ${call.id} has ${mine.map((d) => d.state).join(',') || 'no deliveries'} for ${integration.path}`,
        );
        continue;
      }
      const received = receiptsById.get(only.webhookId) ?? [];
      if (!received.some((r) => r.status === 200 && r.path === integration.path)) {
        problems.push(`call ${call.id}'s webhook ${only.webhookId} never reached ${integration.path}`);
      }
      for (const r of received) {
        if (r.callId !== call.id || r.outcome !== call.outcome || r.path !== integration.path) {
          problems.push(`webhook ${r.webhookId} carried ${r.callId}/${r.outcome} to ${r.path}`);
        }
      }
    }
  }
  // At-least-once: a receiver may take a webhook again, but only because a process died meanwhile.
  for (const { receipt, afterKill } of duplicateReceipts(run)) {
    if (!afterKill) problems.push(`webhook ${receipt.webhookId} reached ${receipt.path} again with no kill between`);
  }
  return problems;
}

function summarize(run: CrashRun): Summary {
  const { requests, kills, calls } = run;
  const kinds: Record<string, number> = {};
  for (const kill of kills) kinds[kill.moment] = (kinds[kill.moment] ?? 0) + 1;
  const duplicates = duplicateReceipts(run);
  return {
    engine: run.engine,
    seed: SEED,
    loops: LOOPS,
    kills: kinds,
    killFallbacks: kills.filter((k) => k.fallback).length,
    requestsSent: requests.length,
    requestsUnanswered: requests.filter((r) => r.unanswered).length,
    retriesAfterRestart: requests.filter((r) => r.retry).length,
    retriesReplayed: requests.filter((r) => r.retry?.answer?.replayed).length,
    retriesInProgress: requests.filter((r) => r.retry?.answer?.code === 'ctc:012').length,
    callsAccepted: answersOf(requests).accepted.length,
    callsInDatabase: calls.length,
    closedBySweep: calls.filter((call) => call.endedReason === 'timeout').length,
    acceptedLiveCallsCutByCrash: liveCallsCutByKill(run).length,
    vapiCallsPlaced: run.vapi.requests.filter((q) => q.route === 'POST /call').length,
    vapiCallsEndedByReport: calls.filter((c) => c.endedReason === 'customer-ended-call').length,
    vapiReportsLost: run.vapiPlayer.lost,
    simulatorCallsWithoutProviderId: calls.filter((c) => c.provider === 'simulator' && !c.providerCallId).length,
    deliveriesDelivered: calls.flatMap((c) => c.deliveries).filter((d) => d.state === 'delivered').length,
    webhookReceipts: run.receipts.length,
    duplicateReceipts: duplicates.length,
    duplicateReceiptsWithoutKill: duplicates.filter((d) => !d.afterKill).length,
    runtimeMs: run.runtimeMs,
  };
}

/** The figures for the docs: one line on the console, and test-results/crash-loop-<engine>.json. */
function report(summary: Summary): void {
  mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
  writeFileSync(
    path.join(ROOT, 'test-results', `crash-loop-${summary.engine}.json`),
    `${JSON.stringify(summary, null, 2)}\n`,
  );
  const kills = Object.entries(summary.kills).map(([moment, n]) => `${moment} ${n}`);
  console.log(
    `crash-loop ${summary.engine} seed=${summary.seed}: survived ${summary.loops} loops ` +
      `(${kills.join(', ')}), ${summary.callsAccepted} calls accepted of ${summary.requestsSent} requests ` +
      `(${summary.requestsUnanswered} cut off unanswered, ${summary.retriesAfterRestart} retried), ` +
      `${summary.closedBySweep} closed by the sweep (${summary.acceptedLiveCallsCutByCrash} accepted live calls cut by a kill), ` +
      `${summary.deliveriesDelivered} outcomes delivered once each, ${summary.duplicateReceipts} duplicate webhook receipts, ` +
      `${Math.round(summary.runtimeMs / 1000)} s`,
  );
}

/** Runs the loop on one engine, reports its figures, then asserts. */
async function crashLoop(engine: Engine, dataEnv: Record<string, string>): Promise<void> {
  const run = await runCrashLoop(engine, dataEnv);
  report(summarize(run));
  expect(findProblems(run)).toEqual([]);
  // The kills did strike calls in progress (else the sweep's part above was checked on nothing).
  expect(liveCallsCutByKill(run).length).toBeGreaterThan(0);
}

describe('crash loop: SIGKILL at random moments, restart on the same data', () => {
  it(
    `on the embedded database (seed ${SEED})`,
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-crash-loop-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      await crashLoop('pglite', { SWITCHBOARD_DATA_DIR: dataDir });
    },
    TEST_TIMEOUT_MS,
  );

  it.runIf(process.env.TEST_DATABASE_URL)(
    `on PostgreSQL (seed ${SEED})`,
    async () => {
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      await crashLoop('postgres', {
        DATABASE_URL: db.url as string,
        SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      });
    },
    TEST_TIMEOUT_MS,
  );
});
