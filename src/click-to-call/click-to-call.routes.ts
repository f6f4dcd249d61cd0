import type { FastifyError, FastifyInstance } from 'fastify';
import type { ClickToCallService } from './click-to-call.service.js';
import { ctcError } from './ctc-errors.js';
import { MAX_BODY_BYTES } from './request-body.js';

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `POST /api/click-to-call`. Its own scope: the body is kept as the exact bytes received (the
 * signature covers them), whatever the content type, and every error answers in the ctc format.
 */
export async function clickToCallRoutes(app: FastifyInstance, { clickToCall }: { clickToCall: ClickToCallService }) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => {
    done(null, body);
  });

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

  app.post('/api/click-to-call', async (request, reply) => {
    const response = await clickToCall.trigger({
      requestId: request.id,
      apiKey: header(request.headers['api-key']),
      signature: header(request.headers.signature),
      idempotencyKey: header(request.headers['idempotency-key']),
      rawBody: Buffer.isBuffer(request.body) ? request.body : undefined,
    });
    if (response.headers) reply.headers(response.headers);
    return reply.status(response.status).send(response.body);
  });
}
