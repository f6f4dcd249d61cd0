import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { logCallId } from '../calls/log-call-id.js';
import { ApiErrorBody, apiErrors } from '../errors.js';
import { ref } from '../lib/schema.js';
import { ClickToCallResponses } from './click-to-call.schemas.js';
import type { ClickToCallService } from './click-to-call.service.js';

// Shapes only: the phone number and variables are judged by click-to-call itself (ctc:009, by field).
const TestCallBody = Type.Object(
  {
    phone: Type.String({ maxLength: 64, description: 'E.164, e.g. +14155550123' }),
    variables: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);

/**
 * `POST /v1/agents/:id/test-call` (added, decision 0022): a click-to-call placed from the dashboard
 * with the session, answered exactly as `POST /api/click-to-call` answers (status and ctc body).
 */
export async function testCallRoutes(
  app: FastifyInstance,
  { auth, clickToCall }: { auth: AuthService; clickToCall: ClickToCallService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  const { 200: success, 400: refused, 429: limited, 500: failed } = ClickToCallResponses;
  r.post(
    '/v1/agents/:id/test-call',
    {
      schema: {
        operationId: 'placeTestCall',
        summary: 'Place a test call (answered as POST /api/click-to-call answers)',
        tags: ['Agents'],
        security: SIGNED_IN,
        params: IdParams,
        body: TestCallBody,
        // Authenticated as the management API is (401, 404, 409 for an agent that is not click to
        // call, 422), then answered exactly as click to call answers.
        response: {
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
          200: success,
          400: refused,
          429: limited,
          500: Type.Union([failed, ref(ApiErrorBody)], {
            description: 'ctc:002 or ctc:008 as click to call answers them, or api:internal',
          }),
        },
      },
      // Sent as built, as click to call sends its answers (its schemas describe, decision 0026).
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request, reply) => {
      const response = await clickToCall.testCall(organizationOf(request), request.params.id, request.body, request.id);
      logCallId(request, reply, response.body.callId);
      if (response.headers) reply.headers(response.headers);
      // The service builds click to call's answers, whose status and body vary together; the
      // schemas above describe them, and test/openapi.test.ts checks real answers against them.
      return (reply as FastifyReply).status(response.status).send(response.body);
    },
  );
}
