import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

// Decision 0073: a call's organization and agent are one foreign key, to the agent in that
// organization. The service always records a call with its agent's organization; the database now
// holds that too, whatever writes the row.
let t: TestApp;
let owner: Org;
let stranger: Org;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signup('Owner');
  stranger = await t.signup('Stranger');
  agentId = (await t.createAgent(owner)).id;
});
afterAll(async () => {
  await t.close();
});

const insertCall = (id: string, organizationId: string, agent: string) =>
  t.db.database.db.execute(sql`
    insert into calls (id, organization_id, agent_id, provider, to_number, status, variables, collected_data,
      transcript, deadline_at)
    values (${id}, ${organizationId}, ${agent}, 'simulator', '+14155550123', 'ended', '{}', '{}', '[]', now())`);

/** The PostgreSQL error code of a failed statement, however the driver wrapped it. */
async function refusal(statement: Promise<unknown>): Promise<{ code: string }> {
  try {
    await statement;
  } catch (error) {
    for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
      const { code } = e as { code?: unknown };
      if (typeof code === 'string') return { code };
    }
    throw error;
  }
  throw new Error('the statement was not refused');
}

describe("a call's agent and organization", () => {
  it("refuses a call recorded under another organization than its agent's, and changes nothing", async () => {
    expect(await refusal(insertCall('call_elsewhere', stranger.organization.id, agentId))).toEqual({ code: '23503' });
    const rows = rowsOf(await t.db.database.db.execute(sql`select id from calls where id = 'call_elsewhere'`));
    expect(rows).toEqual([]);
  });

  it('refuses a call whose agent does not exist', async () => {
    expect(await refusal(insertCall('call_nobody', owner.organization.id, 'agt_nobody'))).toEqual({ code: '23503' });
  });

  it("records a call under its agent's own organization", async () => {
    await insertCall('call_home', owner.organization.id, agentId);
    const rows = rowsOf<{ agent_id: string }>(
      await t.db.database.db.execute(sql`select agent_id from calls where id = 'call_home'`),
    );
    expect(rows).toEqual([{ agent_id: agentId }]);
  });

  it('is the one foreign key of calls, named calls_agent_fk', async () => {
    const keys = rowsOf<{ conname: string; definition: string }>(
      await t.db.database.db.execute(sql`
        select conname, pg_get_constraintdef(oid) as definition from pg_constraint
        where conrelid = 'calls'::regclass and contype = 'f'`),
    );
    expect(keys).toEqual([
      {
        conname: 'calls_agent_fk',
        definition: expect.stringContaining(
          'FOREIGN KEY (organization_id, agent_id) REFERENCES agents(organization_id, id)',
        ),
      },
    ]);
  });
});
