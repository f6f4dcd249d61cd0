import { isValidPhoneNumber } from 'libphonenumber-js';
import type { AgentView } from '../agents/agents.schemas.js';
import type { CallView } from '../calls/calls.schemas.js';
import type { InboundCalls } from '../calls/inbound-calls.js';
import { ApiError, type FieldProblem, notFound, validationError } from '../errors.js';
import { workThroughDue } from '../jobs/due-work.js';
import { newId } from '../lib/ids.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import { describeProviderError } from '../providers/provider-errors.js';
import type { ProviderPhoneNumber } from '../providers/provider-port.js';
import { SIMULATED_CALLER_ID, type StartCallRequest, type StartCallResult } from '../providers/voice-provider.js';
import type {
  BoundAgentState,
  ClaimedPhoneNumber,
  PhoneNumberRecord,
  PhoneNumberRefusal,
  PhoneNumbersRepository,
} from './phone-numbers.repository.js';
import {
  type CreatePhoneNumberInput,
  MAX_PHONE_NUMBERS_PER_ORGANIZATION,
  type NumberProvider,
  type PhoneNumberView,
  type ProviderPhoneNumberList,
  type SimulateInboundInput,
  type UpdatePhoneNumberInput,
} from './phone-numbers.schemas.js';

/** What the service needs of a provider's numbers (the port's `listPhoneNumbers` and `bindPhoneNumber`). */
export interface ProviderPhoneNumbers {
  list(credential: OpenedProviderCredential): Promise<ProviderPhoneNumber[]>;
  /** Makes the number answer with the provider's agent, or with none (null). */
  bind(credential: OpenedProviderCredential, providerNumberId: string, providerAgentId: string | null): Promise<void>;
}

/** The agent a number is bound to, as the agents service shows it. */
export type AgentOfNumber = Pick<
  AgentView,
  | 'id'
  | 'name'
  | 'type'
  | 'enabled'
  | 'provider'
  | 'providerCredentialId'
  | 'prompt'
  | 'firstMessage'
  | 'fromNumber'
  | 'maxCallDurationSeconds'
  | 'simulator'
  | 'providerSync'
  | 'variables'
>;

export interface PhoneNumbersServiceDeps {
  repository: PhoneNumbersRepository;
  /** The organization's agent; throws `api:not_found` (the agents service's `get`) when it has none. */
  agentOf: (organizationId: string, agentId: string) => Promise<AgentOfNumber>;
  /** The organization's credential with its secrets opened; undefined when it has none with this id. */
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  /** The provider's phone-number functions; undefined for a provider without numbers. */
  numbers: (provider: string) => ProviderPhoneNumbers | undefined;
  /** Incoming calls' records (src/calls/inbound-calls.ts), for the simulated ones. */
  inboundCalls: Pick<InboundCalls, 'recordSimulated'>;
  /** The calls service: the call as the API shows it, and a simulated call's start. */
  calls: {
    get(organizationId: string, id: string): Promise<CallView>;
    failStart(callId: string, message: string): Promise<void>;
    recordProviderCallId(callId: string, providerCallId: string): void;
  };
  /** The simulator provider: plays the agent's scenario (`startCall`); its `name` is the calls' provider. */
  simulator: { name: string; startCall(request: StartCallRequest): Promise<StartCallResult> };
  /** Delays between attempts to bind; after the last, the number's sync is `failed` until it changes. Default `BIND_RETRY_SECONDS`. */
  retrySeconds?: readonly number[];
  /** How long a claimed number is left to one process before another may take it; default 120 s. */
  leaseSeconds?: number;
  /** A number fell due at its provider now (bound, unbound, deleted): the workers are told. Default: nothing. */
  onDue?: () => Promise<void>;
  /** An attempt to bind failed (for the log); default nothing. */
  onFailed?: (failure: {
    phoneNumberId: string;
    provider: string;
    error: string;
    retryInSeconds: number | null;
  }) => void;
}

/** Delays between attempts to bind a number, as agents' publishing has them; then `failed` until it changes. */
export const BIND_RETRY_SECONDS = [5, 30, 120, 600, 1800];

const E164 = /^\+[1-9]\d{1,14}$/;
const isE164 = (number: string) => E164.test(number) && isValidPhoneNumber(number);
const E164_MESSAGE = 'must be a valid phone number in E.164 format, e.g. +14155550100';

/** Variable names the simulated call may carry, as click to call takes them. */
const MAX_VARIABLE_NAME = 64;
const RESERVED_VARIABLE_PREFIXES = ['switchboard', 'system'];

/**
 * What keeps a bound number from answering with its agent, or undefined when nothing does (decision
 * 0038). The same rule as the repository's DESIRED_AGENT, which decides what the provider is told.
 */
