// `switchboard stats rollup` (decision 0103): every quarter hour that is due rolled up at once, in
// steps that grow while they are quick, stopping where a call is still open as the job does; then
// GET /v1/stats reads those quarter hours from their rollups. The CLI runs from source against the
// test's database (PostgreSQL when TEST_DATABASE_URL is set, else an embedded data directory).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import { createStatsRepository } from '../src/stats/stats.repository.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { runCli } from './helpers/process.js';

const HOUR_MS = 3600_000;
const ROLLED_UP_LINE = /^stats rolled up to (\S+): (\d+) steps? in \d+\.\d s(.*)\n$/;

describe.runIf(process.env.TEST_DATABASE_URL)('switchboard stats rollup, on PostgreSQL', () => {
  let t: TestApp;
  let org: Org;
  let agentId: string;
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    // The API alone: no rollup job of its own to race the command.
    t = await startTestApp({ SWITCHBOARD_ROLE: 'api' }, masterKey);
    org = await t.signup();
    agentId = (await t.createAgent(org, { name: 'Rolled up', type: 'outbound' })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A call created `hoursAgo` hours ago (the public path cannot create one in the past). */
  async function callAt(hoursAgo: number, status = 'ended'): Promise<string> {
    const id = newId('call');
    const at = new Date(Date.now() - hoursAgo * HOUR_MS).toISOString();
    await t.db.database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, outcome, variables,
        collected_data, transcript, created_at, ended_at, deadline_at)
      values (${id}, ${org.organization.id}, ${agentId}, 'simulator', ${nextPhone()}, ${status},
        ${status === 'ended' ? 'SOLD' : null}, '{}', '{}', '[]', ${at}::timestamptz,
        ${status === 'ended' ? at : null}::timestamptz, now() + interval '1 day')`);
    return id;
  }

  const rollup = async () => {
    const run = runCli(['stats', 'rollup'], {
      DATABASE_URL: t.db.url as string,
      SWITCHBOARD_MASTER_KEY: masterKey.toString('base64'),
    });
    const code = await run.exited;
    expect(code, run.stderr()).toBe(0);
    const line = ROLLED_UP_LINE.exec(run.stdout());
    expect(line, run.stdout()).not.toBeNull();
    return { rolledUntil: line?.[1] as string, steps: Number(line?.[2]), rest: line?.[3] as string };
  };
  const slots = () =>
    createStatsRepository(t.db.database.db).rolledUpSlots(
      org.organization.id,
      undefined,
      new Date(Date.now() - 7 * 24 * HOUR_MS).toISOString(),
      new Date().toISOString(),
    );

  it('rolls up what is due, stops at a call still open, and goes on once it has ended', async () => {
    await callAt(72);
    await callAt(71.5);
    const open = await callAt(48, 'ringing');
    await callAt(24);
    await callAt(0.25); // not due: the last hour is never rolled up
    // As on a database that held these calls before it met the rollup.
    await t.db.database.db.execute(sql`update stats_rollup_progress set rolled_until = 'epoch'`);

    const stopped = await rollup();
    expect(stopped.rest).toContain('stopped before');
    expect(stopped.rest).toContain('a call still open');
    expect(Date.parse(stopped.rolledUntil)).toBeLessThanOrEqual(Date.now() - 48 * HOUR_MS);
    // As the job's steps do: the quarter hours around the open one are written, and the rollup
    // stands at the open one until it ends.
    expect(await slots()).toHaveLength(3);

    await t.db.database.db.execute(
      sql`update calls set status = 'ended', outcome = 'SOLD', ended_at = now() where id = ${open}`,
    );
    const done = await rollup();
    expect(done.rest).toBe('');
    // Up to the quarter hour that ended an hour ago.
    expect(Date.now() - Date.parse(done.rolledUntil)).toBeGreaterThanOrEqual(HOUR_MS);
    expect(Date.now() - Date.parse(done.rolledUntil)).toBeLessThan(HOUR_MS + 16 * 60_000);
    expect(await slots()).toHaveLength(4);

    const answer = await t.request('GET', '/v1/stats', { headers: org.auth });
    expect(answer.status).toBe(200);
    expect(answer.body.totals.calls).toBe(5);
    expect(answer.body.totals.byOutcome).toEqual({ SOLD: 5 });

    // Nothing left: one step that finds nothing.
    const again = await rollup();
    expect(again.steps).toBe(1);
    expect(again.rolledUntil).toBe(done.rolledUntil);
  });
});

describe('switchboard stats rollup, on the embedded database', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-rollup-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the database if need be and says where the rollup stands', async () => {
    const run = runCli(['stats', 'rollup'], { SWITCHBOARD_DATA_DIR: dataDir });
    expect(await run.exited, run.stderr()).toBe(0);
    const line = ROLLED_UP_LINE.exec(run.stdout());
    expect(line, run.stdout()).not.toBeNull();
    expect(Date.now() - Date.parse(line?.[1] as string)).toBeGreaterThanOrEqual(HOUR_MS);
  });
});
