import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInboundCallsRepository } from '../src/calls/inbound-calls.repository.js';
import { type Db, rowsOf } from '../src/db/client.js';
import { newId } from '../src/lib/ids.js';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';

// Decision 0112: the unique index of provider call ids leaves simulated calls out. A provider's own
// ids stay unique and are found through it; a simulated call keeps its id (`sim_<player>_<uuid>`),
// which nothing looks up, without an entry.

let t: TestApp;
let org: Org;
let agentId: string;
let db: Db;

/** A call of the test agent with this provider and provider call id, as the SQL of the services writes one. */
const insertCall = (provider: string, providerCallId: string) =>
  db.execute(sql`
    insert into calls (id, organization_id, agent_id, provider, provider_call_id, to_number, status, variables,
                       collected_data, transcript, deadline_at)
    values (${newId('call')}, ${org.organization.id}, ${agentId}, ${provider}, ${providerCallId}, ${nextPhone()},
            'ended', '{}', '{}', '[]', now())`);

beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  agentId = (await t.createAgent(org)).id;
  db = t.db.database.db;
});

afterAll(async () => {
  await t.close();
});

describe('the index of provider call ids', () => {
  it('a simulated call keeps its provider call id', async () => {
    const { agent, apiToken, apiSecret } = await t.agentWithCredentials(org);
    const placed = await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const call = await t.waitForCall(org, placed.body.callId);
    expect(call).toMatchObject({ agentId: agent.id, status: 'ended', providerCallId: expect.stringMatching(/^sim_/) });
  });

  it("refuses a second call with one of a provider's ids, and leaves simulated calls out", async () => {
    await insertCall('vapi', 'vapi-call-1');
    const refused = await insertCall('vapi', 'vapi-call-1').then(
      () => undefined,
      (error: Error) => String((error.cause as Error | undefined)?.message),
    );
    expect(refused).toMatch(/unique constraint "calls_provider_call_uq"/);
    // The same id at another provider is another call.
    await insertCall('retell', 'vapi-call-1');
    // Unique by construction, not by the index: a repeat (which the simulator never makes) is not refused.
    await insertCall('simulator', 'sim_0123456789abcdef_repeated');
    await insertCall('simulator', 'sim_0123456789abcdef_repeated');
  });

  it("finds a provider's call through the index, and an incoming call is recorded once", async () => {
    const inbound = createInboundCallsRepository(db);
    await insertCall('retell', 'retell-call-7');
    const found = await inbound.contextByProviderCallId('retell', 'retell-call-7');
    expect(found).toMatchObject({ organizationId: org.organization.id });
    expect(await inbound.contextByProviderCallId('vapi', 'retell-call-7')).toBeUndefined();

    // The lookup's plan can probe the partial index: its condition follows from the query's.
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      return rowsOf<{ 'QUERY PLAN': string }>(
        await tx.execute(sql`explain select id from calls
          where provider = ${'retell'} and provider <> 'simulator' and provider_call_id = ${'retell-call-7'}`),
      )
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    });
    expect(plan).toMatch(/Index Scan using calls_provider_call_uq/);

    // Many webhooks of one incoming call at once: one insert wins, the others change nothing.
    const call = (id: string) => ({
      id,
      organizationId: org.organization.id,
      agentId,
      provider: 'vapi',
      providerCallId: 'vapi-inbound-1',
      fromNumber: nextPhone(),
      toNumber: nextPhone(),
      providerNumberId: null,
      providerCredentialId: null,
      status: 'ringing' as const,
      variables: {},
      startedAt: new Date(),
      deadlineAt: new Date(Date.now() + 600_000),
    });
    await Promise.all([inbound.insert(call(newId('call'))), inbound.insert(call(newId('call')))]);
    const recorded = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from calls where provider_call_id = 'vapi-inbound-1'`),
    );
    expect(recorded[0]?.n).toBe(1);
  });
});
