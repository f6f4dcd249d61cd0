import type Retell from 'retell-sdk';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import type { ProviderHost, RealVoiceProvider } from '../provider-port.js';
import { fromRetellTool } from '../tool-import.js';
import { retellAgentProblems } from './retell-agent-problems.js';
import { createRetellCredentialKeys } from './retell-credential-keys.js';
import { bindRetellPhoneNumber, listRetellPhoneNumbers } from './retell-phone-numbers.js';
import { createRetellProvider } from './retell-provider.js';
import { publishToRetell, unpublishFromRetell } from './retell-publisher.js';
import { retellWebhookRoutes } from './retell-routes.js';
import { listRetellVoices } from './retell-voices.js';
import { createRetellWebhooks } from './retell-webhook.js';

/**
 * Retell behind the provider port (decision 0019): an LLM (prompt, tools) and an agent per agent,
 * calls through `POST /v2/create-phone-call`, the account's numbers, and webhooks signed with the
 * credential's API key (`x-retell-signature`).
 */
export function createRetellAdapter(host: ProviderHost): RealVoiceProvider {
  const clientOf = async (credential: OpenedProviderCredential): Promise<Retell> => {
    const { default: Retell } = await import('retell-sdk');
    return new Retell({
      apiKey: credential.apiKey,
      ...(credential.baseUrl ? { baseURL: credential.baseUrl } : {}),
      fetch: host.fetch,
      maxRetries: 0,
      timeout: 15_000,
    });
  };
  const caller = createRetellProvider({ credentialOf: host.credentialOf, retellClient: clientOf });

  return {
    name: 'retell',
    async warm() {
      // Its reports are parsed in a thread of their own (decision 0109): started ahead of the first.
      host.bodies.warm();
      await import('retell-sdk');
    },
    startCall: (request) => caller.startCall(request),
    close: () => caller.close(),
    linksImportedTools: false,
    credentialRules: { webhookSecret: null, signsWithApiKey: true },

    async publish(agent, { credential, tools }) {
      const client = await clientOf(credential);
      return publishToRetell(agent, tools, { client, publicUrl: host.publicUrl, credentialId: credential.id });
    },

    async unpublish(agent, { credential }) {
      await unpublishFromRetell(await clientOf(credential), agent.providerAgentId, agent.providerLlmId);
    },

    async listTools(credential, agent) {
      const retell = await clientOf(credential);
      if (!agent.providerLlmId) {
        // Not published yet (perhaps because Retell cannot be reached): no LLM, so no tools. Retell is
        // asked nonetheless, so that an unreachable provider answers its error, as Vapi's does.
        await retell.llm.list({ limit: 1 });
        return [];
      }
      const llm = await retell.llm.retrieve(agent.providerLlmId);
      return ((llm.general_tools ?? []) as unknown as Record<string, unknown>[]).map(fromRetellTool);
    },

    listVoices: async (credential) => listRetellVoices(await clientOf(credential)),

    listPhoneNumbers: async (credential) => listRetellPhoneNumbers(await clientOf(credential)),
    bindPhoneNumber: async (credential, numberId, agentId) =>
      bindRetellPhoneNumber(await clientOf(credential), numberId, agentId),

    agentProblems: retellAgentProblems,

    webhookRoutes: (app) =>
      retellWebhookRoutes(app, {
        retell: createRetellWebhooks({
          bodies: host.bodies,
          callContext: (callId) => host.calls.providerContext(callId),
          credentialOf: host.credentialOf,
          applyEvent: (event, context) => host.calls.applyEvent(event, context),
          provisionalEnd: (event, graceSeconds, context) => host.calls.provisionalEnd(event, graceSeconds, context),
          analysisGraceSeconds: host.analysisGraceSeconds,
          toolNameOf: host.toolNameOf,
          invokeTool: host.invokeTool,
          // Its agent was published before the URLs named the credential: published again (decision 0029).
          publishedWithoutCredential: host.republishAgentOfCall,
          inboundCalls: host.inboundCalls,
        }),
        retellKeys: createRetellCredentialKeys({ load: host.apiKeyOf, feed: host.changes }),
      }),
  };
}
