import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthRepository } from '../src/auth/auth.repository.js';
import { createCallsRepository } from '../src/calls/calls.repository.js';
import { createClickToCallRepository } from '../src/click-to-call/click-to-call.repository.js';
import { type Database, rowsOf } from '../src/db/client.js';
import { openPostgres } from '../src/db/postgres.js';
import { createDeliveriesRepository } from '../src/deliveries/deliveries.repository.js';
import { newId } from '../src/lib/ids.js';
import { createToolsRepository } from '../src/tools/tools.repository.js';
import { nextPhone, startTestApp, type TestApp } from './helpers/app.js';

// Decision 0058: the statements every request sends are prepared by name, and PostgreSQL may keep a
// generic plan for them, made once without the values. The worst moment to make it is just after
// autovacuum first analyzes a table, once 50 rows have changed: the table is a page or two, a
// sequential scan is the cheapest plan, and PostgreSQL keeps it while the table grows, until it
// analyzes the table again. Each lookup in them carries `probeOnly`, so that even that plan is an
// index probe. Checked here on the statements the service actually prepares (whatever their
// number), on PostgreSQL: PGlite runs every statement unnamed, planned each time.

/**
 * The tables those statements read, each with the columns a copy of one of its rows changes: those
 * that must be unique, and a tool run's call (each copy then belongs to a copy of the call, as runs
 * spread over many calls do).
 */
const PROBED: Record<string, string[]> = {
  sessions: ['token_hash'],
  api_keys: ['id', 'key_hash'],
  agents: ['id', 'api_token_hash'],
  integrations: ['id', 'agent_id'],
  campaigns: ['id'],
  calls: ['id', 'to_number', 'provider_call_id'],
  suppressions: ['id', 'phone'],
  tools: ['id', 'name'],
  tool_invocations: ['id', 'call_id'],
  deliveries: ['id', 'webhook_id'],
};

/** A queued call of the agent, as click to call records it. */
const queuedCall = (organizationId: string, agentId: string, id = newId('call')) => ({
  id,
  organizationId,
  agentId,
  provider: 'simulator',
  toNumber: nextPhone(),
  status: 'queued',
  variables: {},
  collectedData: {},
  transcript: [],
  deadlineAt: new Date(Date.now() + 600_000),
});

/** A delivery worker's claim, as the worker makes it: room left for one integration, none for another. */
const claimOptions = () => ({
  limit: 64,
  perIntegration: 16,
  room: new Map([
    ['intg_some_room', 3],
    ['intg_no_room', 0],
  ]),
  leaseSeconds: 30,
  lookAheadMs: 5000,
});

/** What a worker records after sending a delivery that (here) no longer exists: nothing changes. */
const attempted = (id: string) => ({
  id,
  claim: 1,
  integrationId: 'intg_unknown',
  kind: 'attempted' as const,
  attempt: { at: new Date(), status: 200, latencyMs: 12, error: null, errorCode: null, responseExcerpt: null },
  payload: { text: '{}', truncated: false },
  next: { state: 'delivered' as const },
  health: 'ok' as const,
});

/** A provider's report of a call that ended now. */
const endedNow = () => ({
  at: new Date(),
  outcome: 'COMPLETED',
  endedReason: 'agent_hangup',
  collectedData: {},
  durationSeconds: 0,
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Total Cost'?: number;
  Plans?: PlanNode[];
}
const below = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(below)];

