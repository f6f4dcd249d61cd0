import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallsRepository } from '../src/calls/calls.repository.js';
import { rowsOf } from '../src/db/client.js';
import { createSimulatorRepository } from '../src/providers/simulator/simulator.repository.js';
import { createSimulatorLease, type SimulatorLeaseRepository } from '../src/providers/simulator/simulator-lease.js';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

// Decision 0094: on a shared PostgreSQL a process holds a lease while it plays simulated calls; a
// worker closes the calls of a lease past its time. The lease over the real repository, on either
// database, with a clock the test moves.
let t: TestApp;
let owner: Org;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signup('Leases');
  agentId = (await t.createAgent(owner)).id;
});
afterAll(async () => {
  await t.close();
});

const db = () => t.db.database.db;

const leaseRow = async (playerId: string) =>
  rowsOf<{ seconds_left: number | string }>(
    await db().execute(sql`
      select extract(epoch from expires_at - now()) as seconds_left from simulator_leases where player_id = ${playerId}`),
  ).map((row) => Number(row.seconds_left));

/** The real repository, its lease writes counted. */
function countedRepository() {
  const real = createSimulatorRepository(db());
  const counted = { holds: 0, releases: 0 };
  const repository: SimulatorLeaseRepository = {
    holdLease: async (playerId, seconds) => {
      counted.holds++;
      await real.holdLease(playerId, seconds);
    },
    releaseLease: async (playerId) => {
      counted.releases++;
      await real.releaseLease(playerId);
    },
  };
  return { repository, counted };
}

