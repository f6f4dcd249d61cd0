import { and, count, desc, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { agents } from '../db/schema/index.js';

export type AgentRow = typeof agents.$inferSelect;
export type NewAgentRow = typeof agents.$inferInsert;

export function createAgentsRepository(db: Db) {
  const live = (organizationId: string, id: string) =>
    and(eq(agents.organizationId, organizationId), eq(agents.id, id), isNull(agents.deletedAt));

  return {
    async insert(row: NewAgentRow): Promise<AgentRow> {
      const [inserted] = await db.insert(agents).values(row).returning();
      if (!inserted) throw new Error('insert returned no row');
      return inserted;
    },

    async find(organizationId: string, id: string): Promise<AgentRow | undefined> {
      const rows = await db.select().from(agents).where(live(organizationId, id)).limit(1);
      return rows[0];
    },

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(organizationId: string, options: { beforeId?: string; limit: number }): Promise<AgentRow[]> {
      return db
        .select()
        .from(agents)
        .where(
          and(
            eq(agents.organizationId, organizationId),
            isNull(agents.deletedAt),
            options.beforeId ? lt(agents.id, options.beforeId) : undefined,
          ),
        )
        .orderBy(desc(agents.id))
        .limit(options.limit);
    },

    /** How many agents `list` shows the organization, across every page. */
    async count(organizationId: string): Promise<number> {
      const rows = await db
        .select({ n: count() })
        .from(agents)
        .where(and(eq(agents.organizationId, organizationId), isNull(agents.deletedAt)));
      return rows[0]?.n ?? 0;
    },

    async update(organizationId: string, id: string, changes: Partial<NewAgentRow>): Promise<AgentRow | undefined> {
      const rows = await db
        .update(agents)
        .set({ ...changes, updatedAt: new Date() })
        .where(live(organizationId, id))
        .returning();
      return rows[0];
    },

    /** Soft delete; the agent's token stops resolving at once. Returns its provider, or undefined when there was no such agent. */
    async softDelete(organizationId: string, id: string): Promise<string | undefined> {
      const rows = await db
        .update(agents)
        // An agent on a real provider is unpublished in the background.
        .set({
          deletedAt: new Date(),
          apiTokenHash: null,
          providerSyncState: sql`case when ${agents.provider} = 'simulator' then ${agents.providerSyncState} else 'pending' end`,
          providerSyncDueAt: new Date(),
          providerSyncAttempts: 0,
        })
        .where(live(organizationId, id))
        .returning({ provider: agents.provider });
      return rows[0]?.provider;
    },

    /** The SHA-256 of every live click-to-call token, for the token index (decision 0029). */
    async listTokenHashes(): Promise<string[]> {
      const rows = await db
        .select({ hash: agents.apiTokenHash })
        .from(agents)
        .where(and(isNotNull(agents.apiTokenHash), isNull(agents.deletedAt)));
      return rows.flatMap((row) => (row.hash ? [row.hash] : []));
    },

    /** The live agent whose click-to-call token has this SHA-256, whatever its organization. */
    async findByTokenHash(tokenHash: string): Promise<AgentRow | undefined> {
      const rows = await db
        .select()
        .from(agents)
        .where(and(eq(agents.apiTokenHash, tokenHash), isNull(agents.deletedAt)))
        .limit(1);
      return rows[0];
    },
  };
}

export type AgentsRepository = ReturnType<typeof createAgentsRepository>;
