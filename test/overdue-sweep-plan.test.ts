import { drizzle } from 'drizzle-orm/node-postgres';
import { describe, expect, it } from 'vitest';
import { createCallsRepository } from '../src/calls/calls.repository.js';
import type { Db } from '../src/db/client.js';
import * as schema from '../src/db/schema/index.js';
import { ownPostgresClient } from './helpers/database.js';

// Decision 0113: the duration sweep (every few seconds in every worker) finds the open calls past
// their deadline through the partial index of open calls, whatever the statistics say. Once they
// said that thousands of calls were open and overdue, and the sweep walked the primary key through
// every call, in the order of ids, to find none: 62 ms each time on 20,000 calls.

describe.runIf(process.env.TEST_DATABASE_URL)('the duration sweep on PostgreSQL', () => {
  const connected = ownPostgresClient();

  it('reads only the calls the index of open calls gives, though the statistics say thousands are overdue', async () => {
    const client = connected();
    // 5,000 calls open past their deadline when the table is analyzed; all ended since, and one open
    // call whose deadline is to come. The rows are written directly (their organization and agent
    // unchecked): only the plan is in question.
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    await client.query(`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, variables, collected_data,
                         transcript, deadline_at)
      select 'call_overdue_' || g, 'org_sweep', 'agt_sweep', 'vapi', '+1415' || lpad(g::text, 7, '0'), 'in_progress',
             '{}', '{}', '[]', now() - interval '1 hour'
      from generate_series(1, 5000) g`);
    await client.query('commit');
    await client.query('analyze calls');
    await client.query(`update calls set status = 'ended' where id like 'call_overdue_%'`);
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    await client.query(`
      insert into calls (id, organization_id, agent_id, provider, to_number, status, variables, collected_data,
                         transcript, deadline_at)
      values ('call_open_sweep', 'org_sweep', 'agt_sweep', 'vapi', '+14155550199', 'in_progress', '{}', '{}', '[]',
              now() + interval '1 hour')`);
    await client.query('commit');

    // The sweep, on this connection, in a transaction whose own statistics count what it read.
    const calls = createCallsRepository(drizzle(client, { schema }) as unknown as Db);
    await client.query('begin');
    try {
      expect(await calls.closeOverdue(new Date(), 500)).toEqual([]);
      const { rows } = await client.query<{ by_key: string; by_open: string }>(`
        select pg_stat_get_xact_tuples_returned('calls_pkey'::regclass) as by_key,
               pg_stat_get_xact_numscans('calls_open_deadline_idx'::regclass) as by_open`);
      expect(Number(rows[0]?.by_open)).toBeGreaterThan(0);
      // Next to no call read by its key: the index of open calls gave none. In the order of ids, the
      // plan read 10,003 entries of the primary key (every version of every call).
      expect(Number(rows[0]?.by_key)).toBeLessThan(100);
    } finally {
      await client.query('rollback');
    }
  });
});
