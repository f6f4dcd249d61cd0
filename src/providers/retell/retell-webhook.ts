import type { ProviderCallContext } from '../../calls/calls.repository.js';
import type { InboundAgent, InboundCalls, IncomingCall } from '../../calls/inbound-calls.js';
import type { JsonBodies } from '../../lib/json-bodies.js';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import { isObject, type Json, text } from '../provider-outcome.js';
import type { CallEvent, ToolInvoker } from '../voice-provider.js';
import { refuse, type WebhookAnswer } from '../webhook-answer.js';
import {
  RETELL_BODY_READ,
  retellDisposition,
  retellEndedEvent,
  retellStartedEvent,
  switchboardCallIdOf,
} from './retell-mapper.js';
import { verifyRetellSignature } from './retell-signature.js';

/** How long an answered call waits for `call_analyzed` after `call_ended` before it ends without it. */
export const ANALYSIS_GRACE_SECONDS = 120;

export interface RetellWebhookDeps {
  /** Parses the bodies, the large ones off the event loop, keeping what `RETELL_BODY_READ` names. */
  bodies: Pick<JsonBodies, 'parse'>;
  callContext: (callId: string) => Promise<ProviderCallContext | undefined>;
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  /** With the call's context when the event ends it: its agent's `collect` is read already. */
  applyEvent: (event: CallEvent, context?: ProviderCallContext) => Promise<void>;
  provisionalEnd: (
    event: Extract<CallEvent, { type: 'ended' }>,
    graceSeconds: number,
    context: ProviderCallContext,
  ) => Promise<void>;
  invokeTool: ToolInvoker;
  /** The name of the organization's tool with this id, if there is one. */
  toolNameOf: (organizationId: string, toolId: string) => Promise<string | undefined>;
  /** How long an answered call waits for `call_analyzed`; default `ANALYSIS_GRACE_SECONDS`. */
  analysisGraceSeconds?: number;
  /**
   * A verified webhook of this call came to a URL without `?credential=`: its agent was published
   * before the parameter, and is published again (decision 0029). Failures are the callee's to log.
   */
  publishedWithoutCredential?: (callId: string) => Promise<void>;
  /**
   * Incoming calls (decision 0038): a webhook about a call without our call id, for one of our
   * published agents, records the call. Default: none (such webhooks are refused as today).
   */
  inboundCalls?: Pick<InboundCalls, 'known' | 'agentOf' | 'record'>;
}

/**
 * What Retell says of an incoming call (`direction: "inbound"`): its id, the caller, our number and
 * the agent answering. A call Retell placed otherwise (its dashboard, its API) is not ours.
 */
function retellIncomingCall(call: Json): (IncomingCall & { agentId: string }) | undefined {
  const providerCallId = text(call.call_id);
  const agentId = text(call.agent_id);
  if (call.direction !== 'inbound' || !providerCallId || !agentId) return undefined;
  return {
    providerCallId,
    agentId,
    from: text(call.from_number),
    to: text(call.to_number),
    // Retell names a number by the number itself.
    providerNumberId: text(call.to_number),
  };
}

/** The credential a webhook's URL names (`?credential=`), with its API key: the key it must be signed with. */
export interface RetellSigner {
  id: string;
  apiKey: string;
}

/**
 * Retell's two callers, both signed with `x-retell-signature` (keyed with the account's API key):
 * the agent's webhook (`call_started`, `call_ended`, `call_analyzed`) and its custom-tool calls, for
 * calls we placed and incoming calls of our agents (issue 17). Their
 * URLs name the credential (`?credential=`), so the signature is checked on the raw bytes before
 * they are parsed.
 */
