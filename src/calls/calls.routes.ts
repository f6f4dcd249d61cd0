import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import { StringEnum } from '../lib/schema.js';
import { CALL_STATUSES, type CallsService } from './calls.service.js';

const ListCallsQuery = Type.Object(
  {
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(StringEnum(CALL_STATUSES)),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

export async function callsRoutes(
  app: FastifyInstance,
  { auth, calls }: { auth: AuthService; calls: CallsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get('/v1/calls', { schema: { querystring: ListCallsQuery } }, async (request) =>
    calls.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/calls/:id',
    { schema: { params: Type.Object({ id: Type.String({ maxLength: 100 }) }) } },
    async (request) => calls.get(organizationOf(request), request.params.id),
  );
}
