import type { FastifyError, FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import { logCallId } from '../calls/log-call-id.js';
import { apiErrors } from '../errors.js';
import { ref } from '../lib/schema.js';
import type { RetellCredentialKeys } from './retell/retell-credential-keys.js';
import { RETELL_CREDENTIAL_PARAM } from './retell/retell-publisher.js';
import { hasFreshRetellSignatureHeader } from './retell/retell-signature.js';
import type { RetellSigner, RetellWebhooks } from './retell/retell-webhook.js';
import type { VapiWebhook } from './vapi/vapi-webhook.js';
import type { VapiWebhookSecrets } from './vapi/vapi-webhook-secrets.js';
import { refuse, type WebhookAnswer, WebhookRefusal } from './webhook-answer.js';

/**
 * The largest body a provider webhook may send, 4 MiB: a one-hour call's Vapi end-of-call report
 * (the transcript five times over, word-level confidences, latencies) is 1.7 MB, so this leaves room
 * for denser speech, long prompts and calls of two hours; larger bodies are refused with 413 from
 * their Content-Length, before they are read (decision 0029).
 */
export const WEBHOOK_BODY_LIMIT = 4 * 1024 * 1024;

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

const send = (reply: FastifyReply, answer: WebhookAnswer) => reply.status(answer.status).send(answer.body);

/**
 * How a provider webhook is documented: each provider's own payload in, an answer for the provider
 * out (free-form: tool results, or `{}`), a refusal as `{error}`, and what the management API's
 * error handler answers for the rest (a body Fastify cannot parse, a failure).
 */
function webhookSchema(operationId: string, summary: string, security: FastifySchema['security']): FastifySchema {
  return {
    operationId,
    summary,
    tags: ['Provider webhooks'],
    security,
    body: {
      type: 'object',
      additionalProperties: true,
      description: "The provider's own payload, as its documentation defines it",
    },
    response: {
      200: {
        type: 'object',
        additionalProperties: true,
        description: 'Taken: for a tool call, the result for the agent; otherwise {}',
      },
      400: ref(WebhookRefusal, { description: 'The body is not what the provider sends' }),
      401: ref(WebhookRefusal, { description: 'Not authenticated as the provider' }),
      404: ref(WebhookRefusal, { description: 'No call of ours has this id' }),
      413: ref(WebhookRefusal, { description: `The body is larger than ${WEBHOOK_BODY_LIMIT} bytes` }),
      ...apiErrors('validation'),
    },
  };
}

/**
 * The providers' webhooks: they authenticate themselves (no API key), each its own way, and on the
 * headers first, in an `onRequest` hook, so that a request that cannot be the provider's is refused
 * before its body is read (decision 0029).
 */
export async function providerWebhooksRoutes(
  app: FastifyInstance,
  {
    vapi,
    vapiSecrets,
    retell,
    retellKeys,
  }: { vapi: VapiWebhook; vapiSecrets: VapiWebhookSecrets; retell: RetellWebhooks; retellKeys: RetellCredentialKeys },
): Promise<void> {
  // A body over the limit is the provider's to make smaller: 413, in the webhooks' `{error}` shape.
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw error;
    return send(reply, refuse(413, `The body is larger than ${WEBHOOK_BODY_LIMIT} bytes`));
  });
  // The schemas document the routes and change nothing: each handler judges its provider's payload
  // (after authenticating it), and answers go out exactly as built.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Vapi sends back the webhook secret of the credential its assistant was published with. Before
  // the body: the secret must be some Vapi credential's. After it: the credential of the call named.
  app.post(
    '/providers/vapi/webhook',
    {
      schema: webhookSchema('receiveVapiWebhook', "Vapi's server messages (authenticated by x-vapi-secret)", [
        { vapiSecret: [] },
      ]),
      bodyLimit: WEBHOOK_BODY_LIMIT,
      onRequest: async (request, reply) => {
        const secret = header(request.headers['x-vapi-secret']);
        if (!secret) return send(reply, refuse(401, 'x-vapi-secret is missing'));
        if (!(await vapiSecrets.isKnown(secret))) return send(reply, refuse(401, 'x-vapi-secret does not match'));
      },
    },
    async (request, reply) => {
      const answer = await vapi(request.body, header(request.headers['x-vapi-secret']));
      logCallId(request, reply, answer.callId);
      return send(reply, answer);
    },
  );

  // Retell signs the raw bytes with the API key of a credential. The URLs we publish name it
  // (`?credential=`): before the body, the signature header must be well formed and fresh and the
  // credential a Retell one (else 401, as a wrong signature); the bytes are then checked against its
  // key before they are parsed. URLs published before the parameter: the bytes are parsed to find the
  // call's credential, then checked (decision 0029).
  await app.register(async (retellRoutes) => {
    const signers = new WeakMap<object, RetellSigner>();
    retellRoutes.removeAllContentTypeParsers();
    retellRoutes.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    retellRoutes.addHook('onRequest', async (request, reply) => {
      const signature = header(request.headers['x-retell-signature']);
      if (!signature) return send(reply, refuse(401, 'x-retell-signature is missing'));
      if (!hasFreshRetellSignatureHeader(signature))
        return send(reply, refuse(401, 'x-retell-signature does not verify'));
      const credentialId = (request.query as Record<string, unknown> | undefined)?.[RETELL_CREDENTIAL_PARAM];
      if (credentialId === undefined) return;
      const apiKey = typeof credentialId === 'string' ? await retellKeys.apiKeyOf(credentialId) : undefined;
      if (!apiKey || typeof credentialId !== 'string')
        return send(reply, refuse(401, 'x-retell-signature does not verify'));
      signers.set(request, { id: credentialId, apiKey });
    });
    const raw = (body: unknown) => (Buffer.isBuffer(body) ? body : undefined);
    const retellSecurity = [{ retellSignature: [] }];
    retellRoutes.post(
      '/providers/retell/webhook',
      {
        schema: webhookSchema(
          'receiveRetellWebhook',
          "Retell's call events (signed: x-retell-signature)",
          retellSecurity,
        ),
      },
      async (request, reply) => {
        const answer = await retell.event(
          raw(request.body),
          header(request.headers['x-retell-signature']),
          signers.get(request),
        );
        logCallId(request, reply, answer.callId);
        return send(reply, answer);
      },
    );
    // docs/interface.md#providers: a provider that calls tools at their own URL calls /providers/<provider>/tools/:toolId.
    retellRoutes.post<{ Params: { toolId: string } }>(
      '/providers/retell/tools/:toolId',
      {
        schema: {
          ...webhookSchema(
            'receiveRetellToolCall',
            "Retell's custom-function calls (signed: x-retell-signature)",
            retellSecurity,
          ),
          params: { type: 'object', required: ['toolId'], properties: { toolId: { type: 'string' } } },
        },
      },
      async (request, reply) => {
        const answer = await retell.toolCall(
          request.params.toolId,
          raw(request.body),
          header(request.headers['x-retell-signature']),
          signers.get(request),
        );
        logCallId(request, reply, answer.callId);
        return send(reply, answer);
      },
    );
  });
}
