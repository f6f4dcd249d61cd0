import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { type Db, isUniqueViolation } from '../db/client.js';
import { agents, calls, toolInvocations, tools } from '../db/schema/index.js';

export type ToolRow = typeof tools.$inferSelect;
export type NewToolRow = typeof tools.$inferInsert;
export type ToolInvocationRow = typeof toolInvocations.$inferSelect;
export type NewToolInvocationRow = typeof toolInvocations.$inferInsert;

/** What a tool run during a call needs: the call's values and the attached tool of that name, if any. */
export interface CallToolContext {
  organizationId: string;
  status: string;
  variables: Record<string, string>;
  collectedData: Record<string, unknown>;
  /** The arguments of the call's earlier tool runs that were sent, oldest first. */
  earlierArguments: unknown[];
  tool: ToolRow | null;
}

export function createToolsRepository(db: Db) {
  const ofOrganization = (organizationId: string, id: string) =>
    and(eq(tools.organizationId, organizationId), eq(tools.id, id));

  return {
    /** Inserts the tool, or says its name is taken in the organization. */
    async insert(row: NewToolRow): Promise<ToolRow | 'name_taken'> {
      const [inserted] = await db.insert(tools).values(row).onConflictDoNothing().returning();
      return inserted ?? 'name_taken';
    },

    async find(organizationId: string, id: string): Promise<ToolRow | undefined> {
      const rows = await db.select().from(tools).where(ofOrganization(organizationId, id)).limit(1);
      return rows[0];
    },

    /** Which of `ids` name tools of the organization. */
    async existingIds(organizationId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .select({ id: tools.id })
        .from(tools)
        .where(and(eq(tools.organizationId, organizationId), inArray(tools.id, ids)));
      return new Set(rows.map((row) => row.id));
    },

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(organizationId: string, options: { beforeId?: string; limit: number }): Promise<ToolRow[]> {
      return db
        .select()
        .from(tools)
        .where(
          and(eq(tools.organizationId, organizationId), options.beforeId ? lt(tools.id, options.beforeId) : undefined),
        )
        .orderBy(desc(tools.id))
        .limit(options.limit);
    },

    async update(
      organizationId: string,
      id: string,
      changes: Partial<NewToolRow>,
    ): Promise<ToolRow | 'name_taken' | undefined> {
      try {
        const rows = await db
          .update(tools)
          .set({ ...changes, updatedAt: new Date() })
          .where(ofOrganization(organizationId, id))
          .returning();
        return rows[0];
      } catch (error) {
        if (isUniqueViolation(error)) return 'name_taken';
        throw error;
      }
    },

    /**
     * Deletes the tool and detaches it from every agent of the organization in one transaction;
     * returns the ids of the agents it was attached to, or undefined when there was no such tool.
     */
    async deleteAndDetach(organizationId: string, id: string): Promise<string[] | undefined> {
      return db.transaction(async (tx) => {
        const deleted = await tx.delete(tools).where(ofOrganization(organizationId, id)).returning({ id: tools.id });
        if (deleted.length === 0) return undefined;
        const detached = await tx
          .update(agents)
          .set({ toolIds: sql`${agents.toolIds} - ${id}::text`, updatedAt: new Date() })
          .where(
            and(eq(agents.organizationId, organizationId), sql`${agents.toolIds} @> jsonb_build_array(${id}::text)`),
          )
          .returning({ id: agents.id });
        return detached.map((row) => row.id);
      });
    },

    /**
     * Everything a tool run during a call needs, in one statement: the call, the tool of that name
     * attached to the call's agent (null if none is), and the arguments of the call's earlier runs.
     */
    async callToolContext(callId: string, toolName: string): Promise<CallToolContext | undefined> {
      const rows = await db
        .select({
          organizationId: calls.organizationId,
          status: calls.status,
          variables: calls.variables,
          collectedData: calls.collectedData,
          earlierArguments: sql<unknown[]>`(
            select coalesce(jsonb_agg(${toolInvocations.arguments} order by ${toolInvocations.id}), '[]'::jsonb)
            from ${toolInvocations}
            where ${toolInvocations.callId} = ${calls.id} and ${toolInvocations.request} is not null)`,
          tool: tools,
        })
        .from(calls)
        .innerJoin(agents, eq(agents.id, calls.agentId))
        .leftJoin(
          tools,
          and(
            eq(tools.organizationId, calls.organizationId),
            eq(tools.name, toolName),
            sql`${agents.toolIds} @> jsonb_build_array(${tools.id})`,
          ),
        )
        .where(eq(calls.id, callId))
        .limit(1);
      return rows[0];
    },

    async insertInvocation(row: NewToolInvocationRow): Promise<void> {
      await db.insert(toolInvocations).values(row);
    },

    /** The invocations of these calls, oldest first. */
    async invocationsOf(callIds: string[]): Promise<ToolInvocationRow[]> {
      if (callIds.length === 0) return [];
      return db
        .select()
        .from(toolInvocations)
        .where(inArray(toolInvocations.callId, callIds))
        .orderBy(asc(toolInvocations.id));
    },
  };
}

export type ToolsRepository = ReturnType<typeof createToolsRepository>;
