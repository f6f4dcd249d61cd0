import type { FastifyInstance } from 'fastify';
import { logCallId } from '../calls/log-call-id.js';
import type { RetellWebhooks } from './retell/retell-webhook.js';
import type { VapiWebhook } from './vapi/vapi-webhook.js';

/** End-of-call reports carry whole transcripts: a larger body than the management API's. */
const WEBHOOK_BODY_LIMIT = 10 * 1024 * 1024;

/** The providers' webhooks: they authenticate themselves (no API key), each its own way. */
export async function providerWebhooksRoutes(
  app: FastifyInstance,
  { vapi, retell }: { vapi: VapiWebhook; retell: RetellWebhooks },
): Promise<void> {
  const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

  app.post('/providers/vapi/webhook', { bodyLimit: WEBHOOK_BODY_LIMIT }, async (request, reply) => {
    const answer = await vapi(request.body, header(request.headers['x-vapi-secret']));
    logCallId(request, reply, answer.callId);
    return reply.status(answer.status).send(answer.body);
  });

  // Retell signs the raw bytes: they are kept as received and parsed only after the check.
  await app.register(async (retellRoutes) => {
    retellRoutes.removeAllContentTypeParsers();
    retellRoutes.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    const raw = (body: unknown) => (Buffer.isBuffer(body) ? body : undefined);
    retellRoutes.post('/providers/retell/webhook', async (request, reply) => {
      const answer = await retell.event(raw(request.body), header(request.headers['x-retell-signature']));
      logCallId(request, reply, answer.callId);
      return reply.status(answer.status).send(answer.body);
    });
    // CONTRACT §6: a provider that calls tools at their own URL calls /providers/<provider>/tools/:toolId.
    retellRoutes.post<{ Params: { toolId: string } }>('/providers/retell/tools/:toolId', async (request, reply) => {
      const answer = await retell.toolCall(
        request.params.toolId,
        raw(request.body),
        header(request.headers['x-retell-signature']),
      );
      logCallId(request, reply, answer.callId);
      return reply.status(answer.status).send(answer.body);
    });
  });
}
