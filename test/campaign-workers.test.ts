import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { answeredAtOnce, checkFinishedCampaign, openWindow, phones, type Retry, signUp } from './helpers/campaigns.js';
import { createTestDatabase } from './helpers/database.js';
import {
  describeProcessesOnFailure,
  type ServerProcess,
  startServerProcess,
  startWorkerProcess,
} from './helpers/process.js';
import { until } from './helpers/wait.js';

// Issue 19: "any number of worker processes share the work on PostgreSQL", never more than
// `concurrency` calls of a campaign in progress "in every process together". Two workers and an API
// process on one PostgreSQL run one campaign.

const started: ServerProcess[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const CONTACTS = 60;
const CONCURRENCY = 10;
const RETRY: Retry = { noAnswer: 0, busy: 0, voicemail: 0, failed: 0, delayMinutes: 1 };

/** Calls the process's simulator ended: the calls it placed (each is played where it was started). */
async function callsEndedBy(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return [...metrics.matchAll(/^switchboard_calls_ended_total\{[^}]*provider="simulator"[^}]*\} (\d+)$/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

describe.runIf(process.env.TEST_DATABASE_URL)('two worker processes on one PostgreSQL', () => {
  it('share one campaign: both place calls, never more than its concurrency at once, every contact once', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const env = {
      DATABASE_URL: db.url as string,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
      SWITCHBOARD_CAMPAIGN_INTERVAL_MS: '100',
    };
    const apiProcess = await startServerProcess({ ...env, SWITCHBOARD_ROLE: 'api' });
    started.push(apiProcess);
    const workers = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
    started.push(...workers);
    describeProcessesOnFailure([apiProcess, ...workers]);
    const api = await signUp(apiProcess.url);

    const agent = await api.call('POST', '/v1/agents', {
      name: 'Shared agent',
      type: 'click_to_call',
      simulator: { delayMs: 2000 },
    });
    const campaign = await api.call('POST', '/v1/campaigns', {
      name: 'Shared',
      agentId: agent.id,
      ...openWindow(),
      concurrency: CONCURRENCY,
      // 8 calls a second, 2 s each: up to 16 at once but for the concurrency, and, paced, the calls
      // start (and end) a few at a time, so both workers' passes find calls to place.
      callsPerMinute: 480,
      retry: RETRY,
    });
    const numbers = phones(CONTACTS, `+1415${200 + (randomBytes(2).readUInt16BE() % 700)}`);
    const imported = await api.call(
      'POST',
      `/v1/campaigns/${campaign.id}/contacts`,
      numbers.map((phone) => ({ phone })),
    );
    expect(imported).toMatchObject({ received: CONTACTS, added: CONTACTS, merged: 0, errors: [] });
    await api.call('POST', `/v1/campaigns/${campaign.id}/start`);

    // While it runs: never more contacts calling than the concurrency.
    let mostCalling = 0;
    await until(
      'the campaign to complete',
      async () => {
        const { state, counts } = await api.call('GET', `/v1/campaigns/${campaign.id}`);
        mostCalling = Math.max(mostCalling, counts.calling);
        expect(counts.calling).toBeLessThanOrEqual(CONCURRENCY);
        return state === 'completed';
      },
      90_000,
      30,
    );
    expect(mostCalling).toBeGreaterThan(0);

    const { contacts, calls } = await checkFinishedCampaign(api, {
      campaignId: campaign.id,
      agentId: agent.id,
      retry: RETRY,
    });
    // Every contact answered at its first attempt: called exactly once.
    expect(contacts).toHaveLength(CONTACTS);
    for (const contact of contacts) {
      expect(contact.state, contact.phone).toBe('done');
      expect(contact.attempts, contact.phone).toHaveLength(1);
    }
    expect(calls).toHaveLength(CONTACTS);
    expect(new Set(calls.map((c) => c.to))).toEqual(new Set(numbers));
    // From their answer to their end, never more than the concurrency at once, across both workers.
    expect(answeredAtOnce(calls)).toBeLessThanOrEqual(CONCURRENCY);

    // Both workers placed calls; together every one, and the API process none.
    const placed = await Promise.all(workers.map((w) => callsEndedBy(w.url)));
    // Decision 0119: the workers' passes are spread, so that neither takes every contest for the row.
    expect(placed[0], `calls placed by each worker: ${placed}`).toBeGreaterThan(0);
    expect(placed[1], `calls placed by each worker: ${placed}`).toBeGreaterThan(0);
    expect((placed[0] as number) + (placed[1] as number)).toBe(CONTACTS);
    expect(await callsEndedBy(apiProcess.url)).toBe(0);

    for (const process of [...workers, apiProcess]) expect(await process.stop('SIGTERM')).toBe(0);
  }, 180_000);
});
