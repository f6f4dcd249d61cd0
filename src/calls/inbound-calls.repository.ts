import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/client.js';
import { agents, calls } from '../db/schema/index.js';
import { PROVIDER_CONTEXT_COLUMNS, type ProviderCallContext } from './calls.repository.js';

/** A live agent found by its id at a provider: what an incoming call of it needs. */
export interface InboundAgentRow {
  id: string;
  organizationId: string;
  provider: string;
  providerCredentialId: string | null;
  maxCallDurationSeconds: number;
  outcomes: string[];
}

/** An incoming call to record: who called, which of our numbers, when it must end at the latest. */
export interface NewInboundCall {
  id: string;
  organizationId: string;
  agentId: string;
  provider: string;
  /** Null for the simulator's, whose id is written when it has started. */
  providerCallId: string | null;
  fromNumber: string;
  /** Our number when the provider said it; else found from `providerNumberId` or the agent's numbers. */
  toNumber: string | null;
  providerNumberId: string | null;
  providerCredentialId: string | null;
  status: 'queued' | 'ringing';
  variables: Record<string, string>;
  startedAt: Date;
  deadlineAt: Date;
}

/**
 * The SQL of incoming calls (issue 17): found by the provider's own call id, and recorded once
 * however many webhooks mention them at once (the unique index calls_provider_call_uq).
 */
export function createInboundCallsRepository(db: Db) {
  async function contextByProviderCallId(
    provider: string,
    providerCallId: string,
  ): Promise<ProviderCallContext | undefined> {
    const [row] = await db
      .select(PROVIDER_CONTEXT_COLUMNS)
      .from(calls)
      .innerJoin(agents, eq(agents.id, calls.agentId))
      // The index's own condition, said: the planner cannot prove it from a parameter (decision 0112).
      .where(
        and(eq(calls.provider, provider), ne(calls.provider, 'simulator'), eq(calls.providerCallId, providerCallId)),
      )
      .limit(1);
    return row;
  }

  return {
    contextByProviderCallId,

    /** The live agent published at `provider` with this id (agents_provider_agent_idx). */
    async agentByProviderId(provider: string, providerAgentId: string): Promise<InboundAgentRow | undefined> {
      const [row] = await db
        .select({
          id: agents.id,
          organizationId: agents.organizationId,
          provider: agents.provider,
          providerCredentialId: agents.providerCredentialId,
          maxCallDurationSeconds: agents.maxCallDurationSeconds,
          outcomes: agents.outcomes,
        })
        .from(agents)
        .where(
          and(eq(agents.providerAgentId, providerAgentId), eq(agents.provider, provider), isNull(agents.deletedAt)),
        )
        .limit(1);
      return row;
    },

    /**
     * Inserts the call unless a call with its provider id exists (then nothing is written): true
     * when this insert made it. `to` falls back to our number with the provider's number id, then to
     * the agent's first number, then "".
     */
    async insert(call: NewInboundCall): Promise<boolean> {
      const result = await db.execute(sql`
        insert into calls (id, organization_id, agent_id, provider, direction, provider_call_id, from_number, to_number,
                           status, variables, collected_data, transcript, started_at, deadline_at)
        values (${call.id}, ${call.organizationId}, ${call.agentId}, ${call.provider}, 'inbound', ${call.providerCallId},
          ${call.fromNumber},
          coalesce(
            ${call.toNumber}::text,
            (select number from phone_numbers
              where provider_credential_id = ${call.providerCredentialId}::text
                and provider_number_id = ${call.providerNumberId}::text and deleted_at is null limit 1),
            (select number from phone_numbers where agent_id = ${call.agentId} and deleted_at is null order by id limit 1),
            ''),
          ${call.status}, ${JSON.stringify(call.variables)}::jsonb, '{}'::jsonb, '[]'::jsonb,
          ${call.startedAt.toISOString()}::timestamptz, ${call.deadlineAt.toISOString()}::timestamptz)
        on conflict (provider, provider_call_id) where provider_call_id is not null and provider <> 'simulator' do nothing
        returning id`);
      return rowsOf(result).length > 0;
    },
  };
}

export type InboundCallsRepository = ReturnType<typeof createInboundCallsRepository>;
