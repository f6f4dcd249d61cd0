import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';

/**
 * What the simulator reads of the calls table: which call of its agent to its number a call is, for
 * a scenario's `answers` (docs/interface.md#simulator). Read from the table, not counted in memory,
 * so the count holds across processes and restarts. And its process's lease (decision 0094).
 */
export function createSimulatorRepository(db: Db) {
  return {
    /**
     * 1 for the agent's first call to the call's number, 2 for the second…: the calls of the same
     * agent, direction and other party (the number called; for an incoming call, the caller)
     * created before this one, plus one. Null when the call is not recorded.
     */
    async callNumber(callId: string): Promise<number | null> {
      const rows = rowsOf<{ n: number | string | null }>(
        await db.execute(sql`
          select (
            select count(*) from calls c
            where c.organization_id = me.organization_id and c.agent_id = me.agent_id
              and c.direction = me.direction
              and (case when me.direction = 'inbound' then c.from_number = me.from_number
                        else c.to_number = me.to_number end)
              and (c.created_at, c.id) <= (me.created_at, me.id)
          ) as n
          from calls me where me.id = ${callId}`),
      );
      const n = rows[0]?.n;
      return n === undefined || n === null ? null : Number(n);
    },

    /** The playing process's lease (decision 0094): held until the database's clock says `seconds` more. */
    async holdLease(playerId: string, seconds: number): Promise<void> {
      await db.execute(sql`
        insert into simulator_leases (player_id, expires_at)
        values (${playerId}, now() + make_interval(secs => ${seconds}))
        on conflict (player_id) do update set expires_at = excluded.expires_at`);
    },

    async releaseLease(playerId: string): Promise<void> {
      await db.execute(sql`delete from simulator_leases where player_id = ${playerId}`);
    },

    /** Whether some process's lease is past its time: a look at a handful of rows. */
    async anyLeaseLapsed(): Promise<boolean> {
      const result = await db.execute(sql`select 1 from simulator_leases where expires_at < now() limit 1`);
      return rowsOf(result).length > 0;
    },
  };
}

export type SimulatorRepository = ReturnType<typeof createSimulatorRepository>;
