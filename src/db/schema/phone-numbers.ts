import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { agents } from './agents.js';
import { organizations } from './organizations.js';
import { providerCredentials } from './provider-credentials.js';

/**
 * The organization's numbers at its providers (issue 17). A number bound to an inbound agent is
 * published to the provider (the provider answers it with that agent); the binding is kept in step
 * in the background, like an agent's publishing.
 */
export const phoneNumbers = pgTable(
  'phone_numbers',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** E.164. */
    number: text('number').notNull(),
    provider: text('provider').notNull(),
    providerCredentialId: text('provider_credential_id')
      .notNull()
      .references(() => providerCredentials.id),
    /** The number's id at the provider (Vapi phone number id; Retell uses the number itself). */
    providerNumberId: text('provider_number_id').notNull(),
    /** The inbound agent that answers it; null: none. */
    agentId: text('agent_id').references(() => agents.id),
    /** The agent the provider was last told about (null: none), so unbinding knows what to undo. */
    publishedAgentId: text('published_agent_id'),
    /** `pending` (due at `syncDueAt`), `synced` or `failed`, as for agents. */
    syncState: text('sync_state').notNull().default('synced'),
    syncError: text('sync_error'),
    syncAttempts: integer('sync_attempts').notNull().default(0),
    syncDueAt: timestamp('sync_due_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    index('phone_numbers_org_idx').on(t.organizationId, t.id).where(sql`${t.deletedAt} is null`),
    // A provider's number is imported once per account.
    uniqueIndex('phone_numbers_provider_number_uq')
      .on(t.providerCredentialId, t.providerNumberId)
      .where(sql`${t.deletedAt} is null`),
    index('phone_numbers_agent_idx').on(t.agentId).where(sql`${t.agentId} is not null`),
    index('phone_numbers_sync_due_idx').on(t.syncDueAt).where(sql`${t.syncState} = 'pending'`),
  ],
);
