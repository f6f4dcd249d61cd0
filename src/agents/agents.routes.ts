import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors, schemaProblemsOf } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  AgentCredentials,
  AgentPage,
  AgentView,
  CreateAgentBody,
  IdParams,
  ListQuery,
  UpdateAgentBody,
} from './agents.schemas.js';
import type { AgentsService } from './agents.service.js';

const tags = ['Agents'];
const security = SIGNED_IN;

export async function agentsRoutes(
  app: FastifyInstance,
  { auth, agents }: { auth: AuthService; agents: AgentsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post(
    '/v1/agents',
    {
      schema: {
        operationId: 'createAgent',
        summary: 'Create an agent',
        tags,
        security,
        body: CreateAgentBody,
        response: {
          201: ref(AgentView, { description: 'The agent' }),
          ...apiErrors('unauthorized', 'forbidden', 'conflict', 'validation'),
        },
      },
      // The schema's problems are answered with the agent's own rules, in one 422 (issue 18).
      attachValidation: true,
    },
    async (request, reply) =>
      reply.status(201).send(await agents.create(organizationOf(request), request.body, schemaProblemsOf(request))),
  );

  r.get(
    '/v1/agents',
    {
      schema: {
        operationId: 'listAgents',
        summary: 'List agents',
        tags,
        security,
        querystring: ListQuery,
        response: {
          200: ref(AgentPage, { description: 'A page of agents, newest first' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => agents.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/agents/:id',
    {
      schema: {
        operationId: 'getAgent',
        summary: 'Get an agent',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(AgentView, { description: 'The agent' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => agents.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/agents/:id',
    {
      schema: {
        operationId: 'updateAgent',
        summary: 'Change an agent',
        tags,
        security,
        params: IdParams,
        body: UpdateAgentBody,
        response: {
          200: ref(AgentView, { description: 'The agent as changed' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
      attachValidation: true,
    },
    async (request) =>
      agents.update(organizationOf(request), request.params.id, request.body, schemaProblemsOf(request)),
  );

  r.delete(
    '/v1/agents/:id',
    {
      schema: {
        operationId: 'deleteAgent',
        summary: 'Delete an agent',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation') },
      },
    },
    async (request, reply) => {
      await agents.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  r.get(
    '/v1/agents/:id/credentials',
    {
      schema: {
        operationId: 'getAgentCredentials',
        summary: "A click-to-call agent's API token, secret and examples (409 for other types)",
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(AgentCredentials, { description: 'The credentials, instructions and examples' }),
          ...apiErrors('unauthorized', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return agents.credentials(organizationOf(request), request.params.id);
    },
  );

  r.post(
    '/v1/agents/:id/credentials/rotate',
    {
      schema: {
        operationId: 'rotateAgentCredentials',
        summary: "Replace a click-to-call agent's API token and secret",
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(AgentCredentials, { description: 'The new credentials; the old pair stops working at once' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return agents.rotateCredentials(organizationOf(request), request.params.id);
    },
  );
}
