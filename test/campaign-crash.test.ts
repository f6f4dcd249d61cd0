import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Api,
  answeredAtOnce,
  apiOf,
  checkFinishedCampaign,
  completed,
  openWindow,
  phones,
  type Retry,
  signUp,
} from './helpers/campaigns.js';
import { createTestDatabase } from './helpers/database.js';
import {
  describeProcessesOnFailure,
  type ServerProcess,
  startServerProcess,
  startWorkerProcess,
} from './helpers/process.js';
import { until } from './helpers/wait.js';

// Issue 19: "a crash (kill -9) at any moment neither loses a contact nor calls a contact twice for the
// same attempt; on restart, attempts whose call never started are retried, those whose call started
// follow that call". The process that schedules a running campaign is killed with SIGKILL while calls
// are in flight, another is started on the same data, and the finished campaign is checked whole.

const started: ServerProcess[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const ENV = {
  SWITCHBOARD_SIGNUP: 'open',
  SWITCHBOARD_CAMPAIGN_INTERVAL_MS: '200',
  // An attempt still being placed by a killed process is taken back after this; 60 s in production.
  SWITCHBOARD_CAMPAIGN_LEASE_SECONDS: '2',
  SWITCHBOARD_SWEEP_INTERVAL_MS: '200',
};

const CONTACTS = 40;
/** Numbers called once before the campaign: their first campaign call goes unanswered and is re-dialled. */
const REDIALLED = 3;
// Each call takes 1.5 s; one killed with its process is closed by the duration sweep 4 s after it
// began, or on the embedded database when the process starts again (decision 0085).
const SCENARIO = { delayMs: 1500, answers: ['answered', 'no_answer', 'answered'] };
const MAX_CALL_SECONDS = 4;
// One more attempt after no answer, a minute later (the shortest delay there is); none after the rest.
const RETRY: Retry = { noAnswer: 1, busy: 0, voicemail: 0, failed: 0, delayMinutes: 1 };
const CONCURRENCY = 5;

async function track<T extends ServerProcess>(process: Promise<T>): Promise<T> {
  const server = await process;
  started.push(server);
  return server;
}

/**
 * Sets the campaign up through `api`, starts it, kills the scheduling process when calls are in flight
 * (`kill`, which starts the next one and answers the API to read through), then checks the result.
 */
async function crashMidCampaign(api: Api, kill: () => Promise<Api>) {
  const agent = await api.call('POST', '/v1/agents', {
    name: 'Campaign agent',
    type: 'click_to_call',
    maxCallDurationSeconds: MAX_CALL_SECONDS,
    simulator: SCENARIO,
  });
  const numbers = phones(CONTACTS, `+1415${200 + (randomBytes(2).readUInt16BE() % 700)}`);
  // The first numbers are called once beforehand: the campaign's call to them is their second.
  const seeded: string[] = [];
  for (const phone of numbers.slice(0, REDIALLED)) {
    seeded.push((await api.call('POST', '/v1/calls', { agentId: agent.id, phone })).id);
  }
  for (const id of seeded) {
    await until('the seeding call to end', async () => (await api.call('GET', `/v1/calls/${id}`)).status === 'ended');
  }

  const campaign = await api.call('POST', '/v1/campaigns', {
    name: 'Crash',
    agentId: agent.id,
    ...openWindow(),
    concurrency: CONCURRENCY,
    callsPerMinute: 6000,
    retry: RETRY,
  });
  const imported = await api.call('POST', `/v1/campaigns/${campaign.id}/contacts`, {
    contacts: numbers.map((phone) => ({ phone })),
  });
  expect(imported).toMatchObject({ received: CONTACTS, added: CONTACTS, merged: 0, errors: [] });
  await api.call('POST', `/v1/campaigns/${campaign.id}/start`);

  // Mid-campaign: the re-dialled numbers wait for their second attempt, and calls are under way
  // (answered, each within 1.5 s of its end: on a busy machine some end before the kill lands).
  const before = await until(
    'calls in flight and the re-dials waiting',
    async () => {
      const { counts } = await api.call('GET', `/v1/campaigns/${campaign.id}`);
      expect(counts.calling).toBeLessThanOrEqual(CONCURRENCY);
      if (counts.retrying < REDIALLED) return undefined;
      const talking = await api.call('GET', `/v1/calls?agentId=${agent.id}&status=in_progress&limit=100`);
      // Calls answered in the last second have at least half a second to go.
      const fresh = talking.data.filter((c: any) => Date.now() - Date.parse(c.answeredAt) < 1000);
      return fresh.length >= 2 ? { counts, talking: fresh.map((c: any) => c.id) } : undefined;
    },
    60_000,
    20,
  );
  const after = await kill();
  // Once kill() returns the process is gone: a call it ended carries an endedAt no later than this.
  const killedAt = Date.now();
  expect(before.counts.done + before.counts.failed).toBeLessThan(CONTACTS - REDIALLED);

  // The re-dials come due a minute after their first call; the calls that died with the process are
  // closed by the sweep, those never started are placed again.
  const finished = await completed(after, campaign.id, 150_000);
  const { contacts, calls } = await checkFinishedCampaign(after, {
    campaignId: campaign.id,
    agentId: agent.id,
    retry: RETRY,
    otherCallIds: seeded,
  });
  expect(finished.counts.skipped).toBe(0);
  expect(answeredAtOnce(calls)).toBeLessThanOrEqual(CONCURRENCY);
  // The re-dialled numbers were called again after the restart, and answered then.
  for (const phone of numbers.slice(0, REDIALLED)) {
    const contact = contacts.find((c) => c.phone === phone);
    const results = contact.attempts.filter((a: any) => a.state === 'ended').map((a: any) => a.result);
    expect(results, phone).toEqual(['noAnswer', 'answered']);
    expect(contact.state).toBe('done');
  }
  // The calls still under way at the kill died with the process: the sweep closed them, and their
  // contacts followed those calls (no second call for their attempt). A call seen talking may have
  // reached its end in the moment between that read and the kill; it then ended before the kill.
  let diedWithProcess = 0;
  for (const id of before.talking) {
    const call = calls.find((c) => c.id === id);
    if (call.endedReason === 'agent_hangup') {
      expect(Date.parse(call.endedAt), `${id} hung up by the agent after the kill`).toBeLessThanOrEqual(killedAt);
    } else {
      diedWithProcess++;
    }
    const contact = contacts.find((c) => c.attempts.some((a: any) => a.callId === id));
    const attempt = contact.attempts.find((a: any) => a.callId === id);
    expect(attempt.state).toBe('ended');
  }
  expect(diedWithProcess, 'calls that died with the killed process').toBeGreaterThan(0);
}

describe('a campaign survives kill -9 of its scheduler', () => {
  it('on the embedded database: the one process killed and started again on the same data dir', async () => {
    describeProcessesOnFailure(started);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-campaign-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...ENV, SWITCHBOARD_DATA_DIR: dataDir };
    const first = await track(startServerProcess(env));
    const api = await signUp(first.url);
    let second: ServerProcess | undefined;
    await crashMidCampaign(api, async () => {
      await first.stop('SIGKILL');
      second = await track(startServerProcess(env));
      return apiOf(second.url, api.auth);
    });
    // Not left running beside the next test.
    expect(await second?.stop('SIGTERM')).toBe(0);
  }, 240_000);

  it.runIf(process.env.TEST_DATABASE_URL)(
    'on PostgreSQL: the worker killed beside an API process, another worker started',
    async () => {
      describeProcessesOnFailure(started);
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      const env = {
        ...ENV,
        DATABASE_URL: db.url as string,
        SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      };
      const apiProcess = await track(startServerProcess({ ...env, SWITCHBOARD_ROLE: 'api' }));
      const worker = await track(startWorkerProcess(env));
      const api = await signUp(apiProcess.url);
      await crashMidCampaign(api, async () => {
        await worker.stop('SIGKILL');
        await track(startWorkerProcess(env));
        return api;
      });
    },
    240_000,
  );
});
