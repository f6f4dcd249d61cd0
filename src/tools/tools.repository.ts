import { and, asc, count, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { type Db, isUniqueViolation, probeOnly } from '../db/client.js';
import { agents, calls, toolInvocations, tools } from '../db/schema/index.js';
import { createBatcher } from '../lib/batcher.js';

export type ToolRow = typeof tools.$inferSelect;
export type NewToolRow = typeof tools.$inferInsert;
export type ToolInvocationRow = typeof toolInvocations.$inferSelect;
export type NewToolInvocationRow = typeof toolInvocations.$inferInsert;

/** What a tool run during a call needs: the call's values and the attached tool of that name, if any. */
export interface CallToolContext {
  organizationId: string;
  agentId: string;
  status: string;
  variables: Record<string, string>;
  collectedData: Record<string, unknown>;
  /** The arguments of the call's earlier tool runs that were sent, merged in order (later keys win). */
  toolValues: Record<string, unknown>;
  /** How many tool invocations are recorded on the call. */
  invocationCount: number;
  tool: ToolRow | null;
}

/**
 * Tool invocations recorded per call at most (docs/decisions/0027-bounded-call-records.md): a real
 * call makes a handful; a model stuck in a loop could make thousands. Later ones are refused.
 */
export const MAX_INVOCATIONS_PER_CALL = 50;

export function createToolsRepository(db: Db) {
  const ofOrganization = (organizationId: string, id: string) =>
    and(eq(tools.organizationId, organizationId), eq(tools.id, id));

  // Invocations arrive many at a time under load, and nobody waits for their records: a few ms of
  // collecting make one INSERT serve several (with the embedded database every statement runs on
  // this thread, so fewer statements mean fewer pauses for the calls being served).
  const invocationRecords = createBatcher(
    async (rows: NewToolInvocationRow[]) => {
      // One JSON parameter rather than twelve per row: far less to build per statement.
      const records = rows.map((row) => ({
        id: row.id,
        organization_id: row.organizationId,
        call_id: row.callId,
        tool_id: row.toolId ?? null,
        tool_name: row.toolName,
        arguments: row.arguments,
        request: row.request ?? null,
        response_status: row.responseStatus ?? null,
        response_excerpt: row.responseExcerpt ?? null,
        result: row.result,
        error: row.error ?? null,
        latency_ms: row.latencyMs,
      }));
      // No call gets more than MAX_INVOCATIONS_PER_CALL records, whichever process writes them: the
      // batch's own rows of a call are counted with those already written.
      await db.execute(sql`
        insert into tool_invocations (id, organization_id, call_id, tool_id, tool_name, arguments, request,
          response_status, response_excerpt, result, error, latency_ms)
        select id, organization_id, call_id, tool_id, tool_name, arguments, request, response_status,
          response_excerpt, result, error, latency_ms
        from (
          select r.*, row_number() over (partition by r.call_id order by r.id) as n
          from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(id text, organization_id text,
            call_id text, tool_id text, tool_name text, arguments jsonb, request jsonb, response_status int,
            response_excerpt text, result text, error text, latency_ms int)
        ) r
        where r.n + (select count(*) from tool_invocations t where t.call_id = r.call_id)
          <= ${MAX_INVOCATIONS_PER_CALL}`);
      return rows.map(() => undefined);
    },
    { delayMs: 10 },
  );

  // Read on every tool call of every call: prepared once per connection, so PostgreSQL plans it once;
  // `probeOnly` beside each lookup keeps that plan index probes however small the tables were when
  // it was made (decision 0058).
  const toolCallContext = db
    .select({
      organizationId: calls.organizationId,
      agentId: calls.agentId,
      status: calls.status,
      variables: calls.variables,
      collectedData: calls.collectedData,
      // The arguments of the call's earlier runs that were sent, merged in order (later keys win).
      toolValues: sql<Record<string, unknown>>`(
        select coalesce(jsonb_object_agg(e.key, e.value order by i.id), '{}'::jsonb)
        from ${toolInvocations} i,
          jsonb_each(case when jsonb_typeof(i.arguments) = 'object' then i.arguments else '{}'::jsonb end) e
        where i.call_id = ${calls.id} and ${probeOnly(sql`i.call_id`)} and i.request is not null)`,
      invocationCount: sql<number>`(
        select count(*) from ${toolInvocations} i where i.call_id = ${calls.id} and ${probeOnly(sql`i.call_id`)})::int`,
      tool: tools,
    })
    .from(calls)
    .innerJoin(agents, and(eq(agents.id, calls.agentId), probeOnly(agents.id)))
    .leftJoin(
      tools,
      and(
        eq(tools.organizationId, calls.organizationId),
        eq(tools.name, sql.placeholder('toolName')),
        probeOnly(tools.name),
        sql`${agents.toolIds} @> jsonb_build_array(${tools.id})`,
      ),
    )
    .where(and(eq(calls.id, sql.placeholder('callId')), probeOnly(calls.id)))
    .limit(1)
    .prepare('tool_call_context');

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

    /** How many tools `list` shows the organization, across every page. */
    async count(organizationId: string): Promise<number> {
      const rows = await db.select({ n: count() }).from(tools).where(eq(tools.organizationId, organizationId));
      return rows[0]?.n ?? 0;
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
     * Everything a tool run during a call needs, in one statement: the call with the values
     * collected so far, and the tool of that name attached to the call's agent (null if none is).
     */
    async callToolContext(callId: string, toolName: string): Promise<CallToolContext | undefined> {
      const rows = await toolCallContext.execute({ callId, toolName });
      return rows[0];
    },

    /** Records an invocation (batched: resolves once it is written). */
    recordInvocation: (row: NewToolInvocationRow): Promise<void> => invocationRecords.add(row),

    /** The invocations of these calls of the organization, oldest first. */
    async invocationsOf(organizationId: string, callIds: string[]): Promise<ToolInvocationRow[]> {
      if (callIds.length === 0) return [];
      return db
        .select()
        .from(toolInvocations)
        .where(and(eq(toolInvocations.organizationId, organizationId), inArray(toolInvocations.callId, callIds)))
        .orderBy(asc(toolInvocations.id));
    },
  };
}

export type ToolsRepository = ReturnType<typeof createToolsRepository>;
