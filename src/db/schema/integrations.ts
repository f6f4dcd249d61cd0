import { boolean, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { TriggerConditions } from '../../integrations/trigger-conditions.js';
import { agents } from './agents.js';
import { organizations } from './organizations.js';

/** Where an agent's call outcomes are delivered (docs/interface.md#integrations). */
export const integrations = pgTable(
  'integrations',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    type: text('type').notNull(),
    url: text('url').notNull(),
    enabled: boolean('enabled').notNull(),
    /** The bearer token, AES-256-GCM sealed with the integration id as associated data. */
    authorizationSealed: text('authorization_sealed'),
    signing: boolean('signing').notNull(),
    /** Sealed like the token; shown to the organization, which needs it to verify. */
    signingSecretSealed: text('signing_secret_sealed').notNull(),
    /** A rotated-out secret, still signing alongside the new one until `previousSecretExpiresAt`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    triggerConditions: jsonb('trigger_conditions').$type<TriggerConditions>(),
    /** Why the service disabled it (a 410, five days of failures); null when a person did or nobody. */
    disabledReason: text('disabled_reason'),
    /** Since when every attempt has failed (null after a success): five days of it disables the integration. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('integrations_agent_idx').on(t.agentId, t.id),
    index('integrations_org_idx').on(t.organizationId, t.id),
  ],
);
