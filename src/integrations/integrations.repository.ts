import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { integrations } from '../db/schema/index.js';

export type IntegrationRow = typeof integrations.$inferSelect;
export type NewIntegrationRow = typeof integrations.$inferInsert;

export function createIntegrationsRepository(db: Db) {
  const ofOrganization = (organizationId: string, id: string) =>
    and(eq(integrations.organizationId, organizationId), eq(integrations.id, id));

  return {
    async insert(row: NewIntegrationRow): Promise<IntegrationRow> {
      const [inserted] = await db.insert(integrations).values(row).returning();
      if (!inserted) throw new Error('insert returned no row');
      return inserted;
    },

    async find(organizationId: string, id: string): Promise<IntegrationRow | undefined> {
      const rows = await db.select().from(integrations).where(ofOrganization(organizationId, id)).limit(1);
      return rows[0];
    },

    /** An agent's integrations, newest first; `beforeId` is the last id of the previous page. */
    async listByAgent(
      organizationId: string,
      agentId: string,
      options: { beforeId?: string; limit: number },
    ): Promise<IntegrationRow[]> {
      return db
        .select()
        .from(integrations)
        .where(
          and(
            eq(integrations.organizationId, organizationId),
            eq(integrations.agentId, agentId),
            options.beforeId ? lt(integrations.id, options.beforeId) : undefined,
          ),
        )
        .orderBy(desc(integrations.id))
        .limit(options.limit);
    },

    async update(
      organizationId: string,
      id: string,
      changes: Partial<NewIntegrationRow>,
    ): Promise<IntegrationRow | undefined> {
      const rows = await db
        .update(integrations)
        .set({ ...changes, updatedAt: new Date() })
        .where(ofOrganization(organizationId, id))
        .returning();
      return rows[0];
    },

    async remove(organizationId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(integrations)
        .where(ofOrganization(organizationId, id))
        .returning({ id: integrations.id });
      return rows.length > 0;
    },
  };
}

export type IntegrationsRepository = ReturnType<typeof createIntegrationsRepository>;
