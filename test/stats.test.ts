// GET /v1/stats (issue 18, section 1; decision 0040): known calls give known counts per interval and
// in total, per agent, on time zone edges, with empty intervals; the same figures once the quarter
// hours are rolled up; validation and tenancy. Run on PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { newId } from '../src/lib/ids.js';
import { retellDisposition } from '../src/providers/retell/retell-mapper.js';
import { vapiDisposition } from '../src/providers/vapi/vapi-mapper.js';
import { UNANSWERED_REASONS } from '../src/stats/call-results.js';
import { bucketValue, createStatsRepository, ROLLUP_LOCK } from '../src/stats/stats.repository.js';
import { liveRanges, percentileOf } from '../src/stats/stats.service.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;
let stranger: Org;

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  stranger = await t.signup();
});
afterAll(async () => {
  await t.close();
});

const get = (path: string, as: Org = org) => t.request('GET', path, { headers: as.auth });

const zero = {
  calls: 0,
  byOutcome: {},
  results: { answered: 0, noAnswer: 0, busy: 0, voicemail: 0, failed: 0, open: 0 },
  conversion: {},
  duration: { averageSeconds: null, p90Seconds: null },
  tools: { runs: 0, succeeded: 0, failed: 0, successRate: null, p50LatencyMs: null, p95LatencyMs: null },
  deliveries: { delivered: 0, failed: 0, pending: 0 },
};

interface SeededCall {
  createdAt: string;
  status?: string;
  outcome?: string | null;
  endedReason?: string | null;
  answered?: boolean;
  durationSeconds?: number | null;
  tools?: { latencyMs: number; error?: string }[];
  deliveries?: string[];
}

/**
 * Calls at given times, with their tool runs and deliveries: the public path cannot create a call
 * in the past, nor end one with a provider's own reason.
 */
