import type { VapiClient } from '@vapi-ai/server-sdk';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import type { ProviderHost, PublishContext, RealVoiceProvider } from '../provider-port.js';
import { fromVapiTool } from '../tool-import.js';
import { vapiAgentProblems } from './vapi-agent-problems.js';
import { createVapiCall } from './vapi-create-call.js';
import { bindVapiPhoneNumber, listVapiPhoneNumbers } from './vapi-phone-numbers.js';
import { createVapiProvider } from './vapi-provider.js';
import { publishToVapi, removeVapiTool, unpublishFromVapi } from './vapi-publisher.js';
import { vapiWebhookRoutes } from './vapi-routes.js';
import { listVapiVoices } from './vapi-voices.js';
import { createVapiWebhook } from './vapi-webhook.js';
import { createVapiWebhookSecrets } from './vapi-webhook-secrets.js';

/**
 * Vapi behind the provider port (decision 0018): assistants and account-level function tools,
 * calls through `POST /call`, the account's numbers, and `POST /providers/vapi/webhook`
 * authenticated by the credential's `x-vapi-secret`.
 */
export function createVapiAdapter(host: ProviderHost): RealVoiceProvider {
  // The SDK is loaded with the first Vapi request: a server without Vapi agents does not pay for it.
  const clientOf = async (credential: OpenedProviderCredential): Promise<VapiClient> => {
    const { VapiClient } = await import('@vapi-ai/server-sdk');
    return new VapiClient({
      token: credential.apiKey,
      ...(credential.baseUrl ? { baseUrl: credential.baseUrl } : {}),
      fetch: host.fetch,
      maxRetries: 0,
      timeoutInSeconds: 15,
    });
  };
  const caller = createVapiProvider({
    credentialOf: host.credentialOf,
    vapiClient: clientOf,
    createCall: (credential, body) => createVapiCall(host.send, credential, body),
  });

  // Tools detached from the last agent of the account, or deleted: removed at Vapi too.
  async function removeUnusedTools(client: VapiClient, { publishedTools }: PublishContext) {
    for (const unused of await publishedTools.unused()) {
      await removeVapiTool(client, unused.providerToolId);
      await publishedTools.forget(unused.toolId);
    }
  }

  return {
    name: 'vapi',
    async warm() {
      // Its large reports are parsed in a thread of their own (decision 0121): started ahead of the first.
      host.bodies.warm();
      await import('@vapi-ai/server-sdk');
    },
    startCall: (request) => caller.startCall(request),
    close: () => caller.close(),
    linksImportedTools: true,
    // Vapi sends back the secret published with the assistant as x-vapi-secret: 24 characters of a
    // 64-symbol alphabet are 144 bits; generated ones are 43 (decision 0029).
    credentialRules: { webhookSecret: { minLength: 24 }, signsWithApiKey: false },

    async publish(agent, context) {
      const client = await clientOf(context.credential);
      const result = await publishToVapi(agent, context.tools, await context.publishedTools.load(), {
        client,
        serverUrl: `${host.publicUrl}/providers/vapi/webhook`,
        webhookSecret: context.credential.webhookSecret,
      });
      await context.publishedTools.save(result.toolIds);
      await removeUnusedTools(client, context);
      return { agentId: result.assistantId, llmId: null };
    },

    async unpublish(agent, context) {
      const client = await clientOf(context.credential);
      if (agent.providerAgentId) await unpublishFromVapi(client, agent.providerAgentId);
      await removeUnusedTools(client, context);
    },

    async listTools(credential) {
      const tools = await (await clientOf(credential)).tools.list();
      return (tools as unknown as Record<string, unknown>[]).map(fromVapiTool);
    },

    // Vapi has no voice list: the voices its published schema documents.
    listVoices: () => listVapiVoices(),

    listPhoneNumbers: async (credential) => listVapiPhoneNumbers(await clientOf(credential)),
    bindPhoneNumber: async (credential, numberId, agentId) =>
      bindVapiPhoneNumber(await clientOf(credential), numberId, agentId),

    agentProblems: vapiAgentProblems,

    webhookRoutes: (app) =>
      vapiWebhookRoutes(app, {
        vapiSecrets: createVapiWebhookSecrets({ load: () => host.webhookSecrets('vapi') }),
        bodies: host.bodies,
        vapi: createVapiWebhook({
          callContext: (callId) => host.calls.providerContext(callId),
          webhookSecretOpens: host.webhookSecretOpens,
          applyEvent: (event, context) => host.calls.applyEvent(event, context),
          invokeTool: host.invokeTool,
          inboundCalls: host.inboundCalls,
        }),
      }),
  };
}
