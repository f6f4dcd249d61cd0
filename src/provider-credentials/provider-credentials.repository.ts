import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { type Db, isUniqueViolation, rowsOf } from '../db/client.js';
import { providerCredentials } from '../db/schema/index.js';

export type ProviderCredentialRow = typeof providerCredentials.$inferSelect;
export type NewProviderCredentialRow = typeof providerCredentials.$inferInsert;

/** The name is taken in the organization. */
export class CredentialNameTakenError extends Error {}

export function createProviderCredentialsRepository(db: Db) {
  const ofOrganization = (organizationId: string, id: string) =>
    and(eq(providerCredentials.organizationId, organizationId), eq(providerCredentials.id, id));

  const nameTaken = (error: unknown): never => {
    throw isUniqueViolation(error) ? new CredentialNameTakenError() : error;
  };

  return {
    async insert(row: NewProviderCredentialRow): Promise<ProviderCredentialRow> {
      const [inserted] = await db.insert(providerCredentials).values(row).returning().catch(nameTaken);
      if (!inserted) throw new Error('insert returned no row');
      return inserted;
    },

    async find(organizationId: string, id: string): Promise<ProviderCredentialRow | undefined> {
      const rows = await db.select().from(providerCredentials).where(ofOrganization(organizationId, id)).limit(1);
      return rows[0];
    },

    /**
     * The credential with this id, whatever its organization: a Retell webhook names its credential in
     * its URL and is authenticated by that credential's key (decision 0029).
     */
    async findAnyOrganization(id: string): Promise<ProviderCredentialRow | undefined> {
      const rows = await db.select().from(providerCredentials).where(eq(providerCredentials.id, id)).limit(1);
      return rows[0];
    },

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(
      organizationId: string,
      options: { beforeId?: string; limit: number },
    ): Promise<ProviderCredentialRow[]> {
      return db
        .select()
        .from(providerCredentials)
        .where(
          and(
            eq(providerCredentials.organizationId, organizationId),
            options.beforeId ? lt(providerCredentials.id, options.beforeId) : undefined,
          ),
        )
        .orderBy(desc(providerCredentials.id))
        .limit(options.limit);
    },

    async update(
      organizationId: string,
      id: string,
      changes: Partial<NewProviderCredentialRow>,
    ): Promise<ProviderCredentialRow | undefined> {
      const rows = await db
        .update(providerCredentials)
        .set({ ...changes, updatedAt: new Date() })
        .where(ofOrganization(organizationId, id))
        .returning()
        .catch(nameTaken);
      return rows[0];
    },

    /** The providers that have at least one credential, whatever the organization. */
    async providersInUse(): Promise<string[]> {
      const rows = await db.selectDistinct({ provider: providerCredentials.provider }).from(providerCredentials);
      return rows.map((row) => row.provider);
    },

    /**
     * Every sealed webhook secret of a provider's credentials, whatever their organization, with the
     * previous one and when it changed: Vapi's webhook is authenticated by its secret alone before its
     * body is read (decision 0029).
     */
    async sealedWebhookSecrets(
      provider: string,
    ): Promise<{ id: string; current: string | null; previous: string | null; changedAt: Date | null }[]> {
      return db
        .select({
          id: providerCredentials.id,
          current: providerCredentials.webhookSecretSealed,
          previous: providerCredentials.previousWebhookSecretSealed,
          changedAt: providerCredentials.webhookSecretChangedAt,
        })
        .from(providerCredentials)
        .where(eq(providerCredentials.provider, provider));
    },

    /**
     * Deletes the credential unless a live agent uses it, checked in the same statement; agents
     * deleted earlier lose it (ON DELETE SET NULL).
     */
    async removeUnused(organizationId: string, id: string): Promise<'deleted' | 'in_use' | 'not_found'> {
      const result = await db.execute(sql`
        delete from provider_credentials p
        where p.organization_id = ${organizationId} and p.id = ${id}
          and not exists (
            select 1 from agents a
            where a.organization_id = p.organization_id and a.provider_credential_id = p.id and a.deleted_at is null)
          -- A phone number keeps its credential until it is unbound at the provider, even once deleted.
          and not exists (select 1 from phone_numbers n where n.provider_credential_id = p.id)
        returning p.id`);
      if (rowsOf(result).length > 0) return 'deleted';
      // Not deleted: the organization has no such credential, or one of its agents uses it. Only the
      // organization's own credential is looked at, so another's id reads as unknown, used or not.
      const [row] = await db
        .select({ id: providerCredentials.id })
        .from(providerCredentials)
        .where(ofOrganization(organizationId, id));
      return row ? 'in_use' : 'not_found';
    },
  };
}

export type ProviderCredentialsRepository = ReturnType<typeof createProviderCredentialsRepository>;
