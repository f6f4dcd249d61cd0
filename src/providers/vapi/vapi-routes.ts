import type { FastifyInstance } from 'fastify';
import { logCallId } from '../../calls/log-call-id.js';
import { refuse } from '../webhook-answer.js';
import { header, send, WEBHOOK_BODY_LIMIT, webhookSchema } from '../webhook-http.js';
import type { VapiWebhook } from './vapi-webhook.js';
import type { VapiWebhookSecrets } from './vapi-webhook-secrets.js';

/** `POST /providers/vapi/webhook`. */
export async function vapiWebhookRoutes(
  app: FastifyInstance,
  { vapi, vapiSecrets }: { vapi: VapiWebhook; vapiSecrets: VapiWebhookSecrets },
): Promise<void> {
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
      // A report is large (a 3-minute call's is 120 KB of JSON, several times that as objects) and its
      // call's end waits for a batched statement: the request does not keep the parsed body meanwhile.
      const { body } = request;
      request.body = undefined;
      const answer = await vapi(body, header(request.headers['x-vapi-secret']));
      logCallId(request, answer.callId);
      return send(reply, answer);
    },
  );
}
