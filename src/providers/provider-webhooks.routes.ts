import type { FastifyInstance } from 'fastify';
import type { VapiWebhook } from './vapi/vapi-webhook.js';

/** End-of-call reports carry whole transcripts: a larger body than the management API's. */
const WEBHOOK_BODY_LIMIT = 10 * 1024 * 1024;

/** The providers' webhooks: they authenticate themselves (no API key), each its own way. */
export async function providerWebhooksRoutes(app: FastifyInstance, { vapi }: { vapi: VapiWebhook }): Promise<void> {
  app.post('/providers/vapi/webhook', { bodyLimit: WEBHOOK_BODY_LIMIT }, async (request, reply) => {
    const secret = request.headers['x-vapi-secret'];
    const answer = await vapi(request.body, typeof secret === 'string' ? secret : undefined);
    return reply.status(answer.status).send(answer.body);
  });
}
