import { and, eq, inArray, sql } from 'drizzle-orm';
import type { CollectField } from '../agents/agent-definition.js';
import type { AgentModel, AgentVoice, AgentVoicemail } from '../agents/agents.schemas.js';
import { type Db, rowsOf, selectDueInMs } from '../db/client.js';
import { providerTools, tools } from '../db/schema/index.js';

export type ToolRow = typeof tools.$inferSelect;

/** An agent claimed for publishing, with the token its result must present. */
export interface ClaimedAgent {
  id: string;
  organizationId: string;
  provider: string;
  providerCredentialId: string | null;
  providerAgentId: string | null;
  providerLlmId: string | null;
  name: string;
  prompt: string;
  firstMessage: string;
  outcomes: string[];
  maxCallDurationSeconds: number;
  toolIds: string[];
  /** The agent's definition (decision 0036), published with it. */
  collect: CollectField[];
  voice: AgentVoice | null;
  model: AgentModel | null;
  language: string | null;
  voicemail: AgentVoicemail | null;
  providerSettings: Record<string, unknown> | null;
  deleted: boolean;
  attempts: number;
  /** The lease written by the claim; a change meanwhile replaces it and the result is not recorded. */
  claimToken: string;
}

export function createProviderSyncRepository(db: Db) {
  return {
    /** Live agents on a real provider that use the tool, or whose account has it published. */
    async markToolUsersPending(toolId: string): Promise<void> {
      await db.execute(sql`
        update agents set provider_sync_state = 'pending', provider_sync_due_at = now(), provider_sync_attempts = 0
        where provider <> 'simulator' and (
          jsonb_exists(tool_ids, ${toolId})
          or provider_credential_id in (select credential_id from provider_tools where tool_id = ${toolId})
        )`);
    },

    /** Live agents that publish with this credential. */
    async markCredentialUsersPending(credentialId: string): Promise<void> {
      await db.execute(sql`
        update agents set provider_sync_state = 'pending', provider_sync_due_at = now(), provider_sync_attempts = 0
        where provider_credential_id = ${credentialId} and provider <> 'simulator' and deleted_at is null`);
    },

    /**
     * The agent of the call publishes again if it was last published before the call was placed: a
     * webhook of the call came to a URL of an older publication (decision 0029). Once published
     * again, webhooks of calls placed before do not mark it again. Returns whether it marked it.
     */
    async markPublishedBeforeCall(callId: string): Promise<boolean> {
      const result = await db.execute(sql`
        update agents a set provider_sync_state = 'pending', provider_sync_due_at = now(), provider_sync_attempts = 0
        from calls c
        where c.id = ${callId} and a.id = c.agent_id and a.provider = 'retell' and a.deleted_at is null
          and a.provider_sync_state = 'synced' and a.provider_synced_at < c.created_at
        returning a.id`);
      return rowsOf(result).length > 0;
    },

    /**
     * In how many milliseconds the soonest pending agent falls due (a retry, or the lease of a claim
     * under way), by the database's clock; undefined when none is pending. Read from the due index.
     */
    nextDueInMs: (): Promise<number | undefined> =>
      selectDueInMs(
        db,
        sql`select extract(epoch from min(provider_sync_due_at) - now()) * 1000 as due_in_ms
          from agents where provider_sync_state = 'pending'`,
      ),

    /** Claims agents due for publishing (SKIP LOCKED), leasing each for `leaseSeconds`. */
    async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedAgent[]> {
      const result = await db.execute(sql`
        update agents a set provider_sync_due_at = clock_timestamp() + make_interval(secs => ${leaseSeconds}),
          provider_sync_attempts = a.provider_sync_attempts + 1
        where a.id in (
          select id from agents where provider_sync_state = 'pending' and provider_sync_due_at <= now()
          order by provider_sync_due_at limit ${limit} for update skip locked
        )
        returning a.id, a.organization_id, a.provider, a.provider_credential_id, a.provider_agent_id, a.provider_llm_id,
          a.name, a.prompt,
          a.first_message, a.outcomes, a.max_call_duration_seconds, a.tool_ids,
          a.collect, a.voice, a.model, a.language, a.voicemail, a.provider_settings, a.deleted_at is not null as deleted,
          a.provider_sync_attempts, a.provider_sync_due_at::text as claim_token`);
      return rowsOf<Record<string, unknown>>(result).map((r) => ({
        id: r.id as string,
        organizationId: r.organization_id as string,
        provider: r.provider as string,
        providerCredentialId: (r.provider_credential_id as string | null) ?? null,
        providerAgentId: (r.provider_agent_id as string | null) ?? null,
        providerLlmId: (r.provider_llm_id as string | null) ?? null,
        name: r.name as string,
        prompt: r.prompt as string,
        firstMessage: r.first_message as string,
        outcomes: r.outcomes as string[],
        maxCallDurationSeconds: Number(r.max_call_duration_seconds),
        toolIds: r.tool_ids as string[],
        collect: (r.collect as CollectField[] | null) ?? [],
        voice: (r.voice as AgentVoice | null) ?? null,
        model: (r.model as AgentModel | null) ?? null,
        language: (r.language as string | null) ?? null,
        voicemail: (r.voicemail as AgentVoicemail | null) ?? null,
        providerSettings: (r.provider_settings as Record<string, unknown> | null) ?? null,
        deleted: Boolean(r.deleted),
        attempts: Number(r.provider_sync_attempts),
        claimToken: r.claim_token as string,
      }));
    },

    async toolsOf(organizationId: string, ids: string[]): Promise<ToolRow[]> {
      if (ids.length === 0) return [];
      return db
        .select()
        .from(tools)
        .where(and(eq(tools.organizationId, organizationId), inArray(tools.id, ids)));
    },

    /** Our tool id → the provider's, for the tools published in this account. */
    async publishedTools(credentialId: string): Promise<Map<string, string>> {
      const rows = await db.select().from(providerTools).where(eq(providerTools.credentialId, credentialId));
      return new Map(rows.map((row) => [row.toolId, row.providerToolId]));
    },

    async savePublishedTools(credentialId: string, published: Map<string, string>): Promise<void> {
      if (published.size === 0) return;
      await db
        .insert(providerTools)
        .values([...published].map(([toolId, providerToolId]) => ({ credentialId, toolId, providerToolId })))
        .onConflictDoUpdate({
          target: [providerTools.credentialId, providerTools.toolId],
          set: { providerToolId: sql`excluded.provider_tool_id`, updatedAt: new Date() },
        });
    },

    /** Tools published in the account that no live agent of it has attached any more. */
    async unusedPublishedTools(credentialId: string): Promise<{ toolId: string; providerToolId: string }[]> {
      const result = await db.execute(sql`
        select p.tool_id, p.provider_tool_id from provider_tools p
        where p.credential_id = ${credentialId} and not exists (
          select 1 from agents a where a.provider_credential_id = p.credential_id and a.deleted_at is null
            and jsonb_exists(a.tool_ids, p.tool_id))`);
      return rowsOf<{ tool_id: string; provider_tool_id: string }>(result).map((r) => ({
        toolId: r.tool_id,
        providerToolId: r.provider_tool_id,
      }));
    },

    async forgetPublishedTool(credentialId: string, toolId: string): Promise<void> {
      await db
        .delete(providerTools)
        .where(and(eq(providerTools.credentialId, credentialId), eq(providerTools.toolId, toolId)));
    },

    /** Records a publish, unless the agent changed meanwhile (then it is pending again and republished). */
    async recordSynced(
      agentId: string,
      claimToken: string,
      ids: { agentId: string | null; llmId: string | null },
    ): Promise<void> {
      await db.execute(sql`
        update agents set provider_sync_state = 'synced', provider_sync_error = null, provider_sync_attempts = 0,
          provider_sync_due_at = null, provider_synced_at = now(), provider_agent_id = ${ids.agentId},
          provider_llm_id = ${ids.llmId}
        where id = ${agentId} and provider_sync_due_at::text = ${claimToken}`);
    },

    /** Records a failure: due again after `retryInSeconds`, or `failed` when retries are spent. */
    async recordFailed(
      agentId: string,
      claimToken: string,
      error: string,
      retryInSeconds: number | null,
    ): Promise<void> {
      await db.execute(sql`
        update agents set provider_sync_error = ${error},
          provider_sync_state = ${retryInSeconds === null ? 'failed' : 'pending'},
          provider_sync_due_at = ${retryInSeconds === null ? null : sql`now() + make_interval(secs => ${retryInSeconds})`}
        where id = ${agentId} and provider_sync_due_at::text = ${claimToken}`);
    },
  };
}

export type ProviderSyncRepository = ReturnType<typeof createProviderSyncRepository>;
