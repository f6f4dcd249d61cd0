import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { ref, StringEnum } from '../lib/schema.js';
import { CALL_STATUSES, CallPage, CallView } from './calls.schemas.js';
import type { CallsService } from './calls.service.js';

const ListCallsQuery = Type.Object(
  {
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(StringEnum(CALL_STATUSES)),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

const tags = ['Calls'];
const security = SIGNED_IN;

export async function callsRoutes(
  app: FastifyInstance,
  { auth, calls }: { auth: AuthService; calls: CallsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get(
    '/v1/calls',
    {
      schema: {
        operationId: 'listCalls',
        summary: 'List calls',
        tags,
        security,
        querystring: ListCallsQuery,
        response: {
          200: ref(CallPage, { description: 'A page of calls, newest first' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => calls.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/calls/:id',
    {
      schema: {
        operationId: 'getCall',
        summary: 'Get a call: transcript, tool invocations, deliveries',
        tags,
        security,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: {
          200: ref(CallView, { description: 'The call' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => calls.get(organizationOf(request), request.params.id),
  );
}
