import type { ProviderCallContext } from '../../calls/calls.repository.js';
import type { InboundCalls, IncomingCall } from '../../calls/inbound-calls.js';
import { isObject, type Json, text } from '../provider-outcome.js';
import type { CallEvent, ToolInvoker } from '../voice-provider.js';
import { refuse, type WebhookAnswer } from '../webhook-answer.js';
import {
  switchboardCallIdOf,
  vapiCallIdOf,
  vapiEndedEvent,
  vapiStatusEvent,
  vapiToolCalls,
  vapiToolResults,
} from './vapi-mapper.js';

export interface VapiWebhookDeps {
  callContext: (callId: string) => Promise<ProviderCallContext | undefined>;
  /** Whether `secret` opens the webhooks of the organization's credential (current, or replaced within 24 h). */
  webhookSecretOpens: (organizationId: string, credentialId: string, secret: string) => Promise<boolean>;
  /** With the call's context when the event ends it: its agent's `collect` is read already. */
  applyEvent: (event: CallEvent, context?: ProviderCallContext) => Promise<void>;
  invokeTool: ToolInvoker;
  /**
   * Incoming calls (decision 0038): a message about a call without our call id, for one of our
   * published assistants, records the call. Default: none (such messages are answered 404).
   */
  inboundCalls?: Pick<InboundCalls, 'known' | 'agentOf' | 'record'>;
}

/**
 * What an incoming call's messages say of it: Vapi's call id, the caller (`customer.number`), our
 * number (`phoneNumber.number`, else its id `phoneNumberId`) and the assistant answering. Only a call
 * Vapi calls `inboundPhoneCall`: one placed from Vapi's dashboard with our assistant is not ours.
 */
export function vapiIncomingCall(message: Json): (IncomingCall & { assistantId: string }) | undefined {
  const call = isObject(message.call) ? message.call : undefined;
  const providerCallId = vapiCallIdOf(message);
  const assistantId = text(call?.assistantId);
  if (call?.type !== 'inboundPhoneCall' || !providerCallId || !assistantId) return undefined;
  const numberOf = (holder: unknown) => (isObject(holder) ? text(holder.number) : undefined);
  return {
    providerCallId,
    assistantId,
    from: numberOf(call.customer) ?? numberOf(message.customer),
    to: numberOf(call.phoneNumber) ?? numberOf(message.phoneNumber),
    providerNumberId: text(call.phoneNumberId),
  };
}

/**
 * `POST /providers/vapi/webhook` (issue 5): authenticated by the `x-vapi-secret` we gave Vapi (the
 * credential's webhook secret, compared in constant time), for a call we placed through Vapi or an
 * incoming call of one of our assistants (issue 17).
 * Tool calls run through the tools engine and are answered in Vapi's shape; status updates and the
 * end-of-call report become call events. Repeated reports change nothing (a call ends once).
 */
export function createVapiWebhook({
  callContext,
  webhookSecretOpens,
  applyEvent,
  invokeTool,
  inboundCalls,
}: VapiWebhookDeps) {
  /** Whether `secret` is a webhook secret of the organization's credential (decision 0096: or was, a moment ago). */
  async function isSecretOf(organizationId: string, credentialId: string | null, secret: string): Promise<boolean> {
    return credentialId !== null && (await webhookSecretOpens(organizationId, credentialId, secret));
  }

  /**
   * The incoming call a message without our call id is about: recorded already (found by Vapi's call
   * id), or recorded now when it is an incoming call of one of our live assistants and the secret is
   * that assistant's credential's (checked before anything is written).
   */
  async function incomingCall(payload: Json, secret: string): Promise<ProviderCallContext | undefined> {
    const providerCallId = vapiCallIdOf(payload);
    if (!inboundCalls || !providerCallId) return undefined;
    const known = await inboundCalls.known('vapi', providerCallId);
    if (known) return known;
    const incoming = vapiIncomingCall(payload);
    const agent = incoming && (await inboundCalls.agentOf('vapi', incoming.assistantId));
    if (!incoming || !agent || !(await isSecretOf(agent.organizationId, agent.providerCredentialId, secret))) {
      return undefined;
    }
    return inboundCalls.record(agent, incoming);
  }

  return async function handle(body: unknown, secret: string | undefined): Promise<WebhookAnswer> {
    if (!secret) return refuse(401, 'x-vapi-secret is missing');
    const message = (body as { message?: unknown } | null)?.message;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return refuse(400, 'The body has no message object');
    }
    const payload = message as Record<string, unknown>;
    const callId = switchboardCallIdOf(payload);
    // Without our call id: a caller rang one of our numbers (decision 0038).
    const call = callId ? await callContext(callId) : await incomingCall(payload, secret);
    const noSuchCall = () => refuse(404, 'No call of ours has this id');
    if (call?.provider !== 'vapi') return noSuchCall();
    // The secret is some credential's (checked before the body), not this call's: not that
    // credential's to tell, so answered as a call that does not exist (decision 0029).
    if (!(await isSecretOf(call.organizationId, call.providerCredentialId, secret))) return noSuchCall();

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
        await applyEvent(vapiEndedEvent(payload, call.id, call.outcomes), call);
        return { status: 200, body: {}, callId: call.id };
      default:
        return { status: 200, body: {}, callId: call.id };
    }
  };
}

export type VapiWebhook = ReturnType<typeof createVapiWebhook>;
