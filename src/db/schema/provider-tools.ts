import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { providerCredentials } from './provider-credentials.js';

/**
 * Our tools as published in a provider account (a Vapi function tool), one row per tool and
 * credential: publishing updates the same provider tool, and removes it once no agent of that
 * account has the tool attached.
 */
export const providerTools = pgTable(
  'provider_tools',
  {
    credentialId: text('credential_id')
      .notNull()
      .references(() => providerCredentials.id, { onDelete: 'cascade' }),
    /** Our tool id; not a foreign key, since the row outlives our tool until the provider's copy is removed. */
    toolId: text('tool_id').notNull(),
    providerToolId: text('provider_tool_id').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.toolId] })],
);
