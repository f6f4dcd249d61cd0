// GET /v1/stats over a period the rollup has not reached yet (decision 0102): a large history met
// for the first time is read call by call until the rollup catches up, and a read that outlasts the
// database timeout then answers 503 api:unavailable with Retry-After and where the rollup is, not a
// 500. A server process with a short database timeout, on PostgreSQL (PGlite has no statement
// timeout); the read is made to outlast it by holding `calls` locked from another connection.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { newId } from '../src/lib/ids.js';
import { nextPhone } from './helpers/app.js';
import { whileCallsLocked } from './helpers/calls-locked.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { requestJson, type ServerProcess, signupProcess, startServerProcess } from './helpers/process.js';
import { until } from './helpers/wait.js';

describe.runIf(process.env.TEST_DATABASE_URL)('GET /v1/stats while the rollup has not reached the period', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let auth: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await startServerProcess({
      DATABASE_URL: db.url as string,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
      SWITCHBOARD_DATABASE_TIMEOUT_MS: '300',
    });
    auth = await signupProcess(server.url, 'Catching up');
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  const stats = (query = '') => requestJson(`${server.url}/v1/stats${query}`, { headers: auth });

  it('answers 503 with Retry-After and where the rollup is, then the figures once they can be read', async () => {
    const refused = await whileCallsLocked(db, '1970-01-01T00:00:00Z', () => stats());
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({ code: 'api:unavailable', details: [] });
    expect(refused.body.message).toContain('the rollup has reached 1970-01-01T00:00:00.000Z');
    expect(refused.headers.get('retry-after')).toBe('60');
    // Said as what it is, not logged as a failure of the server (the first request to fail here:
    // the log's once-per-10-s throttle of database failures has not begun).
    expect(server.output()).not.toContain(refused.body.requestId);

    const answered = await stats();
    expect(answered.status).toBe(200);
    expect(answered.body.totals.calls).toBe(0);
  });

  it('still answers 500 when what outlasted the timeout was not waiting for the rollup', async () => {
    // The rollup has caught up: the period's quarter hours are all rolled up or still recent.
    const caughtUp = await whileCallsLocked(db, new Date().toISOString(), () => stats());
    expect(caughtUp.status).toBe(500);
    expect(caughtUp.body.code).toBe('api:internal');

    // Behind, but the period is the last half hour, which is read call by call whatever the rollup does.
    const from = new Date(Date.now() - 30 * 60_000).toISOString();
    const recent = await whileCallsLocked(db, '1970-01-01T00:00:00Z', () =>
      stats(`?from=${encodeURIComponent(from)}&interval=hour`),
    );
    expect(recent.status).toBe(500);
    expect(recent.body.code).toBe('api:internal');
  });

  it('has the rollup job say in the log, while it stays more than a day behind, where it waits', async () => {
    const agent = await requestJson(`${server.url}/v1/agents`, {
      method: 'POST',
      headers: auth,
      body: { name: 'Behind', type: 'outbound' },
    });
    expect(agent.status).toBe(201);
    const { db: sqlDb } = db.database;
    const organizationId = rowsOf<{ organization_id: string }>(
      await sqlDb.execute(sql`select organization_id from agents where id = ${agent.body.id}`),
    )[0]?.organization_id;
    // A call still ringing three days ago (its deadline not yet passed): the rollup stops there.
    const createdAt = new Date(Date.now() - 72 * 3600_000);
    await sqlDb.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, variables, collected_data,
        transcript, created_at, deadline_at)
      values (${newId('call')}, ${organizationId}, ${agent.body.id}, 'simulator', ${nextPhone()}, 'ringing', '{}', '{}',
        '[]', ${createdAt.toISOString()}::timestamptz, now() + interval '1 day')`);
    await sqlDb.execute(sql`update stats_rollup_progress set rolled_until = 'epoch' where id = 1`);

    // The job runs every 10 s.
    const slot = new Date(Math.floor(createdAt.getTime() / 900_000) * 900_000).toISOString();
    const said = await until(
      'the rollup job to say where it waits',
      () => {
        const line = server
          .output()
          .split('\n')
          .find((l) => l.includes('the stats rollup waits at'));
        return line ? (JSON.parse(line) as { msg: string; rolledUntil: string; behindDays: number }) : undefined;
      },
      25_000,
    );
    expect(said.rolledUntil).toBe(slot);
    expect(said.behindDays).toBeGreaterThanOrEqual(2);
    expect(said.msg).toContain('where a call is still open');
  });
});