export function createRetellWebhooks({
  bodies,
  callContext,
  credentialOf,
  applyEvent,
  provisionalEnd,
  invokeTool,
  toolNameOf,
  analysisGraceSeconds = ANALYSIS_GRACE_SECONDS,
  publishedWithoutCredential = async () => {},
  inboundCalls,
}: RetellWebhookDeps) {
  const doesNotVerify = () => refuse(401, 'x-retell-signature does not verify');

  /**
   * The call the body is about, authenticated; or the refusal. With `signer` (the credential the URL
   * names, `?credential=`), the signature is checked on the raw bytes before they are parsed, and the
   * call must be that credential's. Without it (URLs published before the parameter), the body is
   * parsed to find the call's credential first, and the agent is published again with the parameter.
   */
  async function authenticated(
    raw: Buffer | undefined,
    signature: string | undefined,
    signer: RetellSigner | undefined,
  ): Promise<{ body: Json; call: Json; context: ProviderCallContext } | WebhookAnswer> {
    if (!signature) return refuse(401, 'x-retell-signature is missing');
    if (signer && !verifyRetellSignature(raw ?? '', signer.apiKey, signature)) return doesNotVerify();
    const parsed = await bodies.parse(raw ?? Buffer.alloc(0), RETELL_BODY_READ);
    if (!parsed) return refuse(400, 'The body is not JSON');
    const body = parsed.value;
    const call = isObject(body) && isObject(body.call) ? body.call : undefined;
    const callId = call ? switchboardCallIdOf(call) : undefined;
    let context = callId ? await callContext(callId) : undefined;
    // Without our call id: an incoming call of one of our agents, recorded already or to record once
    // the signature verifies with its credential's key (decision 0038).
    let incoming: { agent: InboundAgent; call: IncomingCall } | undefined;
    if (!callId && call && inboundCalls) {
      const providerCallId = text(call.call_id);
      context = providerCallId ? await inboundCalls.known('retell', providerCallId) : undefined;
      const described = context ? undefined : retellIncomingCall(call);
      const agent = described && (await inboundCalls.agentOf('retell', described.agentId));
      if (described && agent) incoming = { agent, call: described };
    }
    // Whose key must have signed it: the call's credential's, or the answering agent's.
    const owner = context
      ? context.provider === 'retell'
        ? { organizationId: context.organizationId, credentialId: context.providerCredentialId }
        : undefined
      : incoming && {
          organizationId: incoming.agent.organizationId,
          credentialId: incoming.agent.providerCredentialId,
        };
    if (!isObject(body) || !call || !owner) {
      // Without the credential in the URL, only the call's credential can verify the signature: a call
      // we do not have cannot be verified, and is answered as a wrong signature, so that an unsigned
      // caller learns nothing of which calls exist (decision 0029).
      return signer ? refuse(404, 'No call of ours has this id') : doesNotVerify();
    }
    if (signer) {
      // Signed with one credential's key about another credential's call: not this credential's to
      // tell, and answered as a call that does not exist, so a signer learns nothing of others' calls.
      if (owner.credentialId !== signer.id) return refuse(404, 'No call of ours has this id');
    } else {
      const credential = owner.credentialId ? await credentialOf(owner.organizationId, owner.credentialId) : undefined;
      if (!credential || !verifyRetellSignature(raw ?? '', credential.apiKey, signature)) return doesNotVerify();
    }
    const recorded = context ?? (incoming && (await inboundCalls?.record(incoming.agent, incoming.call)));
    if (!recorded) return signer ? refuse(404, 'No call of ours has this id') : doesNotVerify();
    if (!signer) await publishedWithoutCredential(recorded.id);
    return { body, call, context: recorded };
  }

  return {
    /** `POST /providers/retell/webhook`. */
    async event(raw: Buffer | undefined, signature: string | undefined, signer?: RetellSigner): Promise<WebhookAnswer> {
      const checked = await authenticated(raw, signature, signer);
      if ('status' in checked) return checked;
      const { body, call, context } = checked;
      switch (body.event) {
        case 'call_started':
          await applyEvent(retellStartedEvent(call, context.id));
          break;
        case 'call_ended': {
          const ended = retellEndedEvent(call, context.id, context.outcomes);
          const analysis = isObject(call.call_analysis) ? call.call_analysis : undefined;
          // An answered call's outcome comes with the analysis: wait for it, a while.
          if (!analysis && retellDisposition(ended.endedReason) === 'answered') {
            await provisionalEnd(ended, analysisGraceSeconds, context);
          } else {
            await applyEvent(ended, context);
          }
          break;
        }
        case 'call_analyzed':
          await applyEvent(retellEndedEvent(call, context.id, context.outcomes), context);
          break;
      }
      return { status: 200, body: {}, callId: context.id };
    },

    /**
     * `POST /providers/retell/tools/:toolId`: one of our tools, as the custom tool we published; the
     * answer's body goes to the LLM. The tool is the one the URL names (Retell's `name` if it is gone).
     */
    async toolCall(
      toolId: string,
      raw: Buffer | undefined,
      signature: string | undefined,
      signer?: RetellSigner,
    ): Promise<WebhookAnswer> {
      const checked = await authenticated(raw, signature, signer);
      if ('status' in checked) return checked;
      const { body, context } = checked;
      const name =
        (await toolNameOf(context.organizationId, toolId)) ?? (typeof body.name === 'string' ? body.name : '');
      const run = await invokeTool({ callId: context.id, name, args: body.args ?? {} });
      return { status: 200, body: { result: run.result }, callId: context.id };
    },
  };
}

export type RetellWebhooks = ReturnType<typeof createRetellWebhooks>;
