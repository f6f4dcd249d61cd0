import type { FastifyError, FastifyInstance } from 'fastify';
import type { RealVoiceProvider } from './provider-port.js';
import { refuse } from './webhook-answer.js';
import { send, WEBHOOK_BODY_LIMIT } from './webhook-http.js';

export { WEBHOOK_BODY_LIMIT };

/**
 * The providers' webhooks: each provider registers its own (`webhookRoutes` of the port), which
 * authenticate themselves (no API key), each its own way, and on the headers first, in an
 * `onRequest` hook, so that a request that cannot be the provider's is refused before its body is
 * read (decision 0029).
 */
export async function providerWebhooksRoutes(
  app: FastifyInstance,
  { providers }: { providers: readonly RealVoiceProvider[] },
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
  for (const provider of providers) await app.register(async (scope) => provider.webhookRoutes(scope));
}
