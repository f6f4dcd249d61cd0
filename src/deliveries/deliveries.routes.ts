import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import { StringEnum } from '../lib/schema.js';
import { DELIVERY_STATES, type DeliveriesService } from './deliveries.service.js';

const ListDeliveriesQuery = Type.Object(
  {
    integrationId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    callId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    state: Type.Optional(StringEnum(DELIVERY_STATES)),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

export async function deliveriesRoutes(
  app: FastifyInstance,
  { auth, deliveries }: { auth: AuthService; deliveries: DeliveriesService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get('/v1/deliveries', { schema: { querystring: ListDeliveriesQuery } }, async (request) =>
    deliveries.list(organizationOf(request), request.query),
  );

  r.get('/v1/deliveries/:id', { schema: { params: IdParams } }, async (request) =>
    deliveries.get(organizationOf(request), request.params.id),
  );

  // 202: the attempt is made by a worker right away; the delivery's log shows it.
  r.post('/v1/deliveries/:id/retry', { schema: { params: IdParams } }, async (request, reply) =>
    reply.status(202).send(await deliveries.retry(organizationOf(request), request.params.id)),
  );
}
