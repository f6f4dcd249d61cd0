import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/client.js';

/** The rows one batch removed, table by table. */
export interface RemovedRows {
  calls: number;
  toolInvocations: number;
  deliveries: number;
  deliveryAttempts: number;
}

/** The SQL of retention (decision 0052): which calls are past it, and removing them with their rows. */
export function createRetentionRepository(db: Db) {
  return {
    /**
     * Removes up to `limit` of the oldest calls created more than `days` days ago, with everything
     * that references them, in one statement. A call is kept while it:
     * - is not ended (a call still under way is never removed, however old);
     * - has a delivery still `pending` (queued, or waiting for its next retry): its outcome has
     *   not reached the customer yet, and the worker needs the call to build and record it;
     * - has a campaign attempt still `placing` or `placed`: the campaign scheduler settles the
     *   attempt from its call (src/campaigns/scheduler.repository.ts); looked up by campaign, so
     *   the small partial index of open attempts answers it;
     * - lies at or after `stats_rollup_progress.rolled_until`: its quarter hour is not in
     *   `call_stats_slots` yet, and `GET /v1/stats` would lose it.
     * Campaign attempts themselves stay (they hold their own outcome and result, and a contact's
     * attempt numbers must not be reused); idempotency keys expire after 24 h on their own.
     *
     * One statement, not one per table, for two reasons: the foreign keys from `deliveries` and
     * `tool_invocations` to `calls` are checked at its end, when both sides are gone; and the
     * trigger on `deliveries` that keeps the rolled-up delivery counts current
     * (`switchboard_stats_deliveries_changed`, drizzle/0011_stats.sql) runs at its end too, finds
     * the calls gone, and so leaves the stored statistics as they were: removing old rows does not
     * change what the statistics said about them.
     *
     * A delivery retried by hand while its call is being removed becomes pending again: the
     * statement then leaves it, the call's foreign key refuses the whole batch, and the next pass
     * keeps that call. The retry is never lost.
     *
     * `skip locked`: two workers never wait on each other's batch, and a call being updated right
     * now (a late provider event) is left for the next pass.
     */
    async removeOldCalls(days: number, limit: number): Promise<RemovedRows> {
      const result = await db.execute(sql`
        with doomed as (
          select c.id from calls c
          where c.created_at < least(
              now() - make_interval(days => ${days}::int),
              (select rolled_until from stats_rollup_progress where id = 1))
            and c.status = 'ended'
            and not exists (select 1 from deliveries d where d.call_id = c.id and d.state = 'pending')
            and (c.campaign_id is null or not exists (
              select 1 from campaign_attempts a
              where a.campaign_id = c.campaign_id and a.call_id = c.id and a.state in ('placing', 'placed')))
          order by c.created_at
          limit ${limit}
          for update of c skip locked
        ),
        removed_attempts as (
          delete from delivery_attempts da using deliveries d, doomed
          where d.call_id = doomed.id and da.delivery_id = d.id
          returning 1
        ),
        removed_deliveries as (
          delete from deliveries d using doomed where d.call_id = doomed.id and d.state <> 'pending' returning 1
        ),
        removed_tools as (
          delete from tool_invocations t using doomed where t.call_id = doomed.id returning 1
        ),
        removed_calls as (
          delete from calls c using doomed where c.id = doomed.id returning 1
        )
        select
          (select count(*) from removed_calls)::int as calls,
          (select count(*) from removed_tools)::int as tool_invocations,
          (select count(*) from removed_deliveries)::int as deliveries,
          (select count(*) from removed_attempts)::int as delivery_attempts`);
      const [row] = rowsOf<{ calls: number; tool_invocations: number; deliveries: number; delivery_attempts: number }>(
        result,
      );
      return {
        calls: Number(row?.calls ?? 0),
        toolInvocations: Number(row?.tool_invocations ?? 0),
        deliveries: Number(row?.deliveries ?? 0),
        deliveryAttempts: Number(row?.delivery_attempts ?? 0),
      };
    },
  };
}

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;
