import { and, count, desc, eq, like, lt, type SQL, sql } from 'drizzle-orm';
import { type Db, probeOnly, rowsOf } from '../db/client.js';
import { suppressions } from '../db/schema/index.js';

export type SuppressionRow = typeof suppressions.$inferSelect;

/** One number to list, as an upload or `POST /v1/suppressions` gives it. */
export interface NewSuppression {
  id: string;
  phone: string;
  reason: string | null;
}

/**
 * The statement part that lists the numbers of calls just ended whose outcome is one of their
 * agent's or their campaign's `doNotCallOutcomes` (decision 0047): run inside the statement that ends
 * the calls (src/calls/calls.repository.ts), so the end and the listing commit together, or neither
 * does. `ended` names the ending statement's rows: id, organization_id, agent_id, outcome, direction,
 * from_number, to_number, campaign_id. The number is the other party's: the one called, or for an
 * incoming call the caller's. A number listed already stays as it was. The ending statement is
 * prepared (`end_calls`, decision 0058): its lookups carry `probeOnly`.
 */
export function suppressEndedCalls(ended: SQL): SQL {
  return sql`
    insert into suppressions (id, organization_id, phone, reason, source, call_id)
    select switchboard_new_id('dnc'), e.organization_id, n.phone, 'outcome ' || e.outcome, 'outcome', e.id
    from ${ended} e
    join agents a on a.id = e.agent_id and ${probeOnly(sql`a.id`)}
    left join campaigns c on c.id = e.campaign_id and ${probeOnly(sql`c.id`)}
    cross join lateral (
      select case when e.direction = 'inbound' then e.from_number else e.to_number end as phone
    ) n
    where e.outcome is not null and n.phone is not null
      and (a.do_not_call_outcomes ? e.outcome or coalesce(c.do_not_call_outcomes ? e.outcome, false))
    on conflict (organization_id, phone) do nothing
    returning call_id`;
}

/**
 * The condition "the organization lists this number", for the statements of other domains that
 * decide a call: click to call's insert of the call (decision 0056) and the campaign scheduler's
 * claim of its contacts. One probe of the unique index on (organization_id, phone) per row, and
 * always that: written as a scalar subquery (not `exists`, which PostgreSQL may turn into a hash
 * join over the whole list), so that a plan made once and kept (the prepared insert of click to
 * call, decision 0058) stays a probe however long the list has grown since; `probeOnly` keeps it
 * one even when that plan was made while the list was a page long.
 */
export function numberIsListed(organizationId: SQL, phone: SQL): SQL {
  return sql`coalesce((select true from suppressions s
    where s.organization_id = ${organizationId} and s.phone = ${phone} and ${probeOnly(sql`s.phone`)} limit 1), false)`;
}

export function createSuppressionsRepository(db: Db) {
  const filterOf = (organizationId: string, phonePrefix: string | undefined) =>
    and(
      eq(suppressions.organizationId, organizationId),
      // Only `+` and digits reach here (the route's pattern): no LIKE wildcard to escape.
      phonePrefix === undefined ? undefined : like(suppressions.phone, `${phonePrefix}%`),
    );

  return {
    async find(organizationId: string, id: string): Promise<SuppressionRow | undefined> {
      const [row] = await db
        .select()
        .from(suppressions)
        .where(and(eq(suppressions.organizationId, organizationId), eq(suppressions.id, id)))
        .limit(1);
      return row;
    },

    async findByPhone(organizationId: string, phone: string): Promise<SuppressionRow | undefined> {
      const [row] = await db
        .select()
        .from(suppressions)
        .where(and(eq(suppressions.organizationId, organizationId), eq(suppressions.phone, phone)))
        .limit(1);
      return row;
    },

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(
      organizationId: string,
      filter: { phonePrefix?: string; beforeId?: string; limit: number },
    ): Promise<SuppressionRow[]> {
      return db
        .select()
        .from(suppressions)
        .where(
          and(
            filterOf(organizationId, filter.phonePrefix),
            filter.beforeId ? lt(suppressions.id, filter.beforeId) : undefined,
          ),
        )
        .orderBy(desc(suppressions.id))
        .limit(filter.limit);
    },

    /** How many numbers the organization lists (with the prefix, when given). */
    async count(organizationId: string, phonePrefix?: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(suppressions).where(filterOf(organizationId, phonePrefix));
      return row?.n ?? 0;
    },

    /** Adds one number; undefined when it is listed already (the row is left as it was). */
    async insert(organizationId: string, row: NewSuppression): Promise<SuppressionRow | undefined> {
      const [inserted] = await db
        .insert(suppressions)
        .values({ ...row, organizationId, source: 'api' })
        .onConflictDoNothing({ target: [suppressions.organizationId, suppressions.phone] })
        .returning();
      return inserted;
    },

    /**
     * Adds a batch of numbers in one statement; returns the numbers it added. A number listed
     * already, or twice in the batch, is added once and left as it was.
     */
    async insertMany(organizationId: string, rows: NewSuppression[]): Promise<Set<string>> {
      if (rows.length === 0) return new Set();
      const result = await db.execute(sql`
        insert into suppressions (id, organization_id, phone, reason, source)
        select v.id, ${organizationId}, v.phone, v.reason, 'api'
        from unnest(${sql.param(rows.map((r) => r.id))}::text[], ${sql.param(rows.map((r) => r.phone))}::text[],
          ${sql.param(rows.map((r) => r.reason))}::text[]) with ordinality as v(id, phone, reason, n)
        order by v.n
        on conflict (organization_id, phone) do nothing
        returning phone`);
      return new Set(rowsOf<{ phone: string }>(result).map((r) => r.phone));
    },

    /** Of these numbers, those the organization lists. */
    async listedOf(organizationId: string, phones: string[]): Promise<Set<string>> {
      if (phones.length === 0) return new Set();
      const result = await db.execute(sql`
        select phone from suppressions
        where organization_id = ${organizationId} and phone = any(${sql.param(phones)}::text[])`);
      return new Set(rowsOf<{ phone: string }>(result).map((r) => r.phone));
    },

    async remove(organizationId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(suppressions)
        .where(and(eq(suppressions.organizationId, organizationId), eq(suppressions.id, id)))
        .returning({ id: suppressions.id });
      return rows.length > 0;
    },
  };
}

export type SuppressionsRepository = ReturnType<typeof createSuppressionsRepository>;
