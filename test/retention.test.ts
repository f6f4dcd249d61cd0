// SWITCHBOARD_RETENTION_DAYS (issue 20 §2, decision 0052): a worker removes ended calls older than
// the period with their tool invocations, deliveries and attempts; never an open call, never one
// with a pending delivery; the statistics of the removed calls stay. Calls are made through click to
// call on the simulator, then backdated with SQL (the only way to have old calls). Run on PGlite
// and, with TEST_DATABASE_URL, PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { rowsOf } from '../src/db/client.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { runCli } from './helpers/process.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { until } from './helpers/wait.js';

describe('SWITCHBOARD_RETENTION_DAYS', () => {
  it('is unset by default: every call is kept', () => {
    expect(loadConfig({}).retentionDays).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_RETENTION_DAYS: '' }).retentionDays).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_RETENTION_DAYS: '90' }).retentionDays).toBe(90);
    expect(loadConfig({}).retentionIntervalMs).toBe(60_000);
  });

  it.each(['0', '-3', '1.5', '30d', 'abc', '1e2', '36501', ' '])('refuses "%s"', (value) => {
    if (value.trim() === '') {
      expect(loadConfig({ SWITCHBOARD_RETENTION_DAYS: value }).retentionDays).toBeUndefined();
      return;
    }
    expect(() => loadConfig({ SWITCHBOARD_RETENTION_DAYS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ SWITCHBOARD_RETENTION_DAYS: value })).toThrow(
      `SWITCHBOARD_RETENTION_DAYS must be a whole number of days from 1 to 36500 (unset keeps every call), got "${value}"`,
    );
  });

  it('stops serve at start with the message', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'sb-retention-'));
    try {
      const refused = runCli(['serve'], {
        SWITCHBOARD_DATA_DIR: dataDir,
        SWITCHBOARD_RETENTION_DAYS: '30 days',
        PORT: '0',
      });
      expect(await refused.exited).not.toBe(0);
      expect(refused.stderr()).toContain('SWITCHBOARD_RETENTION_DAYS must be a whole number of days');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the retention job', () => {
  let t: TestApp;
  let org: Org;
  let endpoint: Receiver;
  let failing: Receiver;
  let receiverDown = true;

  beforeAll(async () => {
    t = await startTestApp({
      SWITCHBOARD_RETENTION_DAYS: '30',
      SWITCHBOARD_RETENTION_INTERVAL_MS: '100',
      // The failed delivery's next attempt is an hour away: it stays pending until retried by hand.
      SWITCHBOARD_RETRY_SCHEDULE: '3600',
    });
    org = await t.signup();
    endpoint = await startReceiver();
    failing = await startReceiver((_request, response) => {
      response.writeHead(receiverDown ? 503 : 200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await failing.close();
  });

  const get = (url: string) => t.request('GET', url, { headers: org.auth });

  async function agent(body: Record<string, unknown>, webhookUrl?: string) {
    const created = await t.agentWithCredentials(org, body);
    if (webhookUrl) {
      const hook = await t.request('POST', `/v1/agents/${created.agent.id}/integrations`, {
        headers: org.auth,
        body: { url: webhookUrl },
      });
      expect(hook.status).toBe(201);
    }
    return created;
  }

  async function call(creds: { apiToken: string; apiSecret: string }): Promise<string> {
    const answer = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone(), variables: {} },
    });
    expect(answer.status).toBe(200);
    return answer.body.callId;
  }

  /**
   * Moves calls back in time by `days`; not their deadline, so that the duration sweep leaves the
   * open one open (a real call that old would have been closed by it).
   */
  function backdate(callIds: string[], days: number) {
    return sql`
      update calls set created_at = created_at - make_interval(days => ${days}::int),
        started_at = started_at - make_interval(days => ${days}::int),
        answered_at = answered_at - make_interval(days => ${days}::int),
        ended_at = ended_at - make_interval(days => ${days}::int)
      where id in (${sql.join(
        callIds.map((id) => sql`${id}`),
        sql`, `,
      )})`;
  }

  /** Rows of `table` whose call (through `column`) is one of `callIds`. */
  async function rowsOfCalls(table: 'tool_invocations' | 'deliveries', callIds: string[]) {
    const ids = sql.join(
      callIds.map((id) => sql`${id}`),
      sql`, `,
    );
    const result = await t.db.database.db.execute(
      sql`select count(*)::int as n from ${sql.raw(table)} where call_id in (${ids})`,
    );
    return Number(rowsOf<{ n: number }>(result)[0]?.n);
  }

  it('removes old ended calls with their rows, keeps recent, open and undelivered ones, and keeps the statistics', async () => {
    const lookup = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'lookup', method: 'GET', url: `${endpoint.url}/lookup`, parameters: [] },
    });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(201);
    const delivered = await agent(
      {
        name: 'Delivered',
        toolIds: [lookup.body.id],
        simulator: { turns: [{ tool: 'lookup', args: {} }], outcome: { status: 'SOLD' } },
      },
      `${endpoint.url}/hooks`,
    );
    const undelivered = await agent({ name: 'Undelivered' }, `${failing.url}/hooks`);
    const open = await agent({ name: 'Open', maxCallDurationSeconds: 86_400, simulator: { delayMs: 3_600_000 } });

    const old = [await call(delivered), await call(delivered)];
    const recent = await call(delivered);
    const pending = await call(undelivered);
    const stillOpen = await call(open);

    // Everything settled: tool runs recorded, deliveries delivered (or failed once, retried in an hour).
    for (const id of [...old, recent]) {
      await until(`${id} ended with its tool run and delivery`, async () => {
        const view = (await get(`/v1/calls/${id}`)).body;
        return (
          view.status === 'ended' &&
          view.toolInvocations.length === 1 &&
          view.deliveries.length === 1 &&
          view.deliveries[0].state === 'delivered'
        );
      });
    }
    const [pendingDelivery] = await until('a failed attempt, retried later', async () => {
      const list = (await get(`/v1/deliveries?callId=${pending}`)).body.data;
      return list.length === 1 && list[0].state === 'pending' && list[0].attempts.length === 1 ? list : undefined;
    });
    expect((await get(`/v1/calls/${stillOpen}`)).body.status).toBe('in_progress');
    const oldDeliveryIds = await Promise.all(
      old.map(async (id) => (await get(`/v1/calls/${id}`)).body.deliveries[0].id as string),
    );

    // 40 days ago, and the open call 35 days ago. Past quarter hours are rolled up again from the
    // start (the stats rollup job does it within 10 s): the backdated calls were never rolled up,
    // and until they are, retention keeps them (their statistics would be lost).
    // In one transaction: a rollup in between could mark them rolled up without having read them.
    await t.db.database.db.transaction(async (tx) => {
      await tx.execute(sql`update stats_rollup_progress set rolled_until = 'epoch'`);
      await tx.execute(backdate([...old, pending], 40));
      await tx.execute(backdate([stillOpen], 35));
    });
    const period = `from=${new Date(Date.now() - 41 * 86_400_000).toISOString()}&to=${new Date(Date.now() - 34 * 86_400_000).toISOString()}`;
    const statsBefore = (await get(`/v1/stats?${period}`)).body.totals;
    expect(statsBefore).toMatchObject({
      calls: 4,
      tools: { runs: 2 },
      deliveries: { delivered: 2, failed: 0, pending: 1 },
    });

    // The old ended calls go, with their tool invocations, deliveries and attempts.
    await until(
      'the old calls removed',
      async () => {
        const answers = await Promise.all(old.map((id) => get(`/v1/calls/${id}`)));
        return answers.every((a) => a.status === 404);
      },
      40_000,
    );
    for (const id of old) expect((await get(`/v1/deliveries?callId=${id}`)).body.data).toEqual([]);
    for (const id of oldDeliveryIds) expect((await get(`/v1/deliveries/${id}`)).status).toBe(404);
    expect(await rowsOfCalls('tool_invocations', old)).toBe(0);
    expect(await rowsOfCalls('deliveries', old)).toBe(0);
    const attempts = await t.db.database.db.execute(
      sql`select count(*)::int as n from delivery_attempts where delivery_id in (${sql.join(
        oldDeliveryIds.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
    expect(Number(rowsOf<{ n: number }>(attempts)[0]?.n)).toBe(0);

    // What stays: the recent call, the open one, the one whose outcome has not been delivered.
    const recentView = (await get(`/v1/calls/${recent}`)).body;
    expect(recentView.toolInvocations).toHaveLength(1);
    expect(recentView.deliveries).toHaveLength(1);
    expect((await get(`/v1/calls/${stillOpen}`)).body.status).toBe('in_progress');
    const pendingView = (await get(`/v1/calls/${pending}`)).body;
    expect(pendingView.deliveries.map((d: { state: string }) => d.state)).toEqual(['pending']);

    // The statistics of the removed calls stay, from their rolled-up quarter hours.
    expect((await get(`/v1/stats?${period}`)).body.totals).toEqual(statsBefore);

    // Once delivered, the undelivered call goes too; the open one still stays.
    receiverDown = false;
    const retried = await t.request('POST', `/v1/deliveries/${pendingDelivery.id}/retry`, { headers: org.auth });
    expect(retried.status).toBe(202);
    await until('the delivered call removed', async () => (await get(`/v1/calls/${pending}`)).status === 404, 40_000);
    expect(await rowsOfCalls('deliveries', [pending])).toBe(0);
    expect((await get(`/v1/calls/${stillOpen}`)).status).toBe(200);
    expect((await get(`/v1/calls/${recent}`)).status).toBe(200);
    const statsAfter = (await get(`/v1/stats?${period}`)).body.totals;
    expect(statsAfter).toMatchObject({ calls: 4, tools: { runs: 2 }, deliveries: { delivered: 3, pending: 0 } });
  }, 120_000);
});
