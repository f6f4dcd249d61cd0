import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import { CreateAgentBody, IdParams, ListQuery, UpdateAgentBody } from './agents.schemas.js';
import type { AgentsService } from './agents.service.js';

export async function agentsRoutes(
  app: FastifyInstance,
  { auth, agents }: { auth: AuthService; agents: AgentsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post('/v1/agents', { schema: { body: CreateAgentBody } }, async (request, reply) =>
    reply.status(201).send(await agents.create(organizationOf(request), request.body)),
  );

  r.get('/v1/agents', { schema: { querystring: ListQuery } }, async (request) =>
    agents.list(organizationOf(request), request.query),
  );

  r.get('/v1/agents/:id', { schema: { params: IdParams } }, async (request) =>
    agents.get(organizationOf(request), request.params.id),
  );

  r.patch('/v1/agents/:id', { schema: { params: IdParams, body: UpdateAgentBody } }, async (request) =>
    agents.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete('/v1/agents/:id', { schema: { params: IdParams } }, async (request, reply) => {
    await agents.remove(organizationOf(request), request.params.id);
    return reply.status(204).send();
  });

  r.get('/v1/agents/:id/credentials', { schema: { params: IdParams } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return agents.credentials(organizationOf(request), request.params.id);
  });

  r.post('/v1/agents/:id/credentials/rotate', { schema: { params: IdParams } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return agents.rotateCredentials(organizationOf(request), request.params.id);
  });
}
