import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, ListQuery } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  CreateIntegrationBody,
  IntegrationPage,
  IntegrationTestResult,
  IntegrationView,
  UpdateIntegrationBody,
} from './integrations.schemas.js';
import type { IntegrationsService } from './integrations.service.js';

const tags = ['Integrations'];
const security = SIGNED_IN;

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
    {
      schema: {
        operationId: 'createIntegration',
        summary: 'Add a call-outcome webhook to an agent',
        tags,
        security,
        params: IdParams,
        body: CreateIntegrationBody,
        response: {
          201: ref(IntegrationView, { description: 'The integration, with its signing secret' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation'),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await integrations.create(organizationOf(request), request.params.id, request.body)),
  );

  r.get(
    '/v1/agents/:id/integrations',
    {
      schema: {
        operationId: 'listIntegrations',
        summary: "List an agent's integrations",
        tags,
        security,
        params: IdParams,
        querystring: ListQuery,
        response: {
          200: ref(IntegrationPage, { description: 'A page of integrations, newest first; secrets masked' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => integrations.list(organizationOf(request), request.params.id, request.query),
  );

  r.get(
    '/v1/integrations/:id',
    {
      schema: {
        operationId: 'getIntegration',
        summary: 'Get an integration',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(IntegrationView, { description: 'The integration, with its signing secret' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => integrations.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/integrations/:id',
    {
      schema: {
        operationId: 'updateIntegration',
        summary: 'Change an integration',
        tags,
        security,
        params: IdParams,
        body: UpdateIntegrationBody,
        response: {
          200: ref(IntegrationView, { description: 'The integration as changed' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => integrations.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/integrations/:id',
    {
      schema: {
        operationId: 'deleteIntegration',
        summary: 'Delete an integration',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation') },
      },
    },
    async (request, reply) => {
      await integrations.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  r.post(
    '/v1/integrations/:id/test',
    {
      schema: {
        operationId: 'sendIntegrationTest',
        summary: 'Send a test delivery now',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(IntegrationTestResult, { description: 'The request sent and what came back' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation'),
        },
      },
    },
    async (request) => integrations.sendTest(organizationOf(request), request.params.id),
  );

  r.post(
    '/v1/integrations/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateIntegrationSecret',
        summary: 'Rotate the signing secret (the old one keeps signing for 24 h)',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(IntegrationView, { description: 'The integration with its new signing secret' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation'),
        },
      },
    },
    async (request) => integrations.rotateSecret(organizationOf(request), request.params.id),
  );
}
