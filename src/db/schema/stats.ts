import { sql } from 'drizzle-orm';
import { bigint, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The call statistics of one quarter hour (UTC) of one organization, for one agent or, with
 * `agent_id` '', for all of them (docs/decisions/0040-stats.md). Written by the stats rollup job
 * once every call of the quarter hour has ended; `GET /v1/stats` adds these up instead of reading
 * each call again, and computes only what is not rolled up yet from the calls themselves. Every
 * time zone's hours and days begin on a quarter hour, so a slot always falls in one interval.
 */
export const callStatsSlots = pgTable(
  'call_stats_slots',
  {
    organizationId: text('organization_id').notNull(),
    /** '' for the organization's row (every agent). */
    agentId: text('agent_id').notNull(),
    slotStart: timestamp('slot_start', { withTimezone: true }).notNull(),
    calls: integer('calls').notNull(),
    answered: integer('answered').notNull(),
    noAnswer: integer('no_answer').notNull(),
    busy: integer('busy').notNull(),
    voicemail: integer('voicemail').notNull(),
    failed: integer('failed').notNull(),
    /** Ended calls by outcome: `{"SOLD": 3}`. */
    byOutcome: jsonb('by_outcome').$type<Record<string, number>>().notNull(),
    /** Answered (and ended) calls by outcome: the conversion's numerators. */
    answeredByOutcome: jsonb('answered_by_outcome').$type<Record<string, number>>().notNull(),
    durationSum: bigint('duration_sum', { mode: 'number' }).notNull(),
    durationCount: integer('duration_count').notNull(),
    /** Durations of answered calls as a histogram: bucket numbers and counts (src/stats/histogram.ts). */
    durationBuckets: integer('duration_buckets').array().notNull(),
    durationCounts: integer('duration_counts').array().notNull(),
    toolRuns: integer('tool_runs').notNull(),
    toolFailed: integer('tool_failed').notNull(),
    latencyBuckets: integer('latency_buckets').array().notNull(),
    latencyCounts: integer('latency_counts').array().notNull(),
    /** Kept current by a trigger on deliveries when a delivery of these calls changes state. */
    deliveriesDelivered: integer('deliveries_delivered').notNull(),
    deliveriesFailed: integer('deliveries_failed').notNull(),
    deliveriesPending: integer('deliveries_pending').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.agentId, t.slotStart] })],
);

/** How far the stats rollup job has looked: every quarter hour before `rolledUntil` is rolled up or has an open call. */
export const statsRollupProgress = pgTable('stats_rollup_progress', {
  id: integer('id').primaryKey().default(1),
  rolledUntil: timestamp('rolled_until', { withTimezone: true }).notNull().default(sql`'epoch'`),
});
