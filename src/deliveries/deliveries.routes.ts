import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { ref, StringEnum } from '../lib/schema.js';
import { DELIVERY_STATES, DeliveryPage, DeliveryView } from './deliveries.schemas.js';
import type { DeliveriesService } from './deliveries.service.js';

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

const tags = ['Deliveries'];
const security = SIGNED_IN;

export async function deliveriesRoutes(
  app: FastifyInstance,
  { auth, deliveries }: { auth: AuthService; deliveries: DeliveriesService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get(
    '/v1/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        summary: 'List webhook deliveries and their attempts',
        tags,
        security,
        querystring: ListDeliveriesQuery,
        response: {
          200: ref(DeliveryPage, { description: 'A page of deliveries, newest first' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => deliveries.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/deliveries/:id',
    {
      schema: {
        operationId: 'getDelivery',
        summary: 'Get a delivery',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(DeliveryView, { description: 'The delivery and its attempts' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => deliveries.get(organizationOf(request), request.params.id),
  );

  // 202: the attempt is made by a worker right away; the delivery's log shows it.
  r.post(
    '/v1/deliveries/:id/retry',
    {
      schema: {
        operationId: 'retryDelivery',
        summary: 'Retry a delivery now',
        tags,
        security,
        params: IdParams,
        response: {
          202: ref(DeliveryView, { description: 'The delivery, due now' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await deliveries.retry(organizationOf(request), request.params.id)),
  );
}
