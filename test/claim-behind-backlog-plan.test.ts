import { drizzle } from 'drizzle-orm/node-postgres';
import { describe, expect, it } from 'vitest';
import type { Db } from '../src/db/client.js';
import * as schema from '../src/db/schema/index.js';
import { createDeliveriesRepository } from '../src/deliveries/deliveries.repository.js';
import { ownPostgresClient } from './helpers/database.js';

// Decision 0114: behind a slow receiver's backlog, which the worker may not take more of, the claim
// reads a bounded head of the queue and then each integration's oldest due deliveries by their own
// index. It read past the backlog one delivery at a time before: 50 ms a claim behind 50,000.

describe.runIf(process.env.TEST_DATABASE_URL)('the delivery claim behind a backlog, on PostgreSQL', () => {
  const connected = ownPostgresClient();

  it('reads a bounded part of a backlog of 5,000 to find the delivery behind it', async () => {
    const client = connected();
    // Written directly (their calls and integrations unchecked): only what the claim reads is in question.
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    await client.query(`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
      select 'dlv_slow' || g, 'org_blk', 'intg_slow', 'call_slow' || g, 'msg_slow' || g, 'pending',
             now() - interval '1 hour' + g * interval '1 ms'
      from generate_series(1, 5000) g
      union all
      select 'dlv_behind', 'org_blk', 'intg_behind', 'call_behind', 'msg_behind', 'pending', now() - interval '1 second'`);
    await client.query('commit');
    await client.query('analyze deliveries');

    const deliveries = createDeliveriesRepository(drizzle(client, { schema }) as unknown as Db);
    await client.query('begin');
    try {
      const claimed = await deliveries.claim({
        limit: 50,
        perIntegration: 16,
        room: new Map([['intg_slow', 0]]),
        leaseSeconds: 30,
        lookAheadMs: 5000,
      });
      expect(claimed.dueCount).toBe(1);
      const { rows } = await client.query<{ read: string; claimed: string }>(`
        select pg_stat_get_xact_tuples_returned('deliveries'::regclass)
                 + pg_stat_get_xact_tuples_returned('deliveries_due_idx'::regclass)
                 + pg_stat_get_xact_tuples_returned('deliveries_due_by_integration_idx'::regclass) as read,
               (select count(*) from deliveries where claim > 0) as claimed`);
      expect(Number(rows[0]?.claimed)).toBe(1);
      // The head (four times the limit), a step per integration and the one behind. Before, the claim
      // read all 5,001 rows (here by a scan of the table) to find the one.
      expect(Number(rows[0]?.read)).toBeLessThan(300);
    } finally {
      await client.query('rollback');
    }
  });
});
