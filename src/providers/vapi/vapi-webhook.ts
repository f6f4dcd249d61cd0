import type { ProviderCallContext } from '../../calls/calls.repository.js';
import { constantTimeEquals } from '../../lib/crypto.js';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import type { CallEvent, ToolInvoker } from '../voice-provider.js';
import { refuse, type WebhookAnswer } from '../webhook-answer.js';
import { switchboardCallIdOf, vapiEndedEvent, vapiStatusEvent, vapiToolCalls, vapiToolResults } from './vapi-mapper.js';

export interface VapiWebhookDeps {
  callContext: (callId: string) => Promise<ProviderCallContext | undefined>;
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  applyEvent: (event: CallEvent) => Promise<void>;
  invokeTool: ToolInvoker;
}

/**
 * `POST /providers/vapi/webhook` (issue 5): authenticated by the `x-vapi-secret` we gave Vapi (the
 * credential's webhook secret, compared in constant time), for a call we placed through Vapi.
 * Tool calls run through the tools engine and are answered in Vapi's shape; status updates and the
 * end-of-call report become call events. Repeated reports change nothing (a call ends once).
 */
export function createVapiWebhook({ callContext, credentialOf, applyEvent, invokeTool }: VapiWebhookDeps) {
  return async function handle(body: unknown, secret: string | undefined): Promise<WebhookAnswer> {
    if (!secret) return refuse(401, 'x-vapi-secret is missing');
    const message = (body as { message?: unknown } | null)?.message;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return refuse(400, 'The body has no message object');
    }
    const payload = message as Record<string, unknown>;
    const callId = switchboardCallIdOf(payload);
    const call = callId ? await callContext(callId) : undefined;
    const noSuchCall = () => refuse(404, 'No call of ours has this id');
    if (call?.provider !== 'vapi') return noSuchCall();
    const credential = call.providerCredentialId
      ? await credentialOf(call.organizationId, call.providerCredentialId)
      : undefined;
    // The secret is some credential's (checked before the body), not this call's: not that
    // credential's to tell, so answered as a call that does not exist (decision 0029).
    if (!credential?.webhookSecret || !constantTimeEquals(credential.webhookSecret, secret)) return noSuchCall();

    switch (payload.type) {
      case 'tool-calls': {
        const results = await Promise.all(
          vapiToolCalls(payload).map(async ({ toolCallId, name, args }) => {
            const run = await invokeTool({ callId: call.id, name, args });
            return { toolCallId, name, result: run.result, error: run.error !== null };
          }),
        );
        return { status: 200, body: vapiToolResults(results), callId: call.id };
      }
      case 'status-update': {
        const event = vapiStatusEvent(payload, call.id);
        if (event) await applyEvent(event);
        return { status: 200, body: {}, callId: call.id };
      }
      case 'end-of-call-report':
        await applyEvent(vapiEndedEvent(payload, call.id, call.outcomes));
        return { status: 200, body: {}, callId: call.id };
      default:
        return { status: 200, body: {}, callId: call.id };
    }
  };
}

export type VapiWebhook = ReturnType<typeof createVapiWebhook>;
