import type { VapiClient } from '@vapi-ai/server-sdk';
import type Retell from 'retell-sdk';
import { ApiError, notFound } from '../errors.js';
import type { OpenedProviderCredential } from '../provider-credentials/provider-credentials.service.js';
import type { CreateToolInput } from '../tools/tools.schemas.js';
import { describeProviderError } from './provider-errors.js';
import { fromRetellTool, fromVapiTool, type ProviderTool } from './tool-import.js';

export interface ProviderToolsDeps {
  agentRefs: (
    organizationId: string,
    agentId: string,
  ) => Promise<
    | { provider: string; providerCredentialId: string | null; providerLlmId: string | null; toolIds: string[] }
    | undefined
  >;
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  vapiClient: (credential: OpenedProviderCredential) => Promise<VapiClient>;
  retellClient: (credential: OpenedProviderCredential) => Promise<Retell>;
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
    if (agent.provider === 'simulator' || !agent.providerCredentialId) {
      throw new ApiError('conflict', 'The agent runs on the simulator: it has no provider tools');
    }
    const credential = await deps.credentialOf(organizationId, agent.providerCredentialId);
    if (!credential) throw new ApiError('conflict', "The agent's provider credential is gone");
    return { agent, credential };
  }

  async function providerTools(organizationId: string, agentId: string) {
    const { agent, credential } = await context(organizationId, agentId);
    try {
      if (credential.provider === 'vapi') {
        const tools = await (await deps.vapiClient(credential)).tools.list();
        return { credential, tools: (tools as unknown as Record<string, unknown>[]).map(fromVapiTool) };
      }
      const retell = await deps.retellClient(credential);
      if (!agent.providerLlmId) {
        // Not published yet (perhaps because Retell cannot be reached): no LLM, so no tools. Retell is
        // asked nonetheless, so that an unreachable provider answers its error, as Vapi's does.
        await retell.llm.list({ limit: 1 });
        return { credential, tools: [] };
      }
      const llm = await retell.llm.retrieve(agent.providerLlmId);
      const general = (llm.general_tools ?? []) as unknown as Record<string, unknown>[];
      return { credential, tools: general.map(fromRetellTool) };
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
      const { credential, tools } = await providerTools(organizationId, agentId);
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
        if (credential.provider === 'vapi') {
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
