import type { FastifyInstance } from 'fastify';
import { logCallId } from '../../calls/log-call-id.js';
import { refuse } from '../webhook-answer.js';
import { header, keepWebhookBodyBytes, send, webhookSchema } from '../webhook-http.js';
import type { RetellCredentialKeys } from './retell-credential-keys.js';
import { RETELL_CREDENTIAL_PARAM } from './retell-publisher.js';
import { hasFreshRetellSignatureHeader } from './retell-signature.js';
import type { RetellSigner, RetellWebhooks } from './retell-webhook.js';

/** `POST /providers/retell/webhook` and `POST /providers/retell/tools/:toolId`. */
export async function retellWebhookRoutes(
  app: FastifyInstance,
  { retell, retellKeys }: { retell: RetellWebhooks; retellKeys: RetellCredentialKeys },
): Promise<void> {
  // Retell signs the raw bytes with the API key of a credential. The URLs we publish name it
  // (`?credential=`): before the body, the signature header must be well formed and fresh and the
  // credential a Retell one (else 401, as a wrong signature); the bytes are then checked against its
  // key before they are parsed. URLs published before the parameter: the bytes are parsed to find the
  // call's credential, then checked (decision 0029).
  await app.register(async (retellRoutes) => {
    const signers = new WeakMap<object, RetellSigner>();
    retellRoutes.removeAllContentTypeParsers();
    keepWebhookBodyBytes(retellRoutes, '*');
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
        logCallId(request, answer.callId);
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
        logCallId(request, answer.callId);
        return send(reply, answer);
      },
    );
  });
}
