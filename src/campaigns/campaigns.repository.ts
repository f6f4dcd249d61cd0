import { and, asc, count, desc, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import { type Db, lockOrganizationScope, rowsOf } from '../db/client.js';
import { campaignAttempts, campaignContacts, campaigns } from '../db/schema/index.js';
import type { CampaignState, ContactState } from './campaigns.schemas.js';

export type CampaignRow = typeof campaigns.$inferSelect;
export type NewCampaignRow = typeof campaigns.$inferInsert;
export type ContactRecord = typeof campaignContacts.$inferSelect;
export type AttemptRecord = typeof campaignAttempts.$inferSelect;

/** Contacts of a campaign in each state. */
export type StateCounts = Partial<Record<ContactState, number>>;

/** A contact to store: the row checks passed it. */
export interface NewContact {
  id: string;
  phone: string;
  variables: Record<string, string>;
  timezone: string | null;
}

/** A contact as results.csv writes it. */
export interface ResultRow {
  id: string;
  phone: string;
  state: string;
  attempts: number;
  lastOutcome: string | null;
  lastCallId: string | null;
  reason: string | null;
  variables: Record<string, string>;
}

const iso = (at: Date) => at.toISOString();

/**
 * The campaigns API's SQL (decision 0048): campaigns, their contacts and the state changes, each a
 * guarded UPDATE (`… where state in (…)`) so that the scheduler, in any process, never races one.
 */
export function createCampaignsRepository(db: Db) {
  const live = (organizationId: string, id: string) =>
    and(eq(campaigns.organizationId, organizationId), eq(campaigns.id, id), isNull(campaigns.deletedAt));

  return {
    /**
     * Inserts a campaign unless the organization already has `max` (not deleted): the count and the
     * insert are one step per organization (a transaction-scoped advisory lock), so concurrent
     * creates cannot pass the budget together. Undefined when it is full.
     */
    async insert(row: NewCampaignRow, max: number): Promise<CampaignRow | undefined> {
      return db.transaction(async (tx) => {
        await lockOrganizationScope(tx, 'campaigns', row.organizationId);
        const [counted] = await tx
          .select({ count: count() })
          .from(campaigns)
          .where(and(eq(campaigns.organizationId, row.organizationId), isNull(campaigns.deletedAt)));
        if ((counted?.count ?? 0) >= max) return undefined;
        const rows = await tx.insert(campaigns).values(row).returning();
        return rows[0] as CampaignRow;
      });
    },

    async find(organizationId: string, id: string): Promise<CampaignRow | undefined> {
      const rows = await db.select().from(campaigns).where(live(organizationId, id));
      return rows[0];
    },

    async list(
      organizationId: string,
      options: { state?: CampaignState; beforeId?: string; limit: number },
    ): Promise<CampaignRow[]> {
      return db
        .select()
        .from(campaigns)
        .where(
          and(
            eq(campaigns.organizationId, organizationId),
            isNull(campaigns.deletedAt),
            options.state ? eq(campaigns.state, options.state) : undefined,
            options.beforeId ? lt(campaigns.id, options.beforeId) : undefined,
          ),
        )
        .orderBy(desc(campaigns.id))
        .limit(options.limit);
    },

    async count(organizationId: string, state?: CampaignState): Promise<number> {
      const rows = await db
        .select({ n: count() })
        .from(campaigns)
        .where(
          and(
            eq(campaigns.organizationId, organizationId),
            isNull(campaigns.deletedAt),
            state ? eq(campaigns.state, state) : undefined,
          ),
        );
      return rows[0]?.n ?? 0;
    },

    /** Contacts per state of each campaign: one GROUP BY over the state index. */
    async stateCounts(campaignIds: string[]): Promise<Map<string, StateCounts>> {
      const counts = new Map<string, StateCounts>();
      if (campaignIds.length === 0) return counts;
      const rows = await db
        .select({ campaignId: campaignContacts.campaignId, state: campaignContacts.state, n: count() })
        .from(campaignContacts)
        .where(inArray(campaignContacts.campaignId, campaignIds))
        .groupBy(campaignContacts.campaignId, campaignContacts.state);
      for (const row of rows) {
        const of = counts.get(row.campaignId) ?? {};
        of[row.state as ContactState] = row.n;
        counts.set(row.campaignId, of);
      }
      return counts;
    },

    /** Changes the campaign when it is in one of `states`; undefined when it is not (or is not there). */
    async update(
      organizationId: string,
      id: string,
      states: readonly CampaignState[],
      changes: Partial<NewCampaignRow>,
      now: Date,
    ): Promise<CampaignRow | undefined> {
      const rows = await db
        .update(campaigns)
        .set({ ...changes, updatedAt: now })
        .where(and(live(organizationId, id), inArray(campaigns.state, [...states])))
        .returning();
      return rows[0];
    },

    /** draft → running: due at once (or at startAt), its pending contacts without a due time due now. */
    async start(organizationId: string, id: string, now: Date): Promise<CampaignRow | undefined> {
      return db.transaction(async (tx) => {
        const rows = await tx
          .update(campaigns)
          .set({
            state: 'running',
            startedAt: now,
            updatedAt: now,
            nextDueAt: sql`greatest(${iso(now)}::timestamptz, coalesce(${campaigns.startAt}, ${iso(now)}::timestamptz))`,
          })
          .where(
            and(
              live(organizationId, id),
              eq(campaigns.state, 'draft'),
              sql`exists (select 1 from campaign_contacts where campaign_id = ${id})`,
            ),
          )
          .returning();
        if (rows[0]) {
          await tx
            .update(campaignContacts)
            .set({ dueAt: now, updatedAt: now })
            .where(
              and(
                eq(campaignContacts.campaignId, id),
                eq(campaignContacts.state, 'pending'),
                isNull(campaignContacts.dueAt),
              ),
            );
        }
        return rows[0];
      });
    },

    /** draft | running | paused → cancelled: every contact still waiting is skipped, in the same transaction. */
    async cancel(organizationId: string, id: string, now: Date): Promise<CampaignRow | undefined> {
      return db.transaction(async (tx) => {
        const rows = await tx
          .update(campaigns)
          .set({ state: 'cancelled', endedAt: now, updatedAt: now, nextDueAt: null })
          .where(and(live(organizationId, id), inArray(campaigns.state, ['draft', 'running', 'paused'])))
          .returning();
        if (rows[0]) {
          await tx
            .update(campaignContacts)
            .set({ state: 'skipped', reason: 'campaign cancelled', dueAt: null, updatedAt: now })
            .where(and(eq(campaignContacts.campaignId, id), inArray(campaignContacts.state, ['pending', 'retrying'])));
        }
        return rows[0];
      });
    },

    async softDelete(
      organizationId: string,
      id: string,
      states: readonly CampaignState[],
      now: Date,
    ): Promise<boolean> {
      const rows = await db
        .update(campaigns)
        .set({ deletedAt: now, updatedAt: now })
        .where(and(live(organizationId, id), inArray(campaigns.state, [...states])))
        .returning({ id: campaigns.id });
      return rows.length > 0;
    },

    /** How many contacts the campaign holds. */
    async contactCount(campaignId: string, state?: ContactState): Promise<number> {
      const rows = await db
        .select({ n: count() })
        .from(campaignContacts)
        .where(and(eq(campaignContacts.campaignId, campaignId), state ? eq(campaignContacts.state, state) : undefined));
      return rows[0]?.n ?? 0;
    },

    /** Which of `phones` the campaign holds already. */
    async existingPhones(campaignId: string, phones: string[]): Promise<Set<string>> {
      if (phones.length === 0) return new Set();
      const rows = await db
        .select({ phone: campaignContacts.phone })
        .from(campaignContacts)
        .where(and(eq(campaignContacts.campaignId, campaignId), inArray(campaignContacts.phone, phones)));
      return new Set(rows.map((row) => row.phone));
    },

    /**
     * Runs `work` in one transaction, with a function storing a batch of contacts into it: new
     * numbers are added (due now unless the campaign is a draft), numbers it holds already keep
     * their row, their variables and time zone updated while still pending. Nothing is stored
     * unless the campaign is in draft, running or paused when the batch is written. When `work`
     * is done, a running campaign is told that contacts are due now.
     */
    async importContacts<T>(
      organizationId: string,
      campaignId: string,
      now: Date,
      work: (store: (batch: NewContact[]) => Promise<{ added: number; merged: number }>) => Promise<T>,
    ): Promise<T> {
      return db.transaction(async (tx) => {
        const store = async (batch: NewContact[]) => {
          if (batch.length === 0) return { added: 0, merged: 0 };
          // One statement a batch, answering two counts rather than a row per contact.
          const result = await tx.execute(sql`
            with stored as (
            insert into campaign_contacts (id, campaign_id, organization_id, phone, variables, timezone, state, due_at, created_at, updated_at)
            select r.id, c.id, c.organization_id, r.phone, r.variables, r.timezone, 'pending',
                   case when c.state = 'draft' then null else ${iso(now)}::timestamptz end,
                   ${iso(now)}::timestamptz, ${iso(now)}::timestamptz
            from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as r(id text, phone text, variables jsonb, timezone text)
            cross join (
              select id, organization_id, state from campaigns
              where id = ${campaignId} and organization_id = ${organizationId} and deleted_at is null
                and state in ('draft', 'running', 'paused')
            ) c
            on conflict (campaign_id, phone) do update set
              variables = case when campaign_contacts.state = 'pending' then excluded.variables else campaign_contacts.variables end,
              timezone = case when campaign_contacts.state = 'pending' then excluded.timezone else campaign_contacts.timezone end,
              updated_at = case when campaign_contacts.state = 'pending' then excluded.updated_at else campaign_contacts.updated_at end
            returning (xmax = 0) as inserted)
            select count(*) filter (where inserted)::int as added, count(*)::int as stored from stored`);
          const counted = rowsOf<{ added: number; stored: number }>(result)[0];
          const added = Number(counted?.added ?? 0);
          return { added, merged: Number(counted?.stored ?? 0) - added };
        };
        const outcome = await work(store);
        await tx.execute(sql`
          update campaigns set next_due_at = least(next_due_at, ${iso(now)}::timestamptz), updated_at = ${iso(now)}::timestamptz
          where id = ${campaignId} and state = 'running'`);
        // A cancel that committed while this import ran: what it added is skipped too.
        await tx.execute(sql`
          update campaign_contacts set state = 'skipped', reason = 'campaign cancelled', due_at = null
          where campaign_id = ${campaignId} and state = 'pending'
            and exists (select 1 from campaigns where id = ${campaignId} and state = 'cancelled')`);
        return outcome;
      });
    },

    /** A page of the campaign's contacts in the order they were added. */
    async listContacts(
      campaignId: string,
      options: { state?: ContactState; afterId?: string; limit: number },
    ): Promise<ContactRecord[]> {
      return db
        .select()
        .from(campaignContacts)
        .where(
          and(
            eq(campaignContacts.campaignId, campaignId),
            options.state ? eq(campaignContacts.state, options.state) : undefined,
            options.afterId ? gt(campaignContacts.id, options.afterId) : undefined,
          ),
        )
        .orderBy(asc(campaignContacts.id))
        .limit(options.limit);
    },

    /** The attempts of these contacts, in order. */
    async attemptsOf(contactIds: string[]): Promise<AttemptRecord[]> {
      if (contactIds.length === 0) return [];
      return db
        .select()
        .from(campaignAttempts)
        .where(inArray(campaignAttempts.contactId, contactIds))
        .orderBy(asc(campaignAttempts.contactId), asc(campaignAttempts.number));
    },

    /** A batch of results.csv: contacts after `afterId`, each with its last attempt's call. */
    async resultBatch(campaignId: string, afterId: string | undefined, limit: number): Promise<ResultRow[]> {
      const result = await db.execute(sql`
        select c.id, c.phone, c.state, c.attempts, c.last_outcome as "lastOutcome", c.reason, c.variables,
          (select a.call_id from campaign_attempts a where a.contact_id = c.id order by a.number desc limit 1) as "lastCallId"
        from campaign_contacts c
        where c.campaign_id = ${campaignId} ${afterId ? sql`and c.id > ${afterId}` : sql``}
        order by c.id
        limit ${limit}`);
      return rowsOf<ResultRow>(result);
    },
  };
}

export type CampaignsRepository = ReturnType<typeof createCampaignsRepository>;
