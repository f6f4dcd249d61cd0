import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * On a shared PostgreSQL, each process that plays simulated calls holds a lease here while it has
 * some under way, renewed as it plays (decision 0094). A lease past its time is a process gone: a
 * worker closes the calls it was playing, rather than leaving them open until their deadline.
 * A simulated call names its player in its provider call id (`sim_<player>_<uuid>`).
 */
export const simulatorLeases = pgTable('simulator_leases', {
  playerId: text('player_id').primaryKey(),
  /** The database's clock: `now()` when written plus the lease's length. */
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});
