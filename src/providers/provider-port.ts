/**
 * The port a real voice provider implements (docs/architecture.md, "Providers"): placing calls
 * (`VoiceProvider`), publishing agents and their tools, listing what the account has (tools, voices,
 * phone numbers), binding numbers to agents, checking an agent against the provider's own schema,
 * and the provider's webhooks. Everything outside `src/providers/` reaches a provider through this
 * port and the registry, never by its name; a new provider is one folder and one line in
 * `providers.module.ts`.
 */

import type { FastifyInstance } from 'fastify';
import type { AgentDefinition, VoiceChoice } from '../agents/agent-definition.js';
import type { CallsService } from '../calls/calls.service.js';
import type { InboundCalls } from '../calls/inbound-calls.js';
import type { ChangeFeed } from '../db/change-feed.js';
import type { FieldProblem } from '../errors.js';
import type { JsonBodies } from '../lib/json-bodies.js';
import type { OutboundClient } from '../lib/outbound-http.js';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import type { ClaimedAgent } from './provider-sync.repository.js';
import type { ProviderTool } from './tool-import.js';
import type { PublishableTool } from './vapi/vapi-publisher.js';
import type { ToolInvoker, VoiceProvider } from './voice-provider.js';

export type { PublishableTool };

/** What the app lends every provider adapter. */
export interface ProviderHost {
  /** The organization's credential with its secrets opened. */
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  /** `fetch` through the address-guarded pool, for the providers' SDKs. */
  fetch: typeof fetch;
  /** One request through the same guarded pool, for the requests sent without an SDK (Vapi's `POST /call`). */
  send: OutboundClient['send'];
  /** Our public base URL: providers call `<publicUrl>/providers/<name>/…`. */
  publicUrl: string;
  changes: ChangeFeed;
  calls: Pick<CallsService, 'providerContext' | 'applyEvent' | 'provisionalEnd'>;
  invokeTool: ToolInvoker;
  /** A tool's name, for providers that call tools at their own URL (by our id). */
  toolNameOf: (organizationId: string, toolId: string) => Promise<string | undefined>;
  /** The webhook secrets of every credential of a provider (providers that send one back), replaced ones while they count. */
  webhookSecrets: (provider: string) => Promise<string[]>;
  /** Whether `secret` opens the webhooks of the organization's credential (decision 0096). */
  webhookSecretOpens: (organizationId: string, credentialId: string, secret: string) => Promise<boolean>;
  /** A credential's API key, for providers that sign their webhooks with it. */
  apiKeyOf: (credentialId: string) => Promise<string | undefined>;
  /** How long to wait for a provider's analysis after the call's end before ending it without. */
  analysisGraceSeconds: number;
  /** Incoming calls: a webhook about a call of one of our agents that is not one we placed. */
  inboundCalls: Pick<InboundCalls, 'known' | 'agentOf' | 'record'>;
  /** The agent of this call was published before a change that matters: publish it again. */
  republishAgentOfCall: (callId: string) => Promise<void>;
  /** Webhook bodies parsed, the large ones off the event loop (decision 0109). */
  bodies: Pick<JsonBodies, 'parse' | 'warm'>;
}

/** Our tools as published in one account, for providers whose tools live in the account. */
export interface PublishedToolStore {
  /** Our tool id → the provider's. */
  load(): Promise<Map<string, string>>;
  save(published: Map<string, string>): Promise<void>;
  /** Tools of the account no agent uses any more (detached or deleted). */
  unused(): Promise<{ toolId: string; providerToolId: string }[]>;
  forget(toolId: string): Promise<void>;
}

export interface PublishContext {
  credential: OpenedProviderCredential;
  tools: PublishableTool[];
  publishedTools: PublishedToolStore;
}

/** The agent's ids at the provider once published (Retell keeps an LLM beside the agent). */
export interface PublishedIds {
  agentId: string | null;
  llmId: string | null;
}

/** A voice the account can use, as an agent's `voice` names it. */
export type ProviderVoice = VoiceChoice;

/** A phone number of the account, as it can be imported. */
export interface ProviderPhoneNumber {
  number: string;
  providerNumberId: string;
  name?: string | null;
}

/** What a credential of the provider needs besides its API key. */
export interface CredentialRules {
  /**
   * The provider sends back a secret we publish with the agent (its only proof a webhook is its
   * own): one is generated when none is given, and one given must be at least `minLength` long.
   * Null: the provider takes no webhook secret.
   */
  webhookSecret: { minLength: number } | null;
  /** The provider signs its webhooks with the account's API key. */
  signsWithApiKey: boolean;
}

export interface RealVoiceProvider extends VoiceProvider {
  readonly credentialRules: CredentialRules;
  /**
   * Loads what its first request needs (its SDK) ahead of it, so the first call after a start does
   * not wait for the load (decision 0093).
   */
  warm(): Promise<void>;
  /** Creates or updates the agent (and its tools) at the provider. */
  publish(agent: ClaimedAgent, context: PublishContext): Promise<PublishedIds>;
  /** Removes a deleted agent; one already gone is fine. */
  unpublish(agent: ClaimedAgent, context: PublishContext): Promise<void>;
  /** The tools defined at the provider for this agent, as they would import. */
  listTools(credential: OpenedProviderCredential, agent: { providerLlmId: string | null }): Promise<ProviderTool[]>;
  /**
   * Whether imported tools stay linked to the provider's copy (tools that live in the account): the
   * next publish then updates that copy instead of adding one.
   */
  readonly linksImportedTools: boolean;
  listVoices(credential: OpenedProviderCredential): Promise<ProviderVoice[]>;
  listPhoneNumbers(credential: OpenedProviderCredential): Promise<ProviderPhoneNumber[]>;
  /** Makes the number answered by the agent (its id at the provider), or by none. */
  bindPhoneNumber(
    credential: OpenedProviderCredential,
    providerNumberId: string,
    providerAgentId: string | null,
  ): Promise<void>;
  /** What the provider's published schema refuses in what would be published for this agent. */
  agentProblems(agent: AgentDefinition): FieldProblem[];
  /** Registers `/providers/<name>/…`, each request authenticated the provider's way. */
  webhookRoutes(app: FastifyInstance): Promise<void>;
}

export type AnyVoiceProvider = VoiceProvider | RealVoiceProvider;

export function isRealProvider(provider: AnyVoiceProvider | undefined): provider is RealVoiceProvider {
  return provider !== undefined && 'publish' in provider;
}

/** Every provider of the app, looked up by name. */
export function createProviderRegistry(providers: readonly AnyVoiceProvider[]) {
  const byName = new Map(providers.map((provider) => [provider.name as string, provider]));
  return {
    names: () => [...byName.keys()],
    get: (name: string) => byName.get(name),
    /** The provider, if it is one with accounts (not the simulator). */
    real: (name: string): RealVoiceProvider | undefined => {
      const provider = byName.get(name);
      return isRealProvider(provider) ? provider : undefined;
    },
    realProviders: () => [...byName.values()].filter(isRealProvider),
    /** Every provider by name, as click to call places calls. */
    callers: () => Object.fromEntries(byName) as Record<string, VoiceProvider>,
    async close() {
      for (const provider of byName.values()) await provider.close();
    },
  };
}

export type ProviderRegistryService = ReturnType<typeof createProviderRegistry>;
