import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { ref } from '../lib/schema.js';
import { ImportProviderToolsBody, ProviderToolImport, ProviderToolList } from './provider-tools.schemas.js';
import type { ProviderToolsService } from './provider-tools.service.js';

const tags = ['Tools'];
const security = SIGNED_IN;

export async function providerToolsRoutes(
  app: FastifyInstance,
  { auth, providerTools }: { auth: AuthService; providerTools: ProviderToolsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get(
    '/v1/agents/:id/provider-tools',
    {
      schema: {
        operationId: 'listProviderTools',
        summary: "The tools defined at the agent's provider",
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(ProviderToolList, { description: 'Every tool the provider has for the agent' }),
          ...apiErrors('unauthorized', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => providerTools.list(organizationOf(request), request.params.id),
  );

  r.post(
    '/v1/agents/:id/provider-tools/import',
    {
      schema: {
        operationId: 'importProviderTools',
        summary: 'Import provider tools as organization tools',
        tags,
        security,
        params: IdParams,
        body: ImportProviderToolsBody,
        response: {
          200: ref(ProviderToolImport, { description: 'What was imported, and what was skipped and why' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => providerTools.import(organizationOf(request), request.params.id, request.body.providerToolIds),
  );
}