describe.runIf(process.env.TEST_DATABASE_URL)('prepared statements on tables of a page', () => {
  let t: TestApp;
  let one: Database | undefined;
  let again: Database | undefined;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await one?.close();
    await again?.close();
    await t.close();
  });

  it('keep index probes as their generic plans, each table analyzed when it held 50 rows', async () => {
    // A row in every table the statements read (a signup's session and API key, an agent, a call, a
    // listed number, a tool and a run of it), copied to 50 rows, then analyzed.
    const org = await t.signup();
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org, { rateLimitPerMinute: null });
    const placed = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(placed.status).toBe(200);
    expect(
      (await t.request('POST', '/v1/suppressions', { headers: org.auth, body: { phone: nextPhone() } })).status,
    ).toBe(201);
    const integration = await t.request('POST', `/v1/agents/${agent.id}/integrations`, {
      headers: org.auth,
      body: { url: 'https://hooks.example.com/outcomes' },
    });
    expect(integration.status).toBe(201);
    const campaign = await t.request('POST', '/v1/campaigns', {
      headers: org.auth,
      body: { name: 'Leads', agentId: agent.id, startAt: '2099-01-01T09:00:00.000Z' },
    });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    const tool = await t.request('POST', '/v1/tools', {
      headers: org.auth,
      body: { name: 'check_availability', method: 'POST', url: 'https://tools.example.com/availability' },
    });
    expect(tool.status).toBe(201);
    const { db } = t.db.database;
    await db.execute(sql`
      insert into tool_invocations (id, organization_id, call_id, tool_id, tool_name, arguments, result, latency_ms)
      values (${newId('tinv')}, ${org.organization.id}, ${placed.body.callId}, ${tool.body.id}, 'check_availability', '{}', 'ok', 5)`);
    // A delivered outcome: the statistics then know of no pending delivery, the claim's hardest case.
    await db.execute(sql`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
      values (${newId('dlv')}, ${org.organization.id}, ${integration.body.id}, ${placed.body.callId}, ${newId('msg')}, 'delivered', null)`);
    for (const [table, unique] of Object.entries(PROBED)) {
      const changed = unique.map((column) => `'${column}', r.${column} || '_' || i`).join(', ');
      await db.execute(
        sql.raw(`insert into ${table}
          select (jsonb_populate_record(null::${table}, to_jsonb(r) || jsonb_build_object(${changed}))).*
          from (select * from ${table} limit 1) r, generate_series(1, 49) i`),
      );
      await db.execute(sql.raw(`analyze ${table}`));
      const [counted] = rowsOf<{ n: number }>(await db.execute(sql.raw(`select count(*)::int as n from ${table}`)));
      expect(counted?.n, table).toBeGreaterThanOrEqual(50);
    }

    // The repositories on a connection of their own, so that its session holds what they prepare.
    one = openPostgres({ url: t.db.url as string, poolSize: 1, timeoutMs: 10_000 });
    const auth = createAuthRepository(one.db);
    await auth.findPrincipalBySession('no such token', new Date());
    await auth.findPrincipalByApiKey('no such key');
    const callsRepository = createCallsRepository(one.db);
    await callsRepository.providerContext('call_unknown');
    await callsRepository.setProviderCallId('call_unknown', 'provider_unknown');
    await callsRepository.markRinging('call_unknown');
    await callsRepository.markAnswered('call_unknown', new Date());
    await callsRepository.end('call_unknown', endedNow());
    await createToolsRepository(one.db).callToolContext('call_unknown', 'check_availability');
    await callsRepository.collectOf('call_unknown');
    const deliveries = createDeliveriesRepository(one.db);
    await deliveries.claim(claimOptions());
    await deliveries.complete(attempted('dlv_unknown'));
    const accepted = await createClickToCallRepository(one.db).acceptCall({
      call: queuedCall(org.organization.id, agent.id),
      maxConcurrentCalls: null,
    });
    expect(accepted).toEqual({ ok: true });

    const prepared = rowsOf<{ name: string; types: string[] }>(
      await one.db.execute(
        sql`select name, parameter_types::text[] as types from pg_prepared_statements order by name`,
      ),
    );
    expect(prepared.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'accept_calls',
        'call_collects',
        'claim_deliveries',
        'complete_deliveries',
        'end_calls',
        'mark_calls_answered',
        'mark_calls_ringing',
        'principal_by_api_key',
        'principal_by_session',
        'provider_call_contexts',
        'set_provider_call_ids',
        'tool_call_context',
      ]),
    );
    await one.db.execute(sql`set plan_cache_mode = force_generic_plan`);
    const scans: Record<string, string[]> = {};
    const costs: Record<string, number> = {};
    for (const { name, types } of prepared) {
      const values = types.map((type) => `null::${type}`).join(', ');
      const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
        await one.db.execute(sql.raw(`explain (format json) execute ${name}${values ? `(${values})` : ''}`)),
      );
      const plan = row?.['QUERY PLAN'];
      const root = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
      costs[name] = root[0]?.Plan['Total Cost'] ?? Number.NaN;
      scans[name] = below(root[0]?.Plan as PlanNode)
        .filter((node) => node['Relation Name'] !== undefined && node['Relation Name'] in PROBED)
        .map(
          (node) =>
            `${node['Node Type']} on ${node['Relation Name']}${node['Index Name'] ? ` by ${node['Index Name']}` : ''}`,
        );
    }
    // Every read of those tables is through an index, never a sequential scan.
    const sequential = Object.entries(scans)
      .map(([name, reads]) => [name, reads.filter((read) => read.startsWith('Seq Scan'))] as const)
      .filter(([, reads]) => reads.length > 0);
    expect(Object.fromEntries(sequential)).toEqual({});
    // Nor through the partial index of open calls: its statistics may say that none is open (after a
    // quiet hour, say), and a plan kept from then would read every open call of a busy day.
    const openCalls = Object.entries(scans)
      .map(([name, reads]) => [name, reads.filter((read) => read.endsWith('by calls_open_deadline_idx'))] as const)
      .filter(([, reads]) => reads.length > 0);
    expect(Object.fromEntries(openCalls)).toEqual({});
    // And no plan is estimated to cost so much that PostgreSQL would compile it with JIT at every run
    // (jit_above_cost, 100,000 by default): the guard's declared cost counts in every estimate.
    for (const [name, cost] of Object.entries(costs)) expect(cost, name).toBeLessThan(10_000);
    // The claim reads the due deliveries in their order by the partial due index, and locks and
    // updates each candidate by its key (decision 0053), whatever the statistics say of pending rows;
    // behind a blocked head it reads each integration's by the index of pending rows by integration
    // (decision 0114), which nothing else in the statement may read.
    expect(
      new Set(scans.claim_deliveries?.filter((read) => read.includes('Scan on deliveries') && !read.includes('_by_'))),
    ).toEqual(
      new Set(['Index Scan on deliveries by deliveries_due_idx', 'Index Scan on deliveries by deliveries_pkey']),
    );
    expect(scans.claim_deliveries).toContain('Index Scan on deliveries by deliveries_due_by_integration_idx');
    expect(Object.values(scans).flat().length).toBeGreaterThan(0);
  });
  it('are planned once: each keeps its generic plan after its first five runs, a call alone in each batch', async () => {
    // PostgreSQL plans a prepared statement with its values for five runs, then keeps the plan made
    // without them only if it is estimated no dearer. A batch of one call made the custom plans look
    // cheaper than the generic one (unnest of an array of known length), and the batched insert and
    // end were planned at every run; `arrayParam` hides the arrays' length from both plans.
    const org = await t.signup();
    const { agent } = await t.agentWithCredentials(org, { rateLimitPerMinute: null });
    again = openPostgres({ url: t.db.url as string, poolSize: 1, timeoutMs: 10_000 });
    const auth = createAuthRepository(again.db);
    const callsRepository = createCallsRepository(again.db);
    const tools = createToolsRepository(again.db);
    const clickToCall = createClickToCallRepository(again.db);
    const deliveries = createDeliveriesRepository(again.db);
    for (let run = 0; run < 8; run++) {
      const id = newId('call');
      const accepted = await clickToCall.acceptCall({
        call: queuedCall(org.organization.id, agent.id, id),
        maxConcurrentCalls: null,
      });
      expect(accepted).toEqual({ ok: true });
      await auth.findPrincipalBySession(`no such token ${run}`, new Date());
      await auth.findPrincipalByApiKey(`no such key ${run}`);
      await callsRepository.providerContext(id);
      await tools.callToolContext(id, 'check_availability');
      expect(await callsRepository.setProviderCallId(id, `provider_${id}`)).toBe(true);
      expect(await callsRepository.markRinging(id)).toBe(true);
      expect(await callsRepository.markAnswered(id, new Date())).toBe(true);
      expect(await callsRepository.collectOf(id)).toEqual([]);
      const ended = await callsRepository.end(id, endedNow());
      expect(ended?.id).toBe(id);
      await deliveries.claim(claimOptions());
      await deliveries.complete(attempted(`dlv_unknown_${run}`));
    }
    const plans = rowsOf<{ name: string; generic: number; custom: number }>(
      await again.db.execute(
        sql`select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements order by name`,
      ),
    );
    expect(plans.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'accept_calls',
        'call_collects',
        'claim_deliveries',
        'complete_deliveries',
        'end_calls',
        'mark_calls_answered',
        'mark_calls_ringing',
        'provider_call_contexts',
        'set_provider_call_ids',
        'tool_call_context',
      ]),
    );
    // Eight runs each: five custom plans, then the generic plan kept (three runs planned no more).
    expect(plans.filter((p) => p.generic === 0)).toEqual([]);
  });
});
