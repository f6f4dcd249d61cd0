import { isValidPhoneNumber } from 'libphonenumber-js';
import type { ChangeFeed } from '../db/change-feed.js';
import { ApiError, besideSchema, type FieldProblem, notFound, soundPart, validationError } from '../errors.js';
import type { SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import { isKnownCountry } from '../lib/phone-numbers.js';
import { announcePublishDue } from '../providers/publish-due.js';
import { AGENT_TOKEN_TOPIC, AGENT_TOPIC, type AgentCache } from './agent-cache.js';
import {
  type AgentDefinition,
  type CollectField,
  canonicalLanguage,
  definitionProblems,
  normalizeCollect,
  variablesOf,
} from './agent-definition.js';
import type { AgentRow, AgentsRepository, NewAgentRow } from './agents.repository.js';
import {
  type AgentCredentials,
  type AgentModel,
  type AgentView,
  type AgentVoice,
  type AgentVoicemail,
  type CreateAgentInput,
  DEFAULT_OUTCOMES,
  type SimulatorScenario,
  type UpdateAgentInput,
} from './agents.schemas.js';
import { apiTokenHash, buildInstructions, deriveApiToken, issueCredentials } from './credentials.js';

/** What click-to-call needs of an agent, resolved from its API token. */
export interface CallTriggerAgent {
  row: AgentRow;
  apiSecret: string;
}

/** Configured (docs/interface.md#agents): click to call, a provider, and for real providers a credential and a caller id. */
export function isConfigured(
  agent: Pick<AgentRow, 'type' | 'provider' | 'providerCredentialId' | 'fromNumber'>,
): boolean {
  if (agent.type !== 'click_to_call') return false;
  if (agent.provider === 'simulator') return true;
  return Boolean(agent.providerCredentialId && agent.fromNumber);
}

function toView(row: AgentRow): AgentView {
  return {
    id: row.id,
    name: row.name,
    type: row.type as AgentView['type'],
    enabled: row.enabled,
    provider: row.provider as AgentView['provider'],
    providerCredentialId: row.providerCredentialId,
    prompt: row.prompt,
    firstMessage: row.firstMessage,
    fromNumber: row.fromNumber,
    disableSignatureVerification: row.disableSignatureVerification,
    requireSignatureTimestamp: row.requireSignatureTimestamp,
    allowedCountries: row.allowedCountries ?? null,
    maxConcurrentCalls: row.maxConcurrentCalls,
    rateLimitPerMinute: row.rateLimitPerMinute,
    maxCallDurationSeconds: row.maxCallDurationSeconds,
    toolIds: row.toolIds,
    outcomes: row.outcomes,
    doNotCallOutcomes: row.doNotCallOutcomes ?? [],
    simulator: (row.simulator as SimulatorScenario | null) ?? null,
    ...definitionFields(row),
    providerSync: providerSyncOf(row),
    configured: isConfigured(row),
    variables: variablesOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The agent's definition fields as stored (jsonb read back as written; null: the default, decision 0036). */
function definitionFields(
  row: Pick<AgentSettings, 'collect' | 'voice' | 'model' | 'language' | 'voicemail' | 'providerSettings'>,
) {
  return {
    collect: (row.collect ?? []) as CollectField[],
    voice: (row.voice ?? null) as AgentVoice | null,
    model: (row.model ?? null) as AgentModel | null,
    language: row.language ?? null,
    voicemail: (row.voicemail ?? null) as AgentVoicemail | null,
    providerSettings: row.providerSettings ?? null,
  };
}

/** What is published of an agent (its definition), from its settings. */
export function definitionOf(agent: AgentSettings): AgentDefinition {
  return {
    name: agent.name,
    prompt: agent.prompt,
    firstMessage: agent.firstMessage,
    outcomes: agent.outcomes,
    maxCallDurationSeconds: agent.maxCallDurationSeconds,
    ...definitionFields(agent),
  };
}

/** Where publishing to the provider stands; the simulator has nothing to publish to. */
function providerSyncOf(row: AgentRow): AgentView['providerSync'] {
  if (row.provider === 'simulator') return { state: 'synced', syncedAt: row.updatedAt.toISOString(), error: null };
  return {
    state: row.providerSyncState as AgentView['providerSync']['state'],
    syncedAt: row.providerSyncedAt?.toISOString() ?? null,
    error: row.providerSyncError,
    providerAgentId: row.providerAgentId,
  };
}

/** The columns that make an agent on a real provider publish again, in the background, now. */
const publishAgain = (provider: string) =>
  provider === 'simulator'
    ? {}
    : { providerSyncState: 'pending', providerSyncDueAt: new Date(), providerSyncAttempts: 0, providerSyncError: null };

type AgentSettings = Omit<NewAgentRow, 'id' | 'organizationId' | 'createdAt' | 'updatedAt' | 'deletedAt'>;

/** The definition's fields of a create or a change, as stored: collect normalized, the language canonical. */
function definitionChanges(input: CreateAgentInput | UpdateAgentInput): Partial<AgentSettings> {
  return {
    ...(input.collect !== undefined ? { collect: normalizeCollect(input.collect) } : {}),
    ...(input.voice !== undefined ? { voice: input.voice } : {}),
    ...(input.model !== undefined ? { model: input.model } : {}),
    ...(input.language !== undefined
      ? { language: input.language === null ? null : (canonicalLanguage(input.language) ?? input.language) }
      : {}),
    ...(input.voicemail !== undefined ? { voicemail: input.voicemail } : {}),
    ...(input.providerSettings !== undefined ? { providerSettings: input.providerSettings } : {}),
  };
}

/** The rules a whole agent must satisfy that a JSON Schema cannot say. */
function checkAgent(agent: AgentSettings): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (agent.fromNumber != null && !isValidPhoneNumber(agent.fromNumber)) {
    problems.push({ path: '$.fromNumber', message: 'must be a valid phone number in E.164 format, e.g. +14155550100' });
  } else if (agent.fromNumber != null && !/^\+[1-9]\d{1,14}$/.test(agent.fromNumber)) {
    problems.push({ path: '$.fromNumber', message: 'must be in E.164 format: a plus sign and digits only' });
  }
  if (agent.provider === 'simulator' && agent.providerCredentialId != null) {
    problems.push({ path: '$.providerCredentialId', message: 'must be null for the simulator provider' });
  }
  (agent.allowedCountries ?? []).forEach((code, index) => {
    if (isKnownCountry(code)) return;
    const path = `$.allowedCountries[${index}]`;
    if (isKnownCountry(code.toUpperCase()))
      problems.push({ path, message: `must be in capitals: "${code.toUpperCase()}"` });
    else if (code.toUpperCase() === 'UK')
      problems.push({ path, message: 'is not an ISO 3166 code: the United Kingdom is "GB"' });
    else
      problems.push({
        path,
        message: 'is not an ISO 3166 alpha-2 country code whose phone numbers are known, e.g. "US"',
      });
  });
  const scenario = agent.simulator as SimulatorScenario | null | undefined;
  const status = scenario?.outcome?.status;
  if (status && !(agent.outcomes ?? []).includes(status)) {
    problems.push({ path: '$.simulator.outcome.status', message: "must be one of the agent's outcomes" });
  }
  return problems;
}

/**
 * The agent's own problems that judge a field against another (`besideSchema`): left out when the
 * other was refused by the schema, since a stand-in was judged, not what was sent.
 */
const JUDGED_AGAINST: Record<string, string[]> = {
  '$.simulator.outcome.status': ['outcomes'],
  '$.simulator.outcome.collectedData': ['collect'],
  '$.providerCredentialId': ['provider'],
};

/** A list without its repeats, in first-seen order (problems name the indices as sent, so this comes after). */
const distinct = (list: string[] | null | undefined) => (list ? [...new Set(list)] : null);

export interface AgentsServiceDeps {
  repository: AgentsRepository;
  /** Where agent changes are announced, so every process's cache forgets the old version. */
  changes: ChangeFeed;
  cache: AgentCache;
  secretBox: SecretBox;
  /** The public base URL, for the endpoint shown with credentials. */
  publicUrl: string;
  /** Of these tool ids, those that name no tool of the organization. */
  missingToolIds: (organizationId: string, ids: string[]) => Promise<string[]>;
  /** The provider of the organization's credential with this id; undefined when there is none. */
  credentialProviderOf: (organizationId: string, id: string) => Promise<string | undefined>;
  /**
   * What the provider's published schema refuses of the definition we would publish (decision 0036):
   * the provider port's `agentProblems`, through the registry.
   */
  agentProblems: (provider: string, agent: AgentDefinition) => FieldProblem[];
}

export function createAgentsService({
  repository,
  changes,
  cache,
  secretBox,
  publicUrl,
  missingToolIds,
  credentialProviderOf,
  agentProblems,
}: AgentsServiceDeps) {
  const endpoint = `${publicUrl}/api/click-to-call`;

  const announce = (agentId: string) => changes.publish(AGENT_TOPIC, agentId);
  // The publishing workers, when the write made an agent on a real provider due (decision 0086).
  const announceDue = async (provider: string) => {
    if (provider !== 'simulator') await announcePublishDue(changes);
  };
  // Every process adds a newly issued token to its token index, so it works at once everywhere.
  const announceToken = async (tokenHash: string | undefined) => {
    if (tokenHash) await changes.publish(AGENT_TOKEN_TOPIC, tokenHash);
  };

  async function findOrThrow(organizationId: string, id: string): Promise<AgentRow> {
    const row = await repository.find(organizationId, id);
    if (!row) throw notFound('Agent');
    return row;
  }

  /**
   * `checkAgent`'s problems, the definition's, each attached tool id that names no tool of the
   * organization, a provider credential that is not the organization's or not for the agent's
   * provider; then, for a definition sound in itself, what its provider's schema refuses.
   */
  async function problemsOf(
    organizationId: string,
    agent: AgentSettings,
    toolIds: string[],
    schemaProblems: FieldProblem[] = [],
  ): Promise<FieldProblem[]> {
    const definition = definitionOf(agent);
    const problems = [
      ...checkAgent(agent),
      ...definitionProblems(definition, (agent.simulator as SimulatorScenario | null | undefined) ?? null),
    ];
    // A definition with stand-ins for refused fields is not what would be published: not asked of the provider.
    if (problems.length === 0 && schemaProblems.length === 0)
      problems.push(...agentProblems(agent.provider, definition));
    if (agent.provider !== 'simulator' && agent.providerCredentialId != null) {
      const provider = await credentialProviderOf(organizationId, agent.providerCredentialId);
      if (provider === undefined) {
        problems.push({
          path: '$.providerCredentialId',
          message: 'no provider credential with this id exists in the organization',
        });
      } else if (provider !== agent.provider) {
        problems.push({
          path: '$.providerCredentialId',
          message: `is a ${provider} credential; the agent's provider is ${agent.provider}`,
        });
      }
    }
    const missing = new Set(await missingToolIds(organizationId, toolIds));
    toolIds.forEach((id, index) => {
      if (missing.has(id))
        problems.push({ path: `$.toolIds[${index}]`, message: 'no tool with this id exists in the organization' });
    });
    return besideSchema(schemaProblems, problems, JUDGED_AGAINST);
  }

  function credentialsOf(row: AgentRow): AgentCredentials {
    if (row.type !== 'click_to_call' || !row.apiTokenNonce || !row.apiSecretSealed) {
      throw new ApiError('conflict', 'Only agents of type click_to_call have credentials');
    }
    const apiToken = deriveApiToken(secretBox, row.id, row.apiTokenNonce);
    const apiSecret = secretBox.decrypt(row.apiSecretSealed, row.id);
    const instructions = buildInstructions({
      endpoint,
      apiToken,
      apiSecret,
      variables: variablesOf(row),
      signatureRequired: !row.disableSignatureVerification,
      timestampRequired: row.requireSignatureTimestamp,
    });
    return { apiToken, apiSecret, endpoint, instructions: instructions.text, examples: instructions.examples };
  }

  return {
    /** `schemaProblems`: the body failed the route's schema; its sound fields are still judged, then all is refused. */
    async create(
      organizationId: string,
      body: CreateAgentInput,
      schemaProblems: FieldProblem[] = [],
    ): Promise<AgentView> {
      const input = soundPart(body, schemaProblems);
      const settings: AgentSettings = {
        name: (input.name ?? '').trim(),
        type: input.type ?? 'click_to_call',
        enabled: input.enabled ?? true,
        provider: input.provider ?? 'simulator',
        providerCredentialId: input.providerCredentialId ?? null,
        prompt: input.prompt ?? '',
        firstMessage: input.firstMessage ?? '',
        fromNumber: input.fromNumber ?? null,
        disableSignatureVerification: input.disableSignatureVerification ?? false,
        requireSignatureTimestamp: input.requireSignatureTimestamp ?? false,
        allowedCountries: input.allowedCountries ?? null,
        maxConcurrentCalls: input.maxConcurrentCalls ?? null,
        rateLimitPerMinute: input.rateLimitPerMinute === undefined ? 60 : input.rateLimitPerMinute,
        maxCallDurationSeconds: input.maxCallDurationSeconds ?? 3600,
        toolIds: input.toolIds ?? [],
        outcomes: input.outcomes ?? DEFAULT_OUTCOMES,
        doNotCallOutcomes: input.doNotCallOutcomes ?? [],
        simulator: input.simulator ?? null,
        collect: [],
        voice: null,
        model: null,
        language: null,
        voicemail: null,
        providerSettings: null,
        ...definitionChanges(input),
      };
      const problems = await problemsOf(organizationId, settings, settings.toolIds ?? [], schemaProblems);
      if (problems.length > 0) throw validationError(problems);
      settings.allowedCountries = distinct(settings.allowedCountries);
      const id = newId('agt');
      const credentials = settings.type === 'click_to_call' ? issueCredentials(secretBox, id).columns : undefined;
      const inserted = await repository.insert({
        id,
        organizationId,
        ...settings,
        ...credentials,
        ...publishAgain(settings.provider),
      });
      await announceToken(credentials?.apiTokenHash);
      await announceDue(inserted.provider);
      return toView(inserted);
    },

    async list(
      organizationId: string,
      query: { cursor?: string; limit?: number },
    ): Promise<Page<AgentView> & { total: number }> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const [rows, total] = await Promise.all([
        repository.list(organizationId, { beforeId, limit: limit + 1 }),
        repository.count(organizationId),
      ]);
      return { ...toPage(rows, limit, toView), total };
    },

    /** Where the agent lives at its provider, for importing its tools; undefined when there is no such agent. */
    async providerRefs(organizationId: string, id: string) {
      const row = await repository.find(organizationId, id);
      return row
        ? {
            provider: row.provider,
            providerCredentialId: row.providerCredentialId,
            providerLlmId: row.providerLlmId,
            toolIds: row.toolIds,
          }
        : undefined;
    },

    /** Whether the organization has this (live) agent. */
    /** The agent's name, or undefined when the organization has no such agent. */
    async nameOf(organizationId: string, id: string): Promise<string | undefined> {
      return (await repository.find(organizationId, id))?.name;
    },

    async get(organizationId: string, id: string): Promise<AgentView> {
      return toView(await findOrThrow(organizationId, id));
    },

    async update(
      organizationId: string,
      id: string,
      body: UpdateAgentInput,
      schemaProblems: FieldProblem[] = [],
    ): Promise<AgentView> {
      const current = await findOrThrow(organizationId, id);
      const patch = soundPart(body, schemaProblems);
      const changed = {
        ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
        ...definitionChanges(patch),
      } as Partial<AgentSettings>;
      if (changed.name !== undefined) changed.name = changed.name.trim();
      const merged: AgentSettings = { ...current, ...changed };
      // Switching away from a real provider drops its credential rather than failing the change.
      if (changed.provider === 'simulator' && changed.providerCredentialId === undefined) {
        merged.providerCredentialId = null;
        changed.providerCredentialId = null;
      }
      // Provider settings are one provider's fields: another provider drops them, unless the change sets new ones.
      if (
        changed.provider !== undefined &&
        changed.provider !== current.provider &&
        changed.providerSettings === undefined
      ) {
        merged.providerSettings = null;
        changed.providerSettings = null;
      }
      const problems = await problemsOf(organizationId, merged, changed.toolIds ?? [], schemaProblems);
      if (problems.length > 0) throw validationError(problems);
      if (changed.allowedCountries) changed.allowedCountries = distinct(changed.allowedCountries);
      const credentials =
        merged.type === 'click_to_call' && !current.apiTokenHash ? issueCredentials(secretBox, id).columns : undefined;
      const updated = await repository.update(organizationId, id, {
        ...changed,
        ...credentials,
        ...publishAgain(merged.provider),
      });
      if (!updated) throw notFound('Agent');
      await announceToken(credentials?.apiTokenHash);
      await announce(id);
      await announceDue(updated.provider);
      return toView(updated);
    },

    async remove(organizationId: string, id: string): Promise<void> {
      const provider = await repository.softDelete(organizationId, id);
      if (provider === undefined) throw notFound('Agent');
      await announce(id);
      await announceDue(provider);
    },

    async credentials(organizationId: string, id: string): Promise<AgentCredentials> {
      return credentialsOf(await findOrThrow(organizationId, id));
    },

    /** Replaces token and secret together; the old pair stops working with this write. */
    async rotateCredentials(organizationId: string, id: string): Promise<AgentCredentials> {
      const row = await findOrThrow(organizationId, id);
      if (row.type !== 'click_to_call')
        throw new ApiError('conflict', 'Only agents of type click_to_call have credentials');
      const issued = issueCredentials(secretBox, id).columns;
      const updated = await repository.update(organizationId, id, issued);
      if (!updated) throw notFound('Agent');
      await announceToken(issued.apiTokenHash);
      await announce(id);
      return credentialsOf(updated);
    },

    /**
     * Whether no agent has this click-to-call token, known from memory alone (decision 0029); a
     * promise when memory waits for the change feed to catch up first (decision 0092).
     */
    isSurelyUnknownToken(apiToken: string): boolean | Promise<boolean> {
      return cache.isSurelyUnknown(apiTokenHash(apiToken));
    },

    /** `isSurelyUnknownToken` of a token already hashed (`apiTokenHash`). */
    isSurelyUnknownTokenHash(tokenHash: string): boolean | Promise<boolean> {
      return cache.isSurelyUnknown(tokenHash);
    },

    /**
     * The agent a click-to-call token belongs to, with its secret; undefined when none does. Given
     * the token's hash (`apiTokenHash`) when the caller has computed it already.
     */
    async findByApiToken(apiToken: string, tokenHash = apiTokenHash(apiToken)): Promise<CallTriggerAgent | undefined> {
      return cache.lookup(tokenHash, async () => {
        const row = await repository.findByTokenHash(tokenHash);
        if (!row?.apiSecretSealed) return undefined;
        return { row, apiSecret: secretBox.decrypt(row.apiSecretSealed, row.id) };
      });
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