function bindingProblem(
  number: { agentId: string | null; providerCredentialId: string; provider: string },
  agent: BoundAgentState | null,
): { problem: string; lasting: boolean } | undefined {
  if (!number.agentId) return undefined;
  if (!agent || agent.deleted) return { problem: 'The agent was deleted', lasting: true };
  if (agent.type !== 'inbound') return { problem: 'The agent is not of type inbound', lasting: true };
  if (agent.providerCredentialId !== number.providerCredentialId) {
    return { problem: "The agent publishes with another provider credential than the number's", lasting: true };
  }
  if (!agent.providerAgentId) {
    return { problem: `Waiting for the agent to be published to ${number.provider}`, lasting: false };
  }
  return undefined;
}

/** The provider's agent the number should answer with: none for a deleted number or an agent it cannot use. */
function desiredProviderAgentId(number: ClaimedPhoneNumber): string | null {
  if (number.deleted || bindingProblem(number, number.agent)) return null;
  return number.agent?.providerAgentId ?? null;
}

function toView({ row, agent }: PhoneNumberRecord): PhoneNumberView {
  // A number with no due time is waiting for its agent (not published yet, or unusable): its state
  // says which, from the agent as it is now.
  const waiting = row.syncState === 'pending' && row.syncDueAt === null ? bindingProblem(row, agent) : undefined;
  const providerSync: PhoneNumberView['providerSync'] = waiting
    ? { state: waiting.lasting ? 'failed' : 'pending', error: waiting.problem, providerAgentId: row.publishedAgentId }
    : {
        state: row.syncState as PhoneNumberView['providerSync']['state'],
        error: row.syncError,
        providerAgentId: row.publishedAgentId,
      };
  return {
    id: row.id,
    number: row.number,
    provider: row.provider as NumberProvider,
    providerCredentialId: row.providerCredentialId,
    providerNumberId: row.providerNumberId,
    agentId: row.agentId,
    providerSync,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Phone numbers (docs/interface.md#phone-numbers, decision 0038): an organization's numbers at its
 * providers, imported from the account's list; one bound to an inbound agent answers incoming
 * calls with it. The binding is told to the provider in the background (`jobs`), with retries,
 * once the agent is published; unbinding and deleting tell it "no agent".
 */
export function createPhoneNumbersService({
  repository,
  agentOf,
  credentialOf,
  numbers,
  inboundCalls,
  calls,
  simulator,
  retrySeconds = BIND_RETRY_SECONDS,
  leaseSeconds = 120,
  onDue = async () => {},
  onFailed = () => {},
}: PhoneNumbersServiceDeps) {
  async function findOrThrow(organizationId: string, id: string): Promise<PhoneNumberRecord> {
    const found = await repository.find(organizationId, id);
    if (!found) throw notFound('Phone number');
    return found;
  }

  /** The organization's credential for a number, or 404 naming the field. */
  async function credentialOrThrow(organizationId: string, id: string): Promise<OpenedProviderCredential> {
    const credential = await credentialOf(organizationId, id);
    if (!credential) {
      throw new ApiError('not_found', 'Provider credential not found', [
        { path: '$.providerCredentialId', message: 'no provider credential with this id exists in the organization' },
      ]);
    }
    return credential;
  }

  /** The organization's agent to bind, checked: 404 when it is not the organization's, 422 when it cannot answer the number. */
  async function bindableAgent(
    organizationId: string,
    agentId: string,
    number: { provider: string; providerCredentialId: string },
  ): Promise<void> {
    const agent = await agentOf(organizationId, agentId).catch((error: unknown) => {
      if (error instanceof ApiError && error.kind === 'not_found') {
        throw new ApiError('not_found', 'Agent not found', [
          { path: '$.agentId', message: 'no agent with this id exists in the organization' },
        ]);
      }
      throw error;
    });
    const problems: FieldProblem[] = [];
    if (agent.type !== 'inbound') {
      problems.push({ path: '$.agentId', message: `is a ${agent.type} agent: only inbound agents answer numbers` });
    } else if (agent.provider !== number.provider) {
      problems.push({
        path: '$.agentId',
        message: `runs on ${agent.provider}; the number is at ${number.provider}`,
      });
    } else if (agent.providerCredentialId !== number.providerCredentialId) {
      problems.push({
        path: '$.agentId',
        message: "publishes with another provider credential than the number's: the number must be in its account",
      });
    }
    if (problems.length > 0) throw validationError(problems);
  }

  function refused(refusal: PhoneNumberRefusal, number: string): never {
    switch (refusal.reason) {
      case 'not_found':
        throw notFound('Phone number');
      case 'imported':
        throw new ApiError('conflict', 'This provider number is imported already', [
          {
            path: '$.providerNumberId',
            message: `is imported already${refusal.otherId ? ` as phone number ${refusal.otherId}` : ''}`,
          },
        ]);
      case 'bound_elsewhere':
        throw new ApiError('conflict', `${number} already answers with an agent: a number serves one agent at a time`, [
          {
            path: '$.agentId',
            message: `${number} is bound already as phone number ${refusal.otherId}: unbind it there first`,
          },
        ]);
      case 'too_many':
        throw new ApiError(
          'conflict',
          `The organization has ${MAX_PHONE_NUMBERS_PER_ORGANIZATION} phone numbers, the most it may have: delete one first`,
        );
    }
  }

  /** Tells the provider what the claimed number should answer with, and records it. */
  async function sync(number: ClaimedPhoneNumber): Promise<void> {
    try {
      if (number.deleted && number.superseded) {
        // Imported again meanwhile: the live row tells the provider; this one only goes.
        await repository.forget(number.id, number.claimToken);
        return;
      }
      const credential = await credentialOf(number.organizationId, number.providerCredentialId);
      const adapter = numbers(number.provider);
      if (!credential || !adapter) {
        const error = credential
          ? `${number.provider} has no phone numbers to bind`
          : "The phone number's provider credential is gone";
        onFailed({ phoneNumberId: number.id, provider: number.provider, error, retryInSeconds: null });
        await repository.recordFailed(number.id, number.claimToken, error, null);
        return;
      }
      const desired = desiredProviderAgentId(number);
      // Told every time, even "no agent" when nothing was recorded as bound: a bind under way when
      // the number changed may have reached the provider without being recorded.
      await adapter.bind(credential, number.providerNumberId, desired);
      const waiting = !number.deleted && number.agentId !== null && desired === null;
      await repository.recordSynced(number.id, number.claimToken, desired, waiting);
    } catch (error) {
      const retryIn = retrySeconds[number.attempts - 1] ?? null;
      const described = describeProviderError(error);
      onFailed({ phoneNumberId: number.id, provider: number.provider, error: described, retryInSeconds: retryIn });
      await repository.recordFailed(number.id, number.claimToken, described, retryIn);
    }
  }

  const service = {
    async create(organizationId: string, input: CreatePhoneNumberInput): Promise<PhoneNumberView> {
      const problems: FieldProblem[] = [];
      if (!isE164(input.number)) problems.push({ path: '$.number', message: E164_MESSAGE });
      if (problems.length > 0) throw validationError(problems);
      const credential = await credentialOrThrow(organizationId, input.providerCredentialId);
      if (input.provider !== undefined && input.provider !== credential.provider) {
        problems.push({ path: '$.provider', message: `must be ${credential.provider}, the credential's provider` });
      }
      if (problems.length > 0) throw validationError(problems);
      const agentId = input.agentId ?? null;
      if (agentId) {
        await bindableAgent(organizationId, agentId, {
          provider: credential.provider,
          providerCredentialId: credential.id,
        });
      }
      const id = newId('phn');
      const inserted = await repository.insert({
        id,
        organizationId,
        number: input.number,
        provider: credential.provider,
        providerCredentialId: credential.id,
        providerNumberId: input.providerNumberId,
        agentId,
        // Nothing to tell the provider until the number has an agent.
        ...(agentId ? { syncState: 'pending', syncDueAt: new Date() } : { syncState: 'synced' }),
      });
      if (!inserted.ok) refused(inserted, input.number);
      if (agentId) await onDue();
      return toView(await findOrThrow(organizationId, id));
    },

    async list(
      organizationId: string,
      query: { cursor?: string; limit?: number; agentId?: string },
    ): Promise<Page<PhoneNumberView>> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const records = await repository.list(organizationId, { agentId: query.agentId, beforeId, limit: limit + 1 });
      return toPage(
        records.map((record) => ({ id: record.row.id, record })),
        limit,
        ({ record }) => toView(record),
      );
    },

    async get(organizationId: string, id: string): Promise<PhoneNumberView> {
      return toView(await findOrThrow(organizationId, id));
    },

    /** Binds the number to another agent (rebinding it: a number serves one agent at a time), or unbinds it. */
    async update(organizationId: string, id: string, input: UpdatePhoneNumberInput): Promise<PhoneNumberView> {
      const current = await findOrThrow(organizationId, id);
      if (input.agentId === undefined) return toView(current);
      if (input.agentId !== null) await bindableAgent(organizationId, input.agentId, current.row);
      const changed = await repository.setAgent(organizationId, id, input.agentId);
      if (!changed.ok) refused(changed, current.row.number);
      await onDue();
      return toView(await findOrThrow(organizationId, id));
    },

    /**
     * Deletes the number; the provider is told "no agent" in the background if it was told one (the
     * publishing jobs woken then, and only then: a number removed outright leaves them nothing to do).
     */
    async remove(organizationId: string, id: string): Promise<void> {
      const deleted = await repository.softDelete(organizationId, id);
      if (!deleted) throw notFound('Phone number');
      if (deleted === 'unpublishing') await onDue();
    },

    /** `GET /v1/provider-credentials/:id/phone-numbers`: the account's numbers, each with ours when imported. */
    async providerNumbers(organizationId: string, credentialId: string): Promise<ProviderPhoneNumberList> {
      const credential = await credentialOf(organizationId, credentialId);
      if (!credential) throw notFound('Provider credential');
      const adapter = numbers(credential.provider);
      if (!adapter) throw new ApiError('conflict', `${credential.provider} has no phone numbers to list`);
      let listed: ProviderPhoneNumber[];
      try {
        listed = await adapter.list(credential);
      } catch (error) {
        throw new ApiError('conflict', `The provider did not list its phone numbers: ${describeProviderError(error)}`);
      }
      const imported = await repository.importedOf(organizationId, credential.id);
      return {
        data: listed.map((entry) => ({
          number: entry.number,
          providerNumberId: entry.providerNumberId,
          name: entry.name ?? null,
          phoneNumberId: imported.get(entry.providerNumberId) ?? null,
        })),
      };
    },

    /**
     * `POST /v1/agents/:id/simulate-inbound`: the simulator plays the agent's scenario as a call
     * from `from` to the agent's first number (the simulated line when it has none). The call is
     * recorded as incoming; it goes on in the background, as any simulator call does.
     */
    async simulateInbound(organizationId: string, agentId: string, input: SimulateInboundInput): Promise<CallView> {
      const agent = await agentOf(organizationId, agentId);
      const problems: FieldProblem[] = [];
      if (!isE164(input.from)) problems.push({ path: '$.from', message: E164_MESSAGE });
      for (const name of Object.keys(input.variables ?? {})) {
        const path = /^[A-Za-z_$][\w$]*$/.test(name) ? `$.variables.${name}` : `$.variables[${JSON.stringify(name)}]`;
        if (name.length === 0 || name.length > MAX_VARIABLE_NAME) {
          problems.push({ path, message: `variable names are 1 to ${MAX_VARIABLE_NAME} characters` });
        } else if (RESERVED_VARIABLE_PREFIXES.some((prefix) => name.toLowerCase().startsWith(prefix))) {
          problems.push({ path, message: 'names starting with "switchboard" or "system" are reserved' });
        }
      }
      if (problems.length > 0) throw validationError(problems);
      if (agent.type !== 'inbound') {
        throw new ApiError('conflict', `Only inbound agents take incoming calls; this one is ${agent.type}`);
      }
      if (!agent.enabled) throw new ApiError('conflict', 'The agent is disabled');
      // Variables the script uses but the request left out are "", as click to call sends them.
      const variables: Record<string, string> = Object.fromEntries([
        ...agent.variables.filter((name) => !name.startsWith('tool.')).map((name) => [name, ''] as const),
        ...Object.entries(input.variables ?? {}),
      ]);
      const to = (await repository.firstNumberOf(organizationId, agentId)) ?? SIMULATED_CALLER_ID;
      const callId = await inboundCalls.recordSimulated({
        provider: simulator.name,
        organizationId,
        agentId,
        from: input.from,
        to,
        variables,
        maxCallDurationSeconds: agent.maxCallDurationSeconds,
      });
      let started: StartCallResult;
      try {
        started = await simulator.startCall({
          callId,
          agent: {
            id: agent.id,
            organizationId,
            name: agent.name,
            prompt: agent.prompt,
            firstMessage: agent.firstMessage,
            fromNumber: to,
            providerCredentialId: agent.providerCredentialId,
            providerAgentId: agent.providerSync.providerAgentId ?? null,
            simulator: agent.simulator,
          },
          // The other party of the call: here, the caller.
          to: input.from,
          variables,
        });
      } catch (error) {
        started = { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
      if (started.ok) calls.recordProviderCallId(callId, started.providerCallId);
      else await calls.failStart(callId, started.message);
      return calls.get(organizationId, callId);
    },

    /**
     * Binds every number due now at its provider, ten claimed at a time; returns in how many
     * milliseconds the next one falls due (undefined when none is). With nothing due it asks one
     * statement, the next due time, and claims nothing (decision 0086).
     */
    syncDue: (batch = 10): Promise<number | undefined> =>
      workThroughDue({
        nextDueInMs: repository.nextDueInMs,
        claimDue: () => repository.claimDue(batch, leaseSeconds),
        handle: sync,
      }),

    /** Numbers whose agent changed in a way that changes their binding sync again; returns how many. */
    markDrifted: (): Promise<number> => repository.markDrifted(),
  };
  return service;
}

export type PhoneNumbersService = ReturnType<typeof createPhoneNumbersService>;
