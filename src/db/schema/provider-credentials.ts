import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';

/** An organization's account at a voice provider (docs/interface.md#provider-credentials): its API key and webhook secret, sealed. */
export const providerCredentials = pgTable(
  'provider_credentials',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    provider: text('provider').notNull(),
    name: text('name').notNull(),
    /** AES-256-GCM sealed with the credential id as associated data, like every stored secret. */
    apiKeySealed: text('api_key_sealed').notNull(),
    /** The last four characters of the key, shown so a person can tell keys apart. */
    apiKeyLast4: text('api_key_last4').notNull(),
    webhookSecretSealed: text('webhook_secret_sealed'),
    /**
     * The webhook secret before the last change, sealed like it: it still opens webhooks for 24 hours
     * after `webhook_secret_changed_at` (decision 0096). Null when there is none, or once revoked.
     */
    previousWebhookSecretSealed: text('previous_webhook_secret_sealed'),
    webhookSecretChangedAt: timestamp('webhook_secret_changed_at', { withTimezone: true }),
    /** The provider's API base URL when not its public one (a regional endpoint, a test double). */
    baseUrl: text('base_url'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('provider_credentials_org_name_uq').on(t.organizationId, t.name)],
);
