import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, ListQuery } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import { CreateProviderCredentialBody, UpdateProviderCredentialBody } from './provider-credentials.schemas.js';
import type { ProviderCredentialsService } from './provider-credentials.service.js';

export async function providerCredentialsRoutes(
  app: FastifyInstance,
  { auth, credentials }: { auth: AuthService; credentials: ProviderCredentialsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post('/v1/provider-credentials', { schema: { body: CreateProviderCredentialBody } }, async (request, reply) =>
    reply.status(201).send(await credentials.create(organizationOf(request), request.body)),
  );

  r.get('/v1/provider-credentials', { schema: { querystring: ListQuery } }, async (request) =>
    credentials.list(organizationOf(request), request.query),
  );

  r.get('/v1/provider-credentials/:id', { schema: { params: IdParams } }, async (request) =>
    credentials.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/provider-credentials/:id',
    { schema: { params: IdParams, body: UpdateProviderCredentialBody } },
    async (request) => credentials.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete('/v1/provider-credentials/:id', { schema: { params: IdParams } }, async (request, reply) => {
    await credentials.remove(organizationOf(request), request.params.id);
    return reply.status(204).send();
  });
}
