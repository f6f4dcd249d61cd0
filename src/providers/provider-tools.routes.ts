import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import type { ProviderToolsService } from './provider-tools.service.js';

const ImportBody = Type.Object(
  { providerToolIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);

export async function providerToolsRoutes(
  app: FastifyInstance,
  { auth, providerTools }: { auth: AuthService; providerTools: ProviderToolsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get('/v1/agents/:id/provider-tools', { schema: { params: IdParams } }, async (request) =>
    providerTools.list(organizationOf(request), request.params.id),
  );

  r.post('/v1/agents/:id/provider-tools/import', { schema: { params: IdParams, body: ImportBody } }, async (request) =>
    providerTools.import(organizationOf(request), request.params.id, request.body.providerToolIds),
  );
}
