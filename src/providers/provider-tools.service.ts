import { ApiError, notFound } from '../errors.js';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import type { CreateToolInput } from '../tools/tools.schemas.js';
import { describeProviderError } from './provider-errors.js';
import type { RealVoiceProvider } from './provider-port.js';
import type { ProviderTool } from './tool-import.js';

export interface ProviderToolsDeps {
  agentRefs: (
    organizationId: string,
    agentId: string,
  ) => Promise<
    | { provider: string; providerCredentialId: string | null; providerLlmId: string | null; toolIds: string[] }
    | undefined
  >;
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  /** The provider a credential belongs to, from the registry. */
  providerOf: (name: string) => RealVoiceProvider | undefined;
  createTool: (organizationId: string, input: CreateToolInput) => Promise<{ id: string }>;
  /** Attaches tools to the agent (which publishes it again). */
  attachTools: (organizationId: string, agentId: string, toolIds: string[]) => Promise<void>;
  /** Our new tool ↔ the provider's, so publishing updates the provider's copy instead of adding one. */
  linkPublished: (credentialId: string, published: Map<string, string>) => Promise<void>;
}

/** How a provider tool shows in the list: what it is, and whether and how it would import. */
function listed(tool: ProviderTool) {
  const { definition, ...rest } = tool;
  return { ...rest, importable: definition !== undefined };
}

/**
 * `GET /v1/agents/:id/provider-tools` and `POST …/import` (issue 5): the tools defined at the
 * agent's provider (Vapi: the account's tools; Retell: the agent's LLM's tools), and turning chosen
 * ones into organization tools attached to the agent. From then on we are the source of truth:
 * the next publish overwrites the provider's copy.
 */
export function createProviderToolsService(deps: ProviderToolsDeps) {
  async function context(organizationId: string, agentId: string) {
    const agent = await deps.agentRefs(organizationId, agentId);
    if (!agent) throw notFound('Agent');
    if (!deps.providerOf(agent.provider) || !agent.providerCredentialId) {
      throw new ApiError('conflict', 'The agent runs on the simulator: it has no provider tools');
    }
    const credential = await deps.credentialOf(organizationId, agent.providerCredentialId);
    const provider = credential && deps.providerOf(credential.provider);
    if (!credential || !provider) throw new ApiError('conflict', "The agent's provider credential is gone");
    return { agent, credential, provider };
  }

  async function providerTools(organizationId: string, agentId: string) {
    const { agent, credential, provider } = await context(organizationId, agentId);
    try {
      return { credential, provider, tools: await provider.listTools(credential, agent) };
    } catch (error) {
      throw new ApiError('conflict', `The provider did not list its tools: ${describeProviderError(error)}`);
    }
  }

  return {
    async list(organizationId: string, agentId: string) {
      const { tools } = await providerTools(organizationId, agentId);
      return { data: tools.map(listed) };
    },

    async import(organizationId: string, agentId: string, providerToolIds: string[]) {
      const { credential, provider, tools } = await providerTools(organizationId, agentId);
      const byId = new Map(tools.map((tool) => [tool.id, tool]));
      const imported: { providerToolId: string; toolId: string; warnings: string[] }[] = [];
      const skipped: { providerToolId: string; reasons: string[] }[] = [];
      for (const providerToolId of providerToolIds) {
        const tool = byId.get(providerToolId);
        if (!tool) {
          skipped.push({ providerToolId, reasons: ['no tool with this id at the provider'] });
          continue;
        }
        if (!tool.definition) {
          skipped.push({ providerToolId, reasons: tool.problems });
          continue;
        }
        try {
          const created = await deps.createTool(organizationId, tool.definition as CreateToolInput);
          imported.push({ providerToolId, toolId: created.id, warnings: tool.warnings });
        } catch (error) {
          const reasons =
            error instanceof ApiError
              ? [error.message, ...error.details.map((d) => `${d.path}: ${d.message}`)]
              : [String(error)];
          skipped.push({ providerToolId, reasons });
        }
      }
      if (imported.length > 0) {
        if (provider.linksImportedTools) {
          await deps.linkPublished(credential.id, new Map(imported.map((i) => [i.toolId, i.providerToolId])));
        }
        const agent = await deps.agentRefs(organizationId, agentId);
        await deps.attachTools(organizationId, agentId, [...(agent?.toolIds ?? []), ...imported.map((i) => i.toolId)]);
      }
      return { imported, skipped };
    },
  };
}

export type ProviderToolsService = ReturnType<typeof createProviderToolsService>;