describe("a process's simulator lease", () => {
  it('is written once for calls started together, not again while two thirds of it are left, and removed at close', async () => {
    let now = 1_000_000;
    const errors: unknown[] = [];
    const { repository, counted } = countedRepository();
    const lease = createSimulatorLease({ repository, seconds: 30, onError: (e) => errors.push(e), clock: () => now });
    expect(lease.playerId).toMatch(/^[0-9a-f]{16}$/);

    // Ten calls at once share one write, and each waits for it.
    const waits = Array.from({ length: 10 }, () => lease.acquire());
    expect(waits.every((wait) => wait instanceof Promise)).toBe(true);
    await Promise.all(waits);
    expect(counted.holds).toBe(1);
    const [left] = await leaseRow(lease.playerId);
    expect(left).toBeGreaterThan(28);
    expect(left).toBeLessThanOrEqual(30);

    // Within its first third: calls start at once, with no write.
    now += 9_000;
    expect(lease.acquire()).toBeUndefined();
    expect(counted.holds).toBe(1);
    // Past two thirds of it (the timer had no chance to renew: this clock is the test's), the next call waits for a write.
    now += 12_000;
    const wait = lease.acquire();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(counted.holds).toBe(2);

    for (let i = 0; i < 12; i++) lease.done();
    await lease.close();
    expect(counted.releases).toBe(1);
    expect(await leaseRow(lease.playerId)).toEqual([]);
    // Closed: a call starting now writes nothing.
    expect(lease.acquire()).toBeUndefined();
    expect(counted.holds).toBe(2);
    expect(errors).toEqual([]);
  });

  it('is renewed every third of its length while calls play, and left to lapse once none does', async () => {
    const { repository, counted } = countedRepository();
    const lease = createSimulatorLease({ repository, seconds: 1, onError: () => {} });
    await lease.acquire();
    expect(counted.holds).toBe(1);
    // One call under way for about a second: renewed about every 333 ms.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(counted.holds).toBeGreaterThanOrEqual(3);
    expect((await leaseRow(lease.playerId))[0]).toBeGreaterThan(0.3);
    lease.done();
    const afterLastCall = counted.holds;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // At most the renewal already timed when the call ended; then nothing, and the row has lapsed.
    expect(counted.holds).toBeLessThanOrEqual(afterLastCall + 1);
    expect((await leaseRow(lease.playerId))[0]).toBeLessThan(0);
    await lease.close();
  });

  it('renews, for a call started without a write just before it would need one, before the lease runs short', async () => {
    const { repository, counted } = countedRepository();
    // 6 s: renewed every 2 s while calls play; a call starts without a write up to 4 s after one.
    const lease = createSimulatorLease({ repository, seconds: 6, onError: () => {} });
    await lease.acquire();
    lease.done();
    // None under way when the first third ends: no renewal then.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(counted.holds).toBe(1);
    // A call at 3.5 s starts at once; its renewal comes at 4 s, not a third later (5.5 s, with the
    // lease ending at 6 s).
    expect(lease.acquire()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(counted.holds).toBe(2);
    expect((await leaseRow(lease.playerId))[0]).toBeGreaterThan(4);
    lease.done();
    await lease.close();
  });

  it('tells a write that failed, and the call starts anyway', async () => {
    const errors: unknown[] = [];
    const lease = createSimulatorLease({
      repository: {
        holdLease: async () => {
          throw new Error('the database is away');
        },
        releaseLease: async () => {},
      },
      seconds: 30,
      onError: (e) => errors.push(e),
    });
    await expect(lease.acquire()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    // Not held: the next call tries again.
    await lease.acquire();
    expect(errors).toHaveLength(2);
    await lease.close();
  });
});

describe('the calls of lapsed leases', () => {
  const insertCall = (id: string, providerCallId: string | null, status: string) =>
    db().execute(sql`
      insert into calls (id, organization_id, agent_id, provider, provider_call_id, to_number, status, variables,
        collected_data, transcript, deadline_at)
      values (${id}, ${owner.organization.id}, ${agentId}, 'simulator', ${providerCallId}, ${`+1415555${id.slice(-4)}`},
        ${status}, '{}', '{}', '[]', now() + interval '1 hour')`);
  const deadlineIsNear = async (id: string) =>
    Number(
      rowsOf<{ seconds: number | string }>(
        await db().execute(sql`select extract(epoch from deadline_at - now()) as seconds from calls where id = ${id}`),
      )[0]?.seconds,
    ) < 60;

  it('brings due only the open calls of the players whose lease lapsed, and removes those leases alone', async () => {
    const calls = createCallsRepository(db());
    const simulator = createSimulatorRepository(db());
    const gone = 'aaaaaaaaaaaaaaaa';
    const alive = 'bbbbbbbbbbbbbbbb';
    await db().execute(sql`
      insert into simulator_leases (player_id, expires_at)
      values (${gone}, now() - interval '1 second'), (${alive}, now() + interval '30 seconds')`);
    await insertCall('call_l_0001', `sim_${gone}_one`, 'in_progress');
    await insertCall('call_l_0002', `sim_${gone}_two`, 'ringing');
    await insertCall('call_l_0003', `sim_${alive}_three`, 'in_progress');
    // Placed before decision 0094 (no player in its id), and one whose id was never recorded.
    await insertCall('call_l_0004', 'sim_4a7c1f9e-0000-4000-8000-000000000000', 'in_progress');
    await insertCall('call_l_0005', null, 'in_progress');

    expect(await simulator.anyLeaseLapsed()).toBe(true);
    expect(await calls.expireSimulatedCallsOfLapsedLeases(new Date())).toBe(2);
    expect(await deadlineIsNear('call_l_0001')).toBe(true);
    expect(await deadlineIsNear('call_l_0002')).toBe(true);
    for (const id of ['call_l_0003', 'call_l_0004', 'call_l_0005']) expect(await deadlineIsNear(id)).toBe(false);
    const leases = rowsOf<{ player_id: string }>(await db().execute(sql`select player_id from simulator_leases`));
    expect(leases.map((row) => row.player_id)).toEqual([alive]);
    expect(await simulator.anyLeaseLapsed()).toBe(false);
    expect(await calls.expireSimulatedCallsOfLapsedLeases(new Date())).toBe(0);
  });
});
