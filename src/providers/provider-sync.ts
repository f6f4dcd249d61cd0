import type { VapiClient } from '@vapi-ai/server-sdk';
import type Retell from 'retell-sdk';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import { describeProviderError } from './provider-errors.js';
import type { ClaimedAgent, ProviderSyncRepository, ToolRow } from './provider-sync.repository.js';
import { publishToRetell, unpublishFromRetell } from './retell/retell-publisher.js';
import { type PublishableTool, publishToVapi, removeVapiTool, unpublishFromVapi } from './vapi/vapi-publisher.js';

/** Delays between publishing attempts; after the last, the agent's sync is `failed` until it changes. */
export const PUBLISH_RETRY_SECONDS = [5, 30, 120, 600, 1800];

export interface ProviderSyncDeps {
  repository: ProviderSyncRepository;
  /** The organization's credential with its secrets opened. */
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  /** A Vapi client for a credential (its key and base URL, our guarded fetch). */
  vapiClient: (credential: OpenedProviderCredential) => Promise<VapiClient>;
  /** A Retell client for a credential, likewise. */
  retellClient: (credential: OpenedProviderCredential) => Promise<Retell>;
  /** What the model sees of a tool (its `aiSchema`). */
  aiSchemaOf: (tool: ToolRow) => Record<string, unknown>;
  /** Our public base URL: providers call `<publicUrl>/providers/<name>/webhook`. */
  publicUrl: string;
  retrySeconds?: readonly number[];
  leaseSeconds?: number;
  onError: (error: unknown, agentId?: string) => void;
  /** An agent's provider id may have changed: caches of the agent must forget it. */
  onPublished?: (agentId: string) => Promise<void>;
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
  vapiClient,
  retellClient,
  aiSchemaOf,
  publicUrl,
  retrySeconds = PUBLISH_RETRY_SECONDS,
  leaseSeconds = 120,
  onError,
  onPublished = async () => {},
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

  type ProviderIds = { agentId: string | null; llmId: string | null };

  async function publishRetell(agent: ClaimedAgent, credential: OpenedProviderCredential): Promise<ProviderIds> {
    const client = await retellClient(credential);
    if (agent.deleted) {
      await unpublishFromRetell(client, agent.providerAgentId, agent.providerLlmId);
      return { agentId: null, llmId: null };
    }
    return publishToRetell(agent, await toolsOf(agent), { client, publicUrl, credentialId: credential.id });
  }

  async function publishVapi(agent: ClaimedAgent, credential: OpenedProviderCredential): Promise<ProviderIds> {
    const client = await vapiClient(credential);
    const target = {
      client,
      serverUrl: `${publicUrl}/providers/vapi/webhook`,
      webhookSecret: credential.webhookSecret,
    };
    let assistantId: string | null = null;
    if (agent.deleted) {
      if (agent.providerAgentId) await unpublishFromVapi(client, agent.providerAgentId);
    } else {
      const published = await repository.publishedTools(credential.id);
      const result = await publishToVapi(agent, await toolsOf(agent), published, target);
      await repository.savePublishedTools(credential.id, result.toolIds);
      assistantId = result.assistantId;
    }
    // Tools detached from the last agent of the account, or deleted: removed at Vapi too.
    for (const unused of await repository.unusedPublishedTools(credential.id)) {
      await removeVapiTool(client, unused.providerToolId);
      await repository.forgetPublishedTool(credential.id, unused.toolId);
    }
    return { agentId: assistantId, llmId: null };
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
      const ids =
        credential.provider === 'vapi' ? await publishVapi(agent, credential) : await publishRetell(agent, credential);
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
    credentialChanged: (credentialId: string): Promise<void> => repository.markCredentialUsersPending(credentialId),

    /** Tools changed or deleted: the agents using them publish again. */
    toolChanged: (toolId: string): Promise<void> => repository.markToolUsersPending(toolId),

    /** Publishes every agent due now; returns how many were tried. */
    async publishDue(batch = 10): Promise<number> {
      const due = await repository.claimDue(batch, leaseSeconds);
      for (const agent of due) await publish(agent);
      return due.length;
    },
  };
}

export type ProviderSync = ReturnType<typeof createProviderSync>;
