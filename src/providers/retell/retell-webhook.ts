import type { ProviderCallContext } from '../../calls/calls.repository.js';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';
import { isObject, type Json } from '../provider-outcome.js';
import type { CallEvent, ToolInvoker } from '../voice-provider.js';
import { refuse, type WebhookAnswer } from '../webhook-answer.js';
import { retellDisposition, retellEndedEvent, retellStartedEvent, switchboardCallIdOf } from './retell-mapper.js';
import { verifyRetellSignature } from './retell-signature.js';

/** How long an answered call waits for `call_analyzed` after `call_ended` before it ends without it. */
export const ANALYSIS_GRACE_SECONDS = 120;

export interface RetellWebhookDeps {
  callContext: (callId: string) => Promise<ProviderCallContext | undefined>;
  credentialOf: (organizationId: string, id: string) => Promise<OpenedProviderCredential | undefined>;
  applyEvent: (event: CallEvent) => Promise<void>;
  provisionalEnd: (event: Extract<CallEvent, { type: 'ended' }>, graceSeconds: number) => Promise<void>;
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
}

/** The credential a webhook's URL names (`?credential=`), with its API key: the key it must be signed with. */
export interface RetellSigner {
  id: string;
  apiKey: string;
}

/**
 * Retell's two callers, both signed with `x-retell-signature` (keyed with the account's API key):
 * the agent's webhook (`call_started`, `call_ended`, `call_analyzed`) and its custom-tool calls. Their
 * URLs name the credential (`?credential=`), so the signature is checked on the raw bytes before
 * they are parsed.
 */
export function createRetellWebhooks({
  callContext,
  credentialOf,
  applyEvent,
  provisionalEnd,
  invokeTool,
  toolNameOf,
  analysisGraceSeconds = ANALYSIS_GRACE_SECONDS,
  publishedWithoutCredential = async () => {},
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
    const text = raw?.toString('utf8') ?? '';
    if (signer && !(await verifyRetellSignature(text, signer.apiKey, signature))) return doesNotVerify();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(400, 'The body is not JSON');
    }
    const call = isObject(body) && isObject(body.call) ? body.call : undefined;
    const callId = call ? switchboardCallIdOf(call) : undefined;
    const context = callId ? await callContext(callId) : undefined;
    const ours = isObject(body) && call && context?.provider === 'retell' ? { body, call, context } : undefined;
    if (signer) {
      // Signed with one credential's key about another credential's call: not this credential's to
      // tell, and answered as a call that does not exist, so a signer learns nothing of others' calls.
      const noSuchCall = refuse(404, 'No call of ours has this id');
      return ours?.context.providerCredentialId === signer.id ? ours : noSuchCall;
    }
    // Without the credential in the URL, only the call's credential can verify the signature: a call
    // we do not have cannot be verified, and is answered as a wrong signature, so that an unsigned
    // caller learns nothing of which calls exist (decision 0029).
    if (!ours) return doesNotVerify();
    const credential = ours.context.providerCredentialId
      ? await credentialOf(ours.context.organizationId, ours.context.providerCredentialId)
      : undefined;
    if (!credential || !(await verifyRetellSignature(text, credential.apiKey, signature))) return doesNotVerify();
    await publishedWithoutCredential(ours.context.id);
    return ours;
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
            await provisionalEnd(ended, analysisGraceSeconds);
          } else {
            await applyEvent(ended);
          }
          break;
        }
        case 'call_analyzed':
          await applyEvent(retellEndedEvent(call, context.id, context.outcomes));
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
