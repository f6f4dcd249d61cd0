import type { FastifyInstance } from 'fastify';
import { logCallId } from '../../calls/log-call-id.js';
import { type JsonBodies, projectJson } from '../../lib/json-bodies.js';
import { MAY_READ_OTHERWISE_THAN_JSON_PARSE, readRequestJson } from '../../lib/request-json.js';
import { refuse } from '../webhook-answer.js';
import { header, keepWebhookBodyBytes, send, WEBHOOK_BODY_LIMIT, webhookSchema } from '../webhook-http.js';
import { VAPI_BODY_READ } from './vapi-mapper.js';
import type { VapiWebhook } from './vapi-webhook.js';
import type { VapiWebhookSecrets } from './vapi-webhook-secrets.js';

/**
 * A Vapi body as `VAPI_BODY_READ` keeps it, read as the API reads every JSON body (decision 0121):
 * parsed by `bodies`, the large ones off the event loop, when `JSON.parse` reads it as the API
 * would; else (a byte-order mark, a key the API may refuse, or not JSON at all) read here, where a
 * refusal throws the API's 422.
 */
async function readVapiBody(raw: Buffer, bodies: Pick<JsonBodies, 'parse'>): Promise<unknown> {
  const parsed = await bodies.parse(raw, VAPI_BODY_READ, MAY_READ_OTHERWISE_THAN_JSON_PARSE);
  if (parsed) return parsed.value;
  const value = readRequestJson(raw.toString('utf8'));
  return value === undefined ? undefined : projectJson(value, VAPI_BODY_READ);
}

/** `POST /providers/vapi/webhook`. */
export async function vapiWebhookRoutes(
  app: FastifyInstance,
  {
    vapi,
    vapiSecrets,
    bodies,
  }: { vapi: VapiWebhook; vapiSecrets: VapiWebhookSecrets; bodies: Pick<JsonBodies, 'parse'> },
): Promise<void> {
  await app.register(async (vapiRoutes) => {
    // A JSON body's bytes as received, read by the handler; other types are parsed as elsewhere in the API.
    vapiRoutes.removeContentTypeParser('application/json');
    keepWebhookBodyBytes(vapiRoutes, 'application/json');
    // Vapi sends back the webhook secret of the credential its assistant was published with. Before
    // the body: the secret must be some Vapi credential's. After it: the credential of the call named.
    vapiRoutes.post(
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
        // call's end waits for a batched statement: the request keeps neither the bytes nor the whole
        // body meanwhile, only what the projection keeps.
        const raw = request.body;
        request.body = undefined;
        const body = Buffer.isBuffer(raw) ? await readVapiBody(raw, bodies) : raw;
        const answer = await vapi(body, header(request.headers['x-vapi-secret']));
        logCallId(request, answer.callId);
        return send(reply, answer);
      },
    );
  });
}
