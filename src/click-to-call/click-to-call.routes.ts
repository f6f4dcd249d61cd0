import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { logCallId } from '../calls/log-call-id.js';
import type { RefusalPacer } from '../lib/refusal-pacer.js';
import { logQuietly } from '../lib/request-log.js';
import { ClickToCallBody, ClickToCallHeaders, ClickToCallResponses } from './click-to-call.schemas.js';
import type { ClickToCallService } from './click-to-call.service.js';
import { type CtcResponse, ctcError } from './ctc-errors.js';
import { MAX_BODY_BYTES } from './request-body.js';

/** A request header's value, the first when it was sent more than once. */
export function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const CLICK_TO_CALL_PATH = '/api/click-to-call';
/** Refusals of a caller without credentials: answered late (decision 0029). */
export const PACED_CODES: ReadonlySet<string> = new Set(['ctc:001', 'ctc:003', 'ctc:006']);
/** Their log line, said once every 10 s with how many there were. */
export const refusedSummary = (code: unknown) => `click-to-call refused for its credentials (${String(code)})`;

/**
 * `POST /api/click-to-call`. Its own scope: the body is kept as the exact bytes received (the
 * signature covers them), whatever the content type, and every error answers in the ctc format.
 */
export async function clickToCallRoutes(
  app: FastifyInstance,
  { clickToCall, refusals }: { clickToCall: ClickToCallService; refusals: RefusalPacer },
) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => {
    done(null, body);
  });
  // The route's schemas document it (OpenAPI) and change nothing: the service makes the contract's
  // checks in the contract's order, and answers are sent as built, so no schema can drop a field.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const response =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? ctcError('ctc:009', request.id, {
            details: [{ path: '$', message: `The body is larger than ${MAX_BODY_BYTES} bytes` }],
          })
        : error.statusCode && error.statusCode < 500
          ? ctcError('ctc:009', request.id, { details: [{ path: '$', message: error.message }] })
          : ctcError('ctc:008', request.id);
    if (response.status >= 500) request.log.error({ err: error }, 'click-to-call failed');
    return reply.status(response.status).send(response.body);
  });

  const schema: FastifySchema = {
    operationId: 'triggerClickToCall',
    tags: ['Click to call'],
    summary: 'Start a call to a lead',
    description:
      'Signed with the agent\'s API secret: `signature` is the lowercase hex HMAC-SHA256 of the exact body, or of `timestamp + "." + body` with a `signature-timestamp` header (at most 300 s off). The checks run in this order, and the first that fails answers: api-key, the agent, the signature, Idempotency-Key, the rate limit, the agent enabled and configured, the body and the number, a call in progress, the provider. Premium-rate, shared-cost and other costly numbers, and numbers outside the agent\'s `allowedCountries`, are ctc:009.',
    security: [{ ctcApiKey: [], ctcSignature: [] }, { ctcApiKey: [] }],
    headers: ClickToCallHeaders,
    body: ClickToCallBody,
    response: ClickToCallResponses,
  };
  // A missing or surely unknown token is refused before the body is read: a flood of made-up
  // tokens costs no body, no parsing and no query, no log line of its own (the refusals are counted
  // in one line every 10 s), and is answered a second late (decision 0029).
  // On PostgreSQL a token missing from the index waits for the change feed first (decision 0092).
  const onRequest = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const refuse = (refusal: CtcResponse | undefined) => {
      if (!refusal) return done();
      logQuietly(request, refusedSummary(refusal.body.code));
      refusals.pace(() => reply.status(refusal.status).send(refusal.body));
    };
    const refusal = clickToCall.refuseBeforeBody({ requestId: request.id, apiKey: header(request.headers['api-key']) });
    if (refusal instanceof Promise) refusal.then(refuse, done);
    else refuse(refusal);
  };
  // The common case is answered before Fastify (click-to-call.direct.ts, decision 0105); this route
  // answers the rest, and documents both.
  app.post(CLICK_TO_CALL_PATH, { schema, onRequest }, async (request, reply) => {
    const response = await clickToCall.trigger({
      requestId: request.id,
      apiKey: header(request.headers['api-key']),
      signature: header(request.headers.signature),
      signatureTimestamp: header(request.headers['signature-timestamp']),
      idempotencyKey: header(request.headers['idempotency-key']),
      rawBody: Buffer.isBuffer(request.body) ? request.body : undefined,
    });
    logCallId(request, response.body.callId);
    if (response.headers) reply.headers(response.headers);
    const send = () => reply.status(response.status).send(response.body);
    if (PACED_CODES.has(String(response.body.code))) {
      logQuietly(request, refusedSummary(response.body.code));
      refusals.pace(send);
    } else {
      send();
    }
    return reply;
  });
}
