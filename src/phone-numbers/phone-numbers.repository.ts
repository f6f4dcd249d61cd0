import { and, desc, eq, isNull, lt, ne, sql } from 'drizzle-orm';
import { type Db, isUniqueViolation, lockOrganizationScope, rowsOf, selectDueInMs } from '../db/client.js';
import { agents, phoneNumbers } from '../db/schema/index.js';
import { MAX_PHONE_NUMBERS_PER_ORGANIZATION } from './phone-numbers.schemas.js';

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;
export type NewPhoneNumberRow = typeof phoneNumbers.$inferInsert;

/** What a number's binding depends on of its agent, read with the number. */
export interface BoundAgentState {
  type: string;
  deleted: boolean;
  providerCredentialId: string | null;
  /** The agent's id at the provider once published (Vapi assistant, Retell agent). */
  providerAgentId: string | null;
}

/** A live number with the state of its agent (null when it has none). */
export interface PhoneNumberRecord {
  row: PhoneNumberRow;
  agent: BoundAgentState | null;
}

/** A number claimed for syncing its binding, with the token its result must present. */
export interface ClaimedPhoneNumber {
  id: string;
  organizationId: string;
  provider: string;
  providerCredentialId: string;
  providerNumberId: string;
  agentId: string | null;
  publishedAgentId: string | null;
  /** Deleted: the provider is told "no agent", then the row goes. */
  deleted: boolean;
  agent: BoundAgentState | null;
  /** Another live row holds the same provider number (imported again): it owns the binding now. */
  superseded: boolean;
  attempts: number;
  claimToken: string;
}

/** Why a write was refused; each is answered 409 by the service. */
export type PhoneNumberRefusal =
  | { ok: false; reason: 'imported'; otherId: string | null }
  | { ok: false; reason: 'bound_elsewhere'; otherId: string }
  | { ok: false; reason: 'too_many' }
  | { ok: false; reason: 'not_found' };

/**
 * The agent a number should answer with at the provider, in SQL: its agent's provider id when the
 * number is live and its agent is live, inbound and on the number's credential; else none. The
 * service's `desiredProviderAgentId` says the same in TypeScript (decision 0038).
 */
const DESIRED_AGENT = sql`(
  select case when n.deleted_at is null and a.deleted_at is null and a.type = 'inbound'
              and a.provider_credential_id = n.provider_credential_id then a.provider_agent_id end
  from agents a where a.id = n.agent_id)`;

const agentColumns = {
  agentType: agents.type,
  agentDeletedAt: agents.deletedAt,
  agentCredentialId: agents.providerCredentialId,
  agentProviderAgentId: agents.providerAgentId,
};

function recordOf(result: {
  number: PhoneNumberRow;
  agentType: string | null;
  agentDeletedAt: Date | null;
  agentCredentialId: string | null;
  agentProviderAgentId: string | null;
}): PhoneNumberRecord {
  return {
    row: result.number,
    agent:
      result.agentType === null
        ? null
        : {
            type: result.agentType,
            deleted: result.agentDeletedAt !== null,
            providerCredentialId: result.agentCredentialId,
            providerAgentId: result.agentProviderAgentId,
          },
  };
}