async function seed(as: Org, agentId: string, integrationId: string, calls: SeededCall[]): Promise<string[]> {
  const { db } = t.db.database;
  const ids: string[] = [];
  for (const call of calls) {
    const id = newId('call');
    ids.push(id);
    const status = call.status ?? 'ended';
    await db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, outcome, ended_reason,
        variables, collected_data, transcript, created_at, answered_at, ended_at, duration_seconds, deadline_at)
      values (${id}, ${as.organization.id}, ${agentId}, 'simulator', ${nextPhone()}, ${status}, ${call.outcome ?? null},
        ${call.endedReason ?? null}, '{}', '{}', '[]', ${call.createdAt}::timestamptz,
        ${call.answered ? call.createdAt : null}::timestamptz,
        ${status === 'ended' ? call.createdAt : null}::timestamptz, ${call.durationSeconds ?? null},
        ${call.createdAt}::timestamptz + interval '1 hour')`);
    for (const run of call.tools ?? []) {
      await db.execute(sql`
        insert into tool_invocations (id, organization_id, call_id, tool_name, arguments, result, error, latency_ms, created_at)
        values (${newId('tinv')}, ${as.organization.id}, ${id}, 'lookup', '{}', 'ok', ${run.error ?? null},
          ${run.latencyMs}, ${call.createdAt}::timestamptz)`);
    }
    for (const state of call.deliveries ?? []) {
      await db.execute(sql`
        insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, created_at)
        values (${newId('dlv')}, ${as.organization.id}, ${integrationId}, ${id}, ${newId('msg')}, ${state},
          ${call.createdAt}::timestamptz)`);
    }
  }
  return ids;
}

async function agentWithIntegration(as: Org, name: string): Promise<{ agentId: string; integrationId: string }> {
  const agent = await t.createAgent(as, { name, type: 'outbound' });
  const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
    headers: as.auth,
    body: { url: 'https://hooks.example.com/stats' },
  });
  expect(integration.status).toBe(201);
  return { agentId: agent.id, integrationId: integration.body.id };
}

describe('the reasons of unanswered calls', () => {
  it("are each provider's own words for them, as its mapper reads them", () => {
    const simulator = { noAnswer: 'no_answer', busy: 'busy', voicemail: 'voicemail' } as const;
    const disposition = { noAnswer: 'NO_ANSWER', busy: 'BUSY', voicemail: 'VOICEMAIL' } as const;
    for (const kind of ['noAnswer', 'busy', 'voicemail'] as const) {
      for (const reason of UNANSWERED_REASONS[kind]) {
        const read = [vapiDisposition(reason), retellDisposition(reason)];
        expect(reason === simulator[kind] || read.includes(disposition[kind]), `${kind}: ${reason}`).toBe(true);
      }
    }
  });
});

describe('percentiles and live ranges', () => {
  it('reads a percentile by nearest rank', () => {
    expect(percentileOf([1, 2, 3, 4], [1, 1, 1, 1], 0.5)).toBe(2);
    expect(percentileOf([1, 2, 3, 4], [1, 1, 1, 1], 0.9)).toBe(4);
    expect(percentileOf([5], [3], 0.95)).toBe(5);
    expect(percentileOf([], [], 0.5)).toBeNull();
    expect(percentileOf(null, null, 0.5)).toBeNull();
  });

  it("gives each histogram bucket the value the database's switchboard_stats_bucket_value gives it", async () => {
    // Buckets 0 to 231 are every value an integer column holds (below 2^31).
    const rows = rowsOf<{ b: number; v: number }>(
      await t.db.database.db.execute(
        sql`select b, switchboard_stats_bucket_value(b) as v from generate_series(0, 231) b order by b`,
      ),
    );
    expect(rows).toHaveLength(232);
    for (const { b, v } of rows) expect(bucketValue(b), `bucket ${b}`).toBe(Number(v));
  });

  it('reads what is not rolled up from the calls, around the quarter hours that are', () => {
    const at = (iso: string) => Date.parse(iso);
    expect(
      liveRanges('2026-01-01T00:10:00.000Z', '2026-01-01T01:05:00.000Z', [
        at('2026-01-01T00:15:00Z'),
        at('2026-01-01T00:30:00Z'),
        at('2026-01-01T00:45:00Z'),
      ]),
    ).toEqual([
      ['2026-01-01T00:10:00.000Z', '2026-01-01T00:15:00.000Z'],
      ['2026-01-01T01:00:00.000Z', '2026-01-01T01:05:00.000Z'],
    ]);
    expect(liveRanges('2026-01-01T00:00:00.000Z', '2026-01-01T00:15:00.000Z', [at('2026-01-01T00:00:00Z')])).toEqual(
      [],
    );
  });
});

describe('GET /v1/stats: calls placed through the API', () => {
  it('counts them in today, per agent, and nowhere for another organization', async () => {
    const seller = await t.createAgent(org, {
      name: 'Seller',
      type: 'outbound',
      outcomes: ['SOLD'],
      simulator: { outcome: { status: 'SOLD' }, durationSeconds: 12 },
    });
    const busy = await t.createAgent(org, { name: 'Busy line', type: 'outbound', simulator: { answer: 'busy' } });
    for (const agentId of [seller.id, seller.id, busy.id]) {
      const placed = await t.request('POST', '/v1/calls', {
        headers: org.auth,
        body: { agentId, phone: nextPhone() },
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      await t.waitForCall(org, placed.body.id);
    }

    const all = await get('/v1/stats');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    // Seven days back from now, by the day in UTC: 8 dates, the last one today's.
    expect(all.body).toMatchObject({ interval: 'day', timezone: 'UTC', agentId: null });
    expect(Date.parse(all.body.to) - Date.parse(all.body.from)).toBe(7 * 24 * 3600 * 1000);
    expect(all.body.intervals).toHaveLength(8);
    expect(all.body.intervals.slice(0, 7).map(({ start, ...bucket }: { start: string }) => bucket)).toEqual(
      Array(7).fill(zero),
    );
    const expected = {
      ...zero,
      calls: 3,
      byOutcome: { SOLD: 2, BUSY: 1 },
      results: { ...zero.results, answered: 2, busy: 1 },
      conversion: { SOLD: 1 },
      duration: { averageSeconds: 12, p90Seconds: 12 },
    };
    expect(all.body.totals).toEqual(expected);
    expect(all.body.intervals[7]).toEqual({
      start: `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`,
      ...expected,
    });

    const one = await get(`/v1/stats?agentId=${busy.id}`);
    expect(one.body.agentId).toBe(busy.id);
    expect(one.body.totals).toEqual({
      ...zero,
      calls: 1,
      byOutcome: { BUSY: 1 },
      results: { ...zero.results, busy: 1 },
    });

    const theirs = await get('/v1/stats', stranger);
    expect(theirs.status).toBe(200);
    expect(theirs.body.totals).toEqual(zero);
    // Another organization's agent is not found, as everywhere else.
    const foreign = await get(`/v1/stats?agentId=${seller.id}`, stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('api:not_found');
    expect((await get('/v1/stats?agentId=agt_nothing')).status).toBe(404);
  });
});

describe('GET /v1/stats: calls of given times', () => {
  let own: Org;
  let first: { agentId: string; integrationId: string };
  let second: { agentId: string; integrationId: string };

  // Europe/Paris moves its clocks forward on 2026-03-29 at 01:00 UTC: that day has 23 hours.
  const period = 'from=2026-03-27T23:00:00Z&to=2026-03-30T22:00:00Z&interval=day&timezone=Europe/Paris';
  const starts = ['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'];
  const march28 = {
    ...zero,
    calls: 2,
    byOutcome: { SOLD: 1, BUSY: 1 },
    results: { ...zero.results, answered: 1, busy: 1 },
    conversion: { SOLD: 1 },
    duration: { averageSeconds: 10, p90Seconds: 10 },
    tools: { runs: 2, succeeded: 2, failed: 0, successRate: 1, p50LatencyMs: 5, p95LatencyMs: 9 },
    deliveries: { delivered: 1, failed: 0, pending: 0 },
  };
  const march29 = {
    ...zero,
    calls: 3,
    byOutcome: { NO_ANSWER: 1, NOT_INTERESTED: 1, VOICEMAIL: 1 },
    results: { ...zero.results, answered: 1, noAnswer: 1, voicemail: 1 },
    conversion: { NOT_INTERESTED: 1 },
    duration: { averageSeconds: 14, p90Seconds: 14 },
    tools: { runs: 1, succeeded: 0, failed: 1, successRate: 0, p50LatencyMs: 7, p95LatencyMs: 7 },
    deliveries: { delivered: 0, failed: 1, pending: 1 },
  };
  const march30 = {
    ...zero,
    calls: 1,
    byOutcome: { FAILED: 1 },
    results: { ...zero.results, failed: 1 },
  };

  beforeAll(async () => {
    own = await t.signup();
    first = await agentWithIntegration(own, 'First');
    second = await agentWithIntegration(own, 'Second');
    await seed(own, first.agentId, first.integrationId, [
      // The last second of 28 March in Paris (UTC+1).
      {
        createdAt: '2026-03-28T22:59:59Z',
        outcome: 'SOLD',
        endedReason: 'customer-ended-call',
        answered: true,
        durationSeconds: 10,
        tools: [{ latencyMs: 5 }, { latencyMs: 9 }],
        deliveries: ['delivered'],
      },
      // Its first second of 29 March.
      { createdAt: '2026-03-28T23:00:00Z', outcome: 'NO_ANSWER', endedReason: 'customer-did-not-answer' },
      // Retell: a voicemail box answered; still a voicemail.
      { createdAt: '2026-03-29T12:00:00Z', outcome: 'VOICEMAIL', endedReason: 'voicemail_reached', answered: true },
      // The last second of 29 March (now UTC+2), and the first of 30 March.
      {
        createdAt: '2026-03-29T21:59:59Z',
        outcome: 'NOT_INTERESTED',
        endedReason: 'user_hangup',
        answered: true,
        durationSeconds: 14,
        tools: [{ latencyMs: 7, error: 'HTTP 500' }],
        deliveries: ['failed', 'pending'],
      },
      { createdAt: '2026-03-29T22:00:00Z', outcome: 'FAILED', endedReason: 'error' },
    ]);
    await seed(own, second.agentId, second.integrationId, [
      { createdAt: '2026-03-28T10:00:00Z', outcome: 'BUSY', endedReason: 'dial_busy' },
    ]);
  });

  it('counts each call in the interval of its creation, local midnights included, empty intervals too', async () => {
    const answer = await get(`/v1/stats?${period}`, own);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.intervals.map((i: { start: string }) => i.start)).toEqual(starts);
    expect(answer.body.intervals).toEqual([
      { start: starts[0], ...march28 },
      { start: starts[1], ...march29 },
      { start: starts[2], ...march30 },
    ]);
    expect(answer.body.totals).toEqual({
      calls: 6,
      byOutcome: { SOLD: 1, BUSY: 1, NO_ANSWER: 1, NOT_INTERESTED: 1, VOICEMAIL: 1, FAILED: 1 },
      results: { answered: 2, noAnswer: 1, busy: 1, voicemail: 1, failed: 1, open: 0 },
      conversion: { SOLD: 0.5, NOT_INTERESTED: 0.5 },
      duration: { averageSeconds: 12, p90Seconds: 14 },
      tools: { runs: 3, succeeded: 2, failed: 1, successRate: 2 / 3, p50LatencyMs: 7, p95LatencyMs: 9 },
      deliveries: { delivered: 1, failed: 1, pending: 1 },
    });
    // In UTC the midnight call of 28/29 March falls on the 28th, 23:00 being still that day.
    const utc = await get('/v1/stats?from=2026-03-28T00:00:00Z&to=2026-03-29T00:00:00Z', own);
    expect(utc.body.intervals).toHaveLength(1);
    expect(utc.body.totals.calls).toBe(3);
  });

  it("counts one agent's calls alone", async () => {
    const answer = await get(`/v1/stats?${period}&agentId=${second.agentId}`, own);
    expect(answer.body.intervals.map((i: { calls: number }) => i.calls)).toEqual([1, 0, 0]);
    expect(answer.body.totals.results.busy).toBe(1);
  });

  it('begins hours on the half hour in a time zone half an hour off UTC', async () => {
    // 29 March 2026 03:30 in Kolkata is 22:00 UTC on the 28th; the calls at 22:59:59 and 23:00 UTC.
    const answer = await get(
      '/v1/stats?from=2026-03-28T22:00:00Z&to=2026-03-29T00:00:00Z&interval=hour&timezone=Asia/Kolkata',
      own,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.intervals.map((i: { start: string; calls: number }) => [i.start, i.calls])).toEqual([
      ['2026-03-28T21:30:00.000Z', 0],
      ['2026-03-28T22:30:00.000Z', 2],
      ['2026-03-28T23:30:00.000Z', 0],
    ]);
  });

  it('gives the same figures once the quarter hours are rolled up, and follows deliveries that change state', async () => {
    const before = await get(`/v1/stats?${period}`, own);
    const repository = createStatsRepository(t.db.database.db);
    // As the job would, an hour after they ended (here: every quarter hour until now).
    await t.db.database.db.execute(sql`update stats_rollup_progress set rolled_until = 'epoch'`);
    while (await repository.rollUp(new Date(), 20_000)) {}
    const rolled = await repository.rolledUpSlots(
      own.organization.id,
      undefined,
      '2026-03-27T23:00:00Z',
      '2026-03-30T22:00:00Z',
    );
    expect(rolled.length).toBe(6);
    const after = await get(`/v1/stats?${period}`, own);
    expect(after.body).toEqual(before.body);
    const perAgent = await get(`/v1/stats?${period}&agentId=${first.agentId}`, own);
    expect(perAgent.body.totals.calls).toBe(5);

    // A retry by hand makes the failed delivery pending; the rolled-up quarter hour follows.
    await t.db.database.db.execute(
      sql`update deliveries set state = 'pending' where organization_id = ${own.organization.id} and state = 'failed'`,
    );
    const retried = await get(`/v1/stats?${period}`, own);
    expect(retried.body.intervals[1].deliveries).toEqual({ delivered: 0, failed: 0, pending: 2 });
    expect(retried.body.totals.deliveries).toEqual({ delivered: 1, failed: 0, pending: 2 });

    // Deleting the integration deletes its deliveries; the rolled-up quarter hours follow too.
    const deleted = await t.request('DELETE', `/v1/integrations/${first.integrationId}`, { headers: own.auth });
    expect(deleted.status).toBe(204);
    const after2 = await get(`/v1/stats?${period}`, own);
    expect(after2.body.totals.deliveries).toEqual({ delivered: 0, failed: 0, pending: 0 });
    expect(after2.body.totals.calls).toBe(6);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('the stats rollup and deliveries changing state', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('holds no delivery back when it has nothing to roll up', async () => {
    const repository = createStatsRepository(t.db.database.db);
    while (await repository.rollUp(new Date(), 20_000)) {}
    // A delivery's state change in flight: its trigger holds the rollup's lock, shared, until it commits.
    const inFlight = new pg.Client({ connectionString: t.db.url as string });
    await inFlight.connect();
    const watcher = new pg.Client({ connectionString: t.db.url as string });
    await watcher.connect();
    let waiting: Promise<string> | undefined;
    let settled = false;
    try {
      await inFlight.query('begin');
      await inFlight.query('select pg_advisory_xact_lock_shared($1)', [ROLLUP_LOCK]);
      // Nothing is left to roll up: the step must not queue for the lock exclusively (every later
      // state change would then wait behind it). Whichever comes first: the step's end, or a backend
      // of this database seen waiting for an advisory lock.
      const step = repository.rollUp(new Date(), 20_000).then(() => 'finished');
      waiting = (async () => {
        while (!settled) {
          const { rows } = await watcher.query(
            `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
             where d.datname = current_database() and l.locktype = 'advisory' and not l.granted`,
          );
          if (rows[0].n > 0) return 'waited for the lock';
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return 'stopped';
      })();
      const first = await Promise.race([step, waiting]);
      settled = true;
      expect(first).toBe('finished');
    } finally {
      await inFlight.query('commit');
      // The watcher's last look ends before its connection does.
      settled = true;
      await waiting;
      await inFlight.end();
      await watcher.end();
    }
  });
});

describe('GET /v1/stats: refusals', () => {
  const refused = async (query: string) => {
    const answer = await get(`/v1/stats?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body.code).toBe('api:validation');
    return answer.body.details.map((d: { path: string }) => d.path);
  };

  it('names the field of each problem', async () => {
    expect(await refused('from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z')).toEqual(['query.from']);
    expect(await refused('from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z')).toEqual(['query.from']);
    // 1,001 hours.
    expect(await refused('from=2026-01-01T00:00:00Z&to=2026-02-11T17:00:00Z&interval=hour')).toEqual([
      'query.from',
      'query.interval',
    ]);
    expect(await refused('timezone=Nowhere/Land')).toEqual(['query.timezone']);
    expect(await refused('timezone=%2B05:30')).toEqual(['query.timezone']);
    expect((await refused('interval=week')).join()).toContain('interval');
    expect((await refused('from=yesterday')).join()).toContain('from');
  });

  it('takes 1,000 hours', async () => {
    const answer = await get('/v1/stats?from=2026-01-01T00:00:00Z&to=2026-02-11T16:00:00Z&interval=hour');
    expect(answer.status).toBe(200);
    expect(answer.body.intervals).toHaveLength(1000);
  });

  it('asks who is asking', async () => {
    const answer = await t.request('GET', '/v1/stats');
    expect(answer.status).toBe(401);
  });
});
