import type { FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import { apiErrors } from '../errors.js';
import { ref } from '../lib/schema.js';
import { type WebhookAnswer, WebhookRefusal } from './webhook-answer.js';

/**
 * The largest body a provider webhook may send, 4 MiB: a one-hour call's Vapi end-of-call report
 * (the transcript five times over, word-level confidences, latencies) is 1.7 MB, so this leaves room
 * for denser speech, long prompts and calls of two hours; larger bodies are refused with 413 from
 * their Content-Length, before they are read (decision 0029).
 */
export const WEBHOOK_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * Bodies of `contentType` (`*` for every type) handed to the routes of `routes` as the bytes received,
 * up to WEBHOOK_BODY_LIMIT: a provider's signature is over those bytes, and its handler parses them.
 */
export function keepWebhookBodyBytes(routes: FastifyInstance, contentType: string): void {
  routes.addContentTypeParser(
    contentType,
    { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
}

export const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

export const send = (reply: FastifyReply, answer: WebhookAnswer) => reply.status(answer.status).send(answer.body);

/**
 * How a provider webhook is documented: each provider's own payload in, an answer for the provider
 * out (free-form: tool results, or `{}`), a refusal as `{error}`, and what the management API's
 * error handler answers for the rest (a body Fastify cannot parse, a failure).
 */
export function webhookSchema(
  operationId: string,
  summary: string,
  security: FastifySchema['security'],
): FastifySchema {
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
