import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, ListQuery } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  CreateProviderCredentialBody,
  ProviderCredentialPage,
  ProviderCredentialView,
  UpdateProviderCredentialBody,
} from './provider-credentials.schemas.js';
import type { ProviderCredentialsService } from './provider-credentials.service.js';

const tags = ['Provider credentials'];
const security = SIGNED_IN;

export async function providerCredentialsRoutes(
  app: FastifyInstance,
  { auth, credentials }: { auth: AuthService; credentials: ProviderCredentialsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post(
    '/v1/provider-credentials',
    {
      schema: {
        operationId: 'createProviderCredential',
        summary: 'Add a Vapi or Retell credential',
        tags,
        security,
        body: CreateProviderCredentialBody,
        response: {
          201: ref(ProviderCredentialView, { description: 'The credential, secrets masked' }),
          ...apiErrors('unauthorized', 'forbidden', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await credentials.create(organizationOf(request), request.body)),
  );

  r.get(
    '/v1/provider-credentials',
    {
      schema: {
        operationId: 'listProviderCredentials',
        summary: 'List provider credentials',
        tags,
        security,
        querystring: ListQuery,
        response: {
          200: ref(ProviderCredentialPage, { description: 'A page of credentials, newest first' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => credentials.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/provider-credentials/:id',
    {
      schema: {
        operationId: 'getProviderCredential',
        summary: 'Get a provider credential',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(ProviderCredentialView, { description: 'The credential, secrets masked' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => credentials.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/provider-credentials/:id',
    {
      schema: {
        operationId: 'updateProviderCredential',
        summary: 'Change a provider credential',
        tags,
        security,
        params: IdParams,
        body: UpdateProviderCredentialBody,
        response: {
          200: ref(ProviderCredentialView, { description: 'The credential as changed' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => credentials.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/provider-credentials/:id',
    {
      schema: {
        operationId: 'deleteProviderCredential',
        summary: 'Delete a provider credential (refused while an agent uses it)',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation') },
      },
    },
    async (request, reply) => {
      await credentials.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );
}
