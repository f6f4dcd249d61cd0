import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './helpers/database.js';
import {
  agentWithIntegration,
  clickToCallProcess,
  requestJson,
  type ServerProcess,
  signupProcess,
  startServerProcess,
} from './helpers/process.js';
import { startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

// Decision 0085: a simulated call is played by the process that placed it. When that process is
// killed mid-call, the call never reports its end. On the embedded database the next process to
// open the data dir is the only one, so it closes such calls at start. Decision 0091: a process
// that stops gracefully closes the calls it was playing itself, on either database. Decision 0094:
// on a shared PostgreSQL a process holds a lease while it plays calls; a worker closes the calls of
// a lease that lapsed (its process killed), and no live process's.

const started: ServerProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const ENV = { SWITCHBOARD_SIGNUP: 'open', SWITCHBOARD_ALLOW_PRIVATE_NETWORKS: 'true' };

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ ...ENV, ...env });
  started.push(server);
  return server;
}

/** An organization with an agent whose simulated calls stay in progress for an hour (its default maximum). */
async function setUp(url: string, hookUrl: string) {
  const auth = await signupProcess(url, 'Orphans');
  const { agent, creds } = await agentWithIntegration(
    url,
    auth,
    { name: 'Long calls', simulator: { delayMs: 3_600_000 } },
    hookUrl,
  );
  expect(agent.maxCallDurationSeconds).toBe(3600);
  return { auth, creds };
}

const place = (url: string, creds: { apiToken: string; apiSecret: string }, phone: string) =>
  clickToCallProcess(url, creds, { phone });

const callOf = async (url: string, auth: Record<string, string>, id: string) =>
  (await requestJson(`${url}/v1/calls/${id}`, { headers: auth })).body;

/** Places a long call, waits until it is in progress, and stops the process (SIGKILL by default); then starts it again. */
async function killMidCall(env: Record<string, string>, signal: NodeJS.Signals = 'SIGKILL') {
  const hook = await startReceiver();
  cleanups.push(() => hook.close());
  const first = await start(env);
  const { auth, creds } = await setUp(first.url, hook.url);
  const placed = await place(first.url, creds, '+14155550101');
  expect(placed.status).toBe(200);
  const callId = placed.body.callId as string;
  await until('the call in progress', async () => (await callOf(first.url, auth, callId)).status === 'in_progress');
  expect(await first.stop(signal)).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
  const stoppedAt = new Date();
  const second = await start(env);
  return { hook, auth, creds, callId, second, stoppedAt };
}

/** A new PostgreSQL database for the processes of one test (`TEST_DATABASE_URL`), dropped at the end. */
async function postgresEnv(): Promise<Record<string, string>> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return { DATABASE_URL: db.url as string, SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64') };
}

const deliveriesOf = (hook: { requests: { body: string }[] }, callId: string) =>
  hook.requests.filter((request) => JSON.parse(request.body).callId === callId);

describe('simulated calls left open by a stopped process', () => {
  it('on the embedded database: closed when the next process starts, their outcome delivered once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-orphans-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { hook, auth, creds, callId, second } = await killMidCall({ SWITCHBOARD_DATA_DIR: dataDir });

    const ended = await until('the call closed', async () => {
      const call = await callOf(second.url, auth, callId);
      return call.status === 'ended' ? call : undefined;
    });
    // As the duration sweep closes a call that never reports its end (docs/interface.md).
    expect(ended).toMatchObject({ outcome: 'FAILED', endedReason: 'timeout' });
    await until('its outcome delivered', () => deliveriesOf(hook, callId).length > 0);

    // The number is free again (ctc:007 no longer holds it), and the new call is this process's
    // own: it stays in progress.
    const again = await place(second.url, creds, '+14155550101');
    expect(again.status).toBe(200);
    await until(
      'the new call in progress',
      async () => (await callOf(second.url, auth, again.body.callId as string)).status === 'in_progress',
    );
    // The sweep runs every 200 ms here: after several runs, nothing more is closed or delivered.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await callOf(second.url, auth, again.body.callId as string)).status).toBe('in_progress');
    expect(deliveriesOf(hook, callId)).toHaveLength(1);
    expect(hook.requests).toHaveLength(1);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 90_000);

  /** A graceful stop plays nothing further: the stopping process closes the calls it was playing (decision 0091). */
  async function stoppedGracefully(env: Record<string, string>) {
    const { hook, auth, creds, callId, second, stoppedAt } = await killMidCall(env, 'SIGTERM');
    // Closed by the process that stopped, before the next one started.
    const ended = await callOf(second.url, auth, callId);
    expect(ended).toMatchObject({ status: 'ended', outcome: 'FAILED', endedReason: 'timeout' });
    expect(Date.parse(ended.endedAt)).toBeLessThanOrEqual(stoppedAt.getTime());
    // Its outcome queued as it closed, and delivered once; its number free again.
    await until('its outcome delivered', () => deliveriesOf(hook, callId).length > 0);
    expect(JSON.parse(deliveriesOf(hook, callId)[0]?.body ?? '{}')).toMatchObject({
      status: 'FAILED',
      endedReason: 'timeout',
    });
    expect((await place(second.url, creds, '+14155550101')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(deliveriesOf(hook, callId)).toHaveLength(1);
    expect(await second.stop('SIGTERM')).toBe(0);
  }

  it('on the embedded database: a graceful stop closes the calls it was playing as it stops', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-orphans-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    await stoppedGracefully({ SWITCHBOARD_DATA_DIR: dataDir });
  }, 90_000);

  it.runIf(process.env.TEST_DATABASE_URL)(
    'on PostgreSQL: a graceful stop closes the calls it was playing as it stops',
    async () => stoppedGracefully(await postgresEnv()),
    90_000,
  );

  it.runIf(process.env.TEST_DATABASE_URL)(
    "on PostgreSQL: closed by a worker once the killed process's lease lapses; a live process's calls are not",
    async () => {
      // Leases of 2 s, renewed every 667 ms, looked at every 667 ms (decision 0094).
      const env = { ...(await postgresEnv()), SWITCHBOARD_SIMULATOR_LEASE_SECONDS: '2' };
      const { hook, auth, creds, callId, second, stoppedAt } = await killMidCall(env);

      // The second process, playing a call of its own all along, holds its lease: its call stays in
      // progress over several of the first one's lease lengths.
      const own = await place(second.url, creds, '+14155550102');
      expect(own.status).toBe(200);
      const ownId = own.body.callId as string;
      await until(
        'its own call in progress',
        async () => (await callOf(second.url, auth, ownId)).status === 'in_progress',
      );

      const ended = await until(
        "the killed process's call closed",
        async () => {
          const call = await callOf(second.url, auth, callId);
          return call.status === 'ended' ? call : undefined;
        },
        20_000,
      );
      expect(ended).toMatchObject({ outcome: 'FAILED', endedReason: 'timeout' });
      // Not before its lease could lapse: it was renewed at most 667 ms before the kill.
      expect(Date.parse(ended.endedAt)).toBeGreaterThan(stoppedAt.getTime() + 1000);
      await until('its outcome delivered', () => deliveriesOf(hook, callId).length > 0);
      expect((await place(second.url, creds, '+14155550101')).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 6000));
      expect((await callOf(second.url, auth, ownId)).status).toBe('in_progress');
      expect(deliveriesOf(hook, callId)).toHaveLength(1);
      expect(deliveriesOf(hook, ownId)).toHaveLength(0);
      expect(await second.stop('SIGTERM')).toBe(0);
    },
    90_000,
  );
});
