import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { calls } from './calls.js';
import { integrations } from './integrations.js';
import { organizations } from './organizations.js';

/**
 * One call outcome on its way to one integration (docs/interface.md#deliveries). The table is the queue: a delivery
 * is due when `state` is pending and `next_attempt_at` has passed. Claiming one moves
 * `next_attempt_at` a lease ahead, so a delivery whose worker died becomes due again by itself.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    integrationId: text('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    callId: text('call_id')
      .notNull()
      .references(() => calls.id),
    /** Standard Webhooks' `webhook-id`: the same on every attempt, manual retries included. */
    webhookId: text('webhook_id').notNull(),
    /** pending → delivered | failed; a retry by hand makes it pending again. */
    state: text('state').notNull(),
    /** When it is next due (or, while claimed, when the claim lapses); null once not pending. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** Bumped by every claim: a worker may only record the attempt of the claim it holds. */
    claim: integer('claim').notNull().default(0),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** How many delays of the retry schedule have been used. */
    retriesUsed: integer('retries_used').notNull().default(0),
    /** A retry by hand: one attempt, whose result is final. */
    finalAttempt: boolean('final_attempt').notNull().default(false),
    /** The exact body, fixed by the first attempt so every attempt signs the same bytes. */
    payload: text('payload'),
    payloadTruncated: boolean('payload_truncated').notNull().default(false),
    /** Why it failed without a final attempt of its own (its integration was disabled). */
    failureReason: text('failure_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The queue: due deliveries in order, with the integration at hand for per-integration limits.
    index('deliveries_due_idx').on(t.nextAttemptAt, t.integrationId).where(sql`${t.state} = 'pending'`),
    // The same rows by integration: each integration's oldest due, when a backlog held back by its room
    // fills the head of the queue (decision 0114). Its predicate names the integration (every id is
    // longer than '') so that only a statement that says the same can read it: the queue's head and
    // its look ahead, read in due order, keep to the index above whatever the statistics say.
    index('deliveries_due_by_integration_idx')
      .on(t.integrationId, t.nextAttemptAt)
      .where(sql`${t.state} = 'pending' and ${t.integrationId} > ''`),
    index('deliveries_org_idx').on(t.organizationId, t.id),
    index('deliveries_integration_idx').on(t.integrationId, t.id),
    index('deliveries_call_idx').on(t.callId),
  ],
);

/** Every attempt of a delivery, as the delivery log shows it. */
export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull(),
    /** The receiver's HTTP status; null when no answer came (timeout, refused, blocked). */
    status: integer('status'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    errorCode: text('error_code'),
    /** The start of the receiver's answer, at most 20 KiB. */
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [index('delivery_attempts_delivery_idx').on(t.deliveryId, t.id)],
);
