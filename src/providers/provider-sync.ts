import { workThroughDue } from '../jobs/due-work.js';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import { describeProviderError } from './provider-errors.js';
import type { PublishableTool, PublishContext, PublishedToolStore, RealVoiceProvider } from './provider-port.js';
import type { ClaimedAgent, ProviderSyncRepository, ToolRow } from './provider-sync.repository.js';

/** Delays between publishing attempts; after the last, the agent's sync is `failed` until it changes. */
export const PUBLISH_RETRY_SECONDS = [5, 30, 120, 600, 1800];

export interface ProviderSyncDeps {
  repository: ProviderSyncRepository;
  /** The organization's credential with its secrets opened. */
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  /** The provider a credential belongs to, from the registry. */
  providerOf: (name: string) => RealVoiceProvider | undefined;
  /** What the model sees of a tool (its `aiSchema`). */
  aiSchemaOf: (tool: ToolRow) => Record<string, unknown>;
  retrySeconds?: readonly number[];
  leaseSeconds?: number;
  onError: (error: unknown, agentId?: string) => void;
  /** An agent's provider id may have changed: caches of the agent must forget it. */
  onPublished?: (agentId: string) => Promise<void>;
  /** Agents became due now (a credential or a tool changed): the workers are told. Default: nothing. */
  onDue?: () => Promise<void>;
  /**
   * Publishing an agent failed: the metrics count it by provider and the log says which agent and
   * what the provider answered. Default: nothing.
   */
  onFailed?: (failure: PublishFailure) => void;
}

/** One failed attempt to publish (or, for a deleted agent, to remove) an agent at its provider. */
export interface PublishFailure {
  agentId: string;
  provider: string;
  /** True when the agent was deleted and removing it from the provider failed. */
  deleted: boolean;
  /** What went wrong, the provider's own answer included (`describeProviderError`). */
  error: string;
  /** When the next attempt is due; null when none is (until the agent or its credential changes). */
  retryInSeconds: number | null;
}

/**
 * Keeps agents on real providers published: an agent whose settings or tools changed is `pending`;
 * this claims pending agents, publishes them (tools, then the assistant), removes tools the account
 * no longer uses, and records `synced` or the provider's error with a retry.
 */
export function createProviderSync({
  repository,
  credentialOf,
  providerOf,
  aiSchemaOf,
  retrySeconds = PUBLISH_RETRY_SECONDS,
  leaseSeconds = 120,
  onError,
  onPublished = async () => {},
  onDue = async () => {},
  onFailed = () => {},
}: ProviderSyncDeps) {
  async function toolsOf(agent: ClaimedAgent): Promise<PublishableTool[]> {
    const rows = await repository.toolsOf(agent.organizationId, agent.toolIds);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      aiSchema: aiSchemaOf(row),
      timeoutMs: row.timeoutMs,
    }));
  }

  /** Our tools as published in the credential's account. */
  const publishedToolsOf = (credentialId: string): PublishedToolStore => ({
    load: () => repository.publishedTools(credentialId),
    save: (published) => repository.savePublishedTools(credentialId, published),
    unused: () => repository.unusedPublishedTools(credentialId),
    forget: (toolId) => repository.forgetPublishedTool(credentialId, toolId),
  });

  async function publishWith(provider: RealVoiceProvider, agent: ClaimedAgent, credential: OpenedProviderCredential) {
    const context: PublishContext = {
      credential,
      tools: agent.deleted ? [] : await toolsOf(agent),
      publishedTools: publishedToolsOf(credential.id),
    };
    if (!agent.deleted) return provider.publish(agent, context);
    await provider.unpublish(agent, context);
    return { agentId: null, llmId: null };
  }

  async function publish(agent: ClaimedAgent): Promise<void> {
    try {
      const credential = agent.providerCredentialId
        ? await credentialOf(agent.organizationId, agent.providerCredentialId)
        : undefined;
      if (!credential) {
        // Nothing to publish with: not configured (the agent says so); nothing to retry either.
        const error = 'The agent has no provider credential';
        onFailed({ agentId: agent.id, provider: agent.provider, deleted: agent.deleted, error, retryInSeconds: null });
        await repository.recordFailed(agent.id, agent.claimToken, error, null);
        return;
      }
      const provider = providerOf(credential.provider);
      if (!provider) throw new Error(`No provider named ${credential.provider} runs in this server`);
      const ids = await publishWith(provider, agent, credential);
      await repository.recordSynced(agent.id, agent.claimToken, ids);
      await onPublished(agent.id);
    } catch (error) {
      const retryIn = retrySeconds[agent.attempts - 1] ?? null;
      const described = describeProviderError(error);
      onFailed({
        agentId: agent.id,
        provider: agent.provider,
        deleted: agent.deleted,
        error: described,
        retryInSeconds: retryIn,
      });
      await repository.recordFailed(agent.id, agent.claimToken, described, retryIn).catch((e) => onError(e, agent.id));
    }
  }

  return {
    /** A credential changed: the agents publishing with it publish again. */
    async credentialChanged(credentialId: string): Promise<void> {
      await repository.markCredentialUsersPending(credentialId);
      await onDue();
    },

    /** Tools changed or deleted: the agents using them publish again. */
    async toolChanged(toolId: string): Promise<void> {
      await repository.markToolUsersPending(toolId);
      await onDue();
    },

    /** The agent of a call publishes again if it was last published before the call (decision 0029). */
    async republishAgentOfCall(callId: string): Promise<void> {
      if (await repository.markPublishedBeforeCall(callId)) await onDue();
    },

    /**
     * Publishes every agent due now, ten claimed at a time; returns in how many milliseconds the next
     * one falls due (undefined when none is pending). With nothing due it asks one statement, the
     * next due time, and claims nothing (decision 0086).
     */
    publishDue: (batch = 10): Promise<number | undefined> =>
      workThroughDue({
        nextDueInMs: repository.nextDueInMs,
        claimDue: () => repository.claimDue(batch, leaseSeconds),
        handle: publish,
      }),
  };
}

export type ProviderSync = ReturnType<typeof createProviderSync>;
