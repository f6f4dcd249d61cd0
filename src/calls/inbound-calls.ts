import { newId } from '../lib/ids.js';
import { callDeadline } from './call-deadline.js';
import type { ProviderCallContext } from './calls.repository.js';
import type { InboundAgentRow, InboundCallsRepository } from './inbound-calls.repository.js';

export type InboundAgent = InboundAgentRow;

/** What a provider's webhook says of an incoming call, in our terms. */
export interface IncomingCall {
  /** The provider's id of the call: the call is recorded once per provider and id. */
  providerCallId: string;
  /** The caller's number as the provider gave it; "anonymous" when it gave none. */
  from: string | undefined;
  /** Our number that was called, when the provider said it. */
  to: string | undefined;
  /** The provider's id of our number (Vapi `phoneNumberId`), to find it among ours when `to` is missing. */
  providerNumberId: string | undefined;
}

/**
 * Numbers as the provider reports them are cut to this many characters: an E.164 number has at
 * most 16, a SIP caller id a few dozen; the call's record stays bounded whatever arrives.
 */
export const MAX_REPORTED_NUMBER = 64;

/** The caller id recorded for an incoming call whose provider gave none (a withheld number). */
export const ANONYMOUS_CALLER = 'anonymous';

const reported = (value: string | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, MAX_REPORTED_NUMBER) : undefined;
};

export interface InboundCallsDeps {
  repository: InboundCallsRepository;
  now?: () => Date;
  /** `SWITCHBOARD_PROVIDER_REPORT_GRACE_SECONDS`: a provider call's deadline past its maximum duration. */
  reportGraceSeconds: number;
}

/**
 * Incoming calls (docs/interface.md#inbound-calls, decision 0038): a provider's webhook about a call
 * of one of our published agents that carries no call id of ours is a caller ringing one of our
 * numbers. It is recorded, `direction: "inbound"`, on the first webhook that mentions it, and from
 * then on found by the provider's call id; events, tools and the outcome's delivery then go exactly
 * as for a call we placed. The simulator's incoming calls are recorded here too.
 */
export function createInboundCalls({ repository, now = () => new Date(), reportGraceSeconds }: InboundCallsDeps) {
  return {
    /** The incoming call a provider's id names, once recorded. */
    known: (provider: string, providerCallId: string): Promise<ProviderCallContext | undefined> =>
      repository.contextByProviderCallId(provider, providerCallId),

    /** Our live agent published at the provider with this id (Vapi assistant, Retell agent). */
    agentOf: (provider: string, providerAgentId: string): Promise<InboundAgent | undefined> =>
      repository.agentByProviderId(provider, providerAgentId),

    /**
     * Records the incoming call of `agent` unless it is recorded already (any number of webhooks
     * about it may arrive at once: one insert wins), and returns it as a webhook needs it.
     */
    async record(agent: InboundAgent, call: IncomingCall): Promise<ProviderCallContext> {
      const startedAt = now();
      await repository.insert({
        id: newId('call', startedAt.getTime()),
        organizationId: agent.organizationId,
        agentId: agent.id,
        provider: agent.provider,
        providerCallId: call.providerCallId,
        fromNumber: reported(call.from) ?? ANONYMOUS_CALLER,
        toNumber: reported(call.to) ?? null,
        providerNumberId: reported(call.providerNumberId) ?? null,
        providerCredentialId: agent.providerCredentialId,
        // An incoming call rings at the provider's agent: answered, it moves on as any call does.
        status: 'ringing',
        variables: {},
        startedAt,
        deadlineAt: callDeadline(
          { startedAt, provider: agent.provider },
          agent.maxCallDurationSeconds,
          reportGraceSeconds,
        ),
      });
      const recorded = await repository.contextByProviderCallId(agent.provider, call.providerCallId);
      if (!recorded) throw new Error(`the incoming ${agent.provider} call ${call.providerCallId} was not recorded`);
      return recorded;
    },

    /**
     * Records an incoming call the simulator is about to play (`POST /v1/agents/:id/simulate-inbound`);
     * its provider id is written once the simulator has started it. Returns the call's id.
     */
    async recordSimulated(input: {
      /** The provider that plays it (the simulator). */
      provider: string;
      organizationId: string;
      agentId: string;
      from: string;
      to: string;
      variables: Record<string, string>;
      maxCallDurationSeconds: number;
    }): Promise<string> {
      const startedAt = now();
      const id = newId('call', startedAt.getTime());
      await repository.insert({
        id,
        organizationId: input.organizationId,
        agentId: input.agentId,
        provider: input.provider,
        providerCallId: null,
        fromNumber: input.from,
        toNumber: input.to,
        providerNumberId: null,
        providerCredentialId: null,
        status: 'queued',
        variables: input.variables,
        startedAt,
        deadlineAt: callDeadline(
          { startedAt, provider: input.provider },
          input.maxCallDurationSeconds,
          reportGraceSeconds,
        ),
      });
      return id;
    },
  };
}

export type InboundCalls = ReturnType<typeof createInboundCalls>;
