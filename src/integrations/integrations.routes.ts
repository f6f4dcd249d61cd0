import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, ListQuery } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import { CreateIntegrationBody, UpdateIntegrationBody } from './integrations.schemas.js';
import type { IntegrationsService } from './integrations.service.js';

export async function integrationsRoutes(
  app: FastifyInstance,
  { auth, integrations }: { auth: AuthService; integrations: IntegrationsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));
  // Integrations show their signing secret: never cached on the way.
  r.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  r.post(
    '/v1/agents/:id/integrations',
    { schema: { params: IdParams, body: CreateIntegrationBody } },
    async (request, reply) =>
      reply.status(201).send(await integrations.create(organizationOf(request), request.params.id, request.body)),
  );

  r.get('/v1/agents/:id/integrations', { schema: { params: IdParams, querystring: ListQuery } }, async (request) =>
    integrations.list(organizationOf(request), request.params.id, request.query),
  );

  r.get('/v1/integrations/:id', { schema: { params: IdParams } }, async (request) =>
    integrations.get(organizationOf(request), request.params.id),
  );

  r.patch('/v1/integrations/:id', { schema: { params: IdParams, body: UpdateIntegrationBody } }, async (request) =>
    integrations.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete('/v1/integrations/:id', { schema: { params: IdParams } }, async (request, reply) => {
    await integrations.remove(organizationOf(request), request.params.id);
    return reply.status(204).send();
  });

  r.post('/v1/integrations/:id/test', { schema: { params: IdParams } }, async (request) =>
    integrations.sendTest(organizationOf(request), request.params.id),
  );

  r.post('/v1/integrations/:id/rotate-secret', { schema: { params: IdParams } }, async (request) =>
    integrations.rotateSecret(organizationOf(request), request.params.id),
  );
}