export function createPhoneNumbersRepository(db: Db) {
  const live = (organizationId: string, id: string) =>
    and(eq(phoneNumbers.organizationId, organizationId), eq(phoneNumbers.id, id), isNull(phoneNumbers.deletedAt));

  const selectRecords = () =>
    db
      .select({ number: phoneNumbers, ...agentColumns })
      .from(phoneNumbers)
      .leftJoin(agents, eq(agents.id, phoneNumbers.agentId));

  type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

  /**
   * Writes of an organization's numbers one at a time (a transaction-scoped advisory lock on the
   * organization): "a number is bound once" and the count budget are checks across rows that no
   * index states.
   */
  const lockOrganization = (tx: Tx, organizationId: string) =>
    lockOrganizationScope(tx, 'phone_numbers', organizationId);

  /** Another live number of the organization with the same E.164 number that already has an agent. */
  async function boundElsewhere(tx: Tx, organizationId: string, number: string, exceptId: string) {
    const [other] = await tx
      .select({ id: phoneNumbers.id })
      .from(phoneNumbers)
      .where(
        and(
          eq(phoneNumbers.organizationId, organizationId),
          eq(phoneNumbers.number, number),
          isNull(phoneNumbers.deletedAt),
          sql`${phoneNumbers.agentId} is not null`,
          ne(phoneNumbers.id, exceptId),
        ),
      )
      .limit(1);
    return other?.id;
  }

  async function find(organizationId: string, id: string): Promise<PhoneNumberRecord | undefined> {
    const [found] = await selectRecords().where(live(organizationId, id)).limit(1);
    return found && recordOf(found);
  }

  return {
    find,

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(
      organizationId: string,
      filter: { agentId?: string; beforeId?: string; limit: number },
    ): Promise<PhoneNumberRecord[]> {
      const rows = await selectRecords()
        .where(
          and(
            eq(phoneNumbers.organizationId, organizationId),
            isNull(phoneNumbers.deletedAt),
            filter.agentId ? eq(phoneNumbers.agentId, filter.agentId) : undefined,
            filter.beforeId ? lt(phoneNumbers.id, filter.beforeId) : undefined,
          ),
        )
        .orderBy(desc(phoneNumbers.id))
        .limit(filter.limit);
      return rows.map(recordOf);
    },

    /** The account's numbers imported already: the provider's id → ours. */
    async importedOf(organizationId: string, credentialId: string): Promise<Map<string, string>> {
      const rows = await db
        .select({ id: phoneNumbers.id, providerNumberId: phoneNumbers.providerNumberId })
        .from(phoneNumbers)
        .where(
          and(
            eq(phoneNumbers.organizationId, organizationId),
            eq(phoneNumbers.providerCredentialId, credentialId),
            isNull(phoneNumbers.deletedAt),
          ),
        );
      return new Map(rows.map((r) => [r.providerNumberId, r.id]));
    },

    /** The agent's first number (the oldest live one bound to it), if it has one. */
    async firstNumberOf(organizationId: string, agentId: string): Promise<string | undefined> {
      const [row] = await db
        .select({ number: phoneNumbers.number })
        .from(phoneNumbers)
        .where(
          and(
            eq(phoneNumbers.organizationId, organizationId),
            eq(phoneNumbers.agentId, agentId),
            isNull(phoneNumbers.deletedAt),
          ),
        )
        .orderBy(phoneNumbers.id)
        .limit(1);
      return row?.number;
    },

    /**
     * Imports a number: refused when the provider number is imported already (the partial unique
     * index), when it would be bound while another row of the same number is, or past the budget.
     */
    async insert(row: NewPhoneNumberRow & { organizationId: string; id: string }) {
      try {
        return await db.transaction(async (tx): Promise<{ ok: true } | PhoneNumberRefusal> => {
          await lockOrganization(tx, row.organizationId);
          const [counted] = await tx
            .select({ count: sql<number>`count(*)::int` })
            .from(phoneNumbers)
            .where(and(eq(phoneNumbers.organizationId, row.organizationId), isNull(phoneNumbers.deletedAt)));
          if ((counted?.count ?? 0) >= MAX_PHONE_NUMBERS_PER_ORGANIZATION) return { ok: false, reason: 'too_many' };
          const [imported] = await tx
            .select({ id: phoneNumbers.id })
            .from(phoneNumbers)
            .where(
              and(
                eq(phoneNumbers.providerCredentialId, row.providerCredentialId),
                eq(phoneNumbers.providerNumberId, row.providerNumberId),
                isNull(phoneNumbers.deletedAt),
              ),
            )
            .limit(1);
          if (imported) return { ok: false, reason: 'imported', otherId: imported.id };
          if (row.agentId) {
            const other = await boundElsewhere(tx, row.organizationId, row.number, row.id);
            if (other) return { ok: false, reason: 'bound_elsewhere', otherId: other };
          }
          await tx.insert(phoneNumbers).values(row);
          return { ok: true };
        });
      } catch (error) {
        // Two imports of one provider number at once across organizations' locks cannot happen (the
        // credential is one organization's); this is the index speaking for the same one.
        if (isUniqueViolation(error)) return { ok: false, reason: 'imported', otherId: null } as const;
        throw error;
      }
    },

    /**
     * Binds the number to `agentId` (or unbinds it, null): the binding is synced again in the
     * background, at once. Refused when another live row of the same number has an agent.
     */
    async setAgent(organizationId: string, id: string, agentId: string | null) {
      return db.transaction(async (tx): Promise<{ ok: true } | PhoneNumberRefusal> => {
        await lockOrganization(tx, organizationId);
        const [current] = await tx.select().from(phoneNumbers).where(live(organizationId, id)).limit(1);
        if (!current) return { ok: false, reason: 'not_found' };
        if (agentId) {
          const other = await boundElsewhere(tx, organizationId, current.number, id);
          if (other) return { ok: false, reason: 'bound_elsewhere', otherId: other };
        }
        await tx
          .update(phoneNumbers)
          .set({
            agentId,
            syncState: 'pending',
            syncDueAt: new Date(),
            syncAttempts: 0,
            syncError: null,
            updatedAt: new Date(),
          })
          .where(live(organizationId, id));
        return { ok: true };
      });
    },

    /**
     * Deletes the number. One the provider was never told about (no agent, nothing published,
     * nothing under way) goes at once (`removed`); else it stays, hidden, until the provider is told
     * "no agent" (`unpublishing`: due now). Undefined when there is no such live number.
     */
    async softDelete(organizationId: string, id: string): Promise<'removed' | 'unpublishing' | undefined> {
      const gone = await db
        .delete(phoneNumbers)
        .where(
          and(
            live(organizationId, id),
            isNull(phoneNumbers.agentId),
            isNull(phoneNumbers.publishedAgentId),
            eq(phoneNumbers.syncState, 'synced'),
          ),
        )
        .returning({ id: phoneNumbers.id });
      if (gone.length > 0) return 'removed';
      const hidden = await db
        .update(phoneNumbers)
        .set({
          deletedAt: new Date(),
          syncState: 'pending',
          syncDueAt: new Date(),
          syncAttempts: 0,
          syncError: null,
          updatedAt: new Date(),
        })
        .where(live(organizationId, id))
        .returning({ id: phoneNumbers.id });
      return hidden.length > 0 ? 'unpublishing' : undefined;
    },

    /**
     * Numbers whose binding no longer matches their agent (published since, published again under
     * another id, deleted, no longer inbound, moved to another credential) sync again. Numbers that
     * failed for good wait for a change of their own (PATCH) instead.
     */
    async markDrifted(): Promise<number> {
      const result = await db.execute(sql`
        update phone_numbers n set sync_state = 'pending', sync_due_at = now(), sync_attempts = 0, sync_error = null
        where n.deleted_at is null
          and (n.sync_state = 'synced' or (n.sync_state = 'pending' and n.sync_due_at is null))
          and ${DESIRED_AGENT} is distinct from n.published_agent_id
        returning n.id`);
      return rowsOf(result).length;
    },

    /**
     * In how many milliseconds the soonest pending number falls due (a retry, or the lease of a claim
     * under way), by the database's clock; undefined when none is. Read from the due index.
     */
    nextDueInMs: (): Promise<number | undefined> =>
      selectDueInMs(
        db,
        sql`select extract(epoch from min(sync_due_at) - now()) * 1000 as due_in_ms
          from phone_numbers where sync_state = 'pending'`,
      ),

    /** Claims numbers due for syncing (SKIP LOCKED), leasing each for `leaseSeconds`. */
    async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedPhoneNumber[]> {
      const result = await db.execute(sql`
        with claimed as (
          update phone_numbers p set sync_due_at = clock_timestamp() + make_interval(secs => ${leaseSeconds}),
            sync_attempts = p.sync_attempts + 1
          where p.id in (
            select id from phone_numbers where sync_state = 'pending' and sync_due_at <= now()
            order by sync_due_at limit ${limit} for update skip locked
          )
          returning p.*
        )
        select c.id, c.organization_id, c.provider, c.provider_credential_id, c.provider_number_id, c.agent_id,
          c.published_agent_id, c.deleted_at is not null as deleted, c.sync_attempts,
          c.sync_due_at::text as claim_token,
          a.type as agent_type, a.deleted_at is not null as agent_deleted,
          a.provider_credential_id as agent_credential_id, a.provider_agent_id as agent_provider_agent_id,
          exists (
            select 1 from phone_numbers o
            where o.provider_credential_id = c.provider_credential_id and o.provider_number_id = c.provider_number_id
              and o.deleted_at is null and o.id <> c.id
          ) as superseded
        from claimed c left join agents a on a.id = c.agent_id`);
      return rowsOf<Record<string, unknown>>(result).map((r) => ({
        id: r.id as string,
        organizationId: r.organization_id as string,
        provider: r.provider as string,
        providerCredentialId: r.provider_credential_id as string,
        providerNumberId: r.provider_number_id as string,
        agentId: (r.agent_id as string | null) ?? null,
        publishedAgentId: (r.published_agent_id as string | null) ?? null,
        deleted: Boolean(r.deleted),
        agent:
          r.agent_type == null
            ? null
            : {
                type: r.agent_type as string,
                deleted: Boolean(r.agent_deleted),
                providerCredentialId: (r.agent_credential_id as string | null) ?? null,
                providerAgentId: (r.agent_provider_agent_id as string | null) ?? null,
              },
        superseded: Boolean(r.superseded),
        attempts: Number(r.sync_attempts),
        claimToken: r.claim_token as string,
      }));
    },

    /**
     * Records what the provider was told, unless the number changed meanwhile (then it is pending
     * again with a new token). `waiting`: the number has an agent the provider cannot be told about
     * yet; it stays pending with no due time, and `markDrifted` wakes it when that changes. A
     * deleted number goes once the provider is told.
     */
    async recordSynced(
      id: string,
      claimToken: string,
      publishedAgentId: string | null,
      waiting: boolean,
    ): Promise<void> {
      await db.execute(sql`
        delete from phone_numbers where id = ${id} and deleted_at is not null and sync_due_at::text = ${claimToken}`);
      await db.execute(sql`
        update phone_numbers set sync_state = ${waiting ? 'pending' : 'synced'}, sync_error = null, sync_attempts = 0,
          sync_due_at = null, published_agent_id = ${publishedAgentId}
        where id = ${id} and sync_due_at::text = ${claimToken}`);
    },

    /** Records a failure: due again after `retryInSeconds`, or `failed` when retries are spent. */
    async recordFailed(id: string, claimToken: string, error: string, retryInSeconds: number | null): Promise<void> {
      await db.execute(sql`
        update phone_numbers set sync_error = ${error},
          sync_state = ${retryInSeconds === null ? 'failed' : 'pending'},
          sync_due_at = ${retryInSeconds === null ? null : sql`now() + make_interval(secs => ${retryInSeconds})`}
        where id = ${id} and sync_due_at::text = ${claimToken}`);
    },

    /** Removes a deleted number whose binding another row of the same provider number owns now. */
    async forget(id: string, claimToken: string): Promise<void> {
      await db.execute(sql`
        delete from phone_numbers where id = ${id} and deleted_at is not null and sync_due_at::text = ${claimToken}`);
    },
  };
}

export type PhoneNumbersRepository = ReturnType<typeof createPhoneNumbersRepository>;
