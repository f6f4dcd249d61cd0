import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';

/** An organization's do-not-call list: a number on it is never called (ctc:013). */
export const suppressions = pgTable(
  'suppressions',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** E.164. */
    phone: text('phone').notNull(),
    reason: text('reason'),
    /** `api` (added by hand or by upload) or `outcome` (a call ended in a do-not-call outcome). */
    source: text('source').notNull().default('api'),
    /** The call whose outcome added it (source `outcome`). */
    callId: text('call_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('suppressions_phone_uq').on(t.organizationId, t.phone),
    index('suppressions_org_idx').on(t.organizationId, t.id),
  ],
);
