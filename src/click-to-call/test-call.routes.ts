import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import { logCallId } from '../calls/log-call-id.js';
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

  r.post('/v1/agents/:id/test-call', { schema: { params: IdParams, body: TestCallBody } }, async (request, reply) => {
    const response = await clickToCall.testCall(organizationOf(request), request.params.id, request.body, request.id);
    logCallId(request, reply, response.body.callId);
    if (response.headers) reply.headers(response.headers);
    return reply.status(response.status).send(response.body);
  });
}
