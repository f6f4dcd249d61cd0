import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, ListQuery } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal } from '../auth/authenticate.js';
import {
  CreateToolBody,
  type CreateToolInput,
  TestToolBody,
  UpdateToolBody,
  type UpdateToolInput,
} from './tools.schemas.js';
import type { ToolsService } from './tools.service.js';

export async function toolsRoutes(
  app: FastifyInstance,
  { auth, tools }: { auth: AuthService; tools: ToolsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post('/v1/tools', { schema: { body: CreateToolBody } }, async (request, reply) =>
    reply.status(201).send(await tools.create(organizationOf(request), request.body as CreateToolInput)),
  );

  // The editor's live view of `aiSchema`: the create body, checked as create checks it, written nowhere.
  r.post('/v1/tools/preview', { schema: { body: CreateToolBody } }, async (request) =>
    tools.preview(request.body as CreateToolInput),
  );

  r.get('/v1/tools', { schema: { querystring: ListQuery } }, async (request) =>
    tools.list(organizationOf(request), request.query),
  );

  r.get('/v1/tools/:id', { schema: { params: IdParams } }, async (request) =>
    tools.get(organizationOf(request), request.params.id),
  );

  r.patch('/v1/tools/:id', { schema: { params: IdParams, body: UpdateToolBody } }, async (request) =>
    tools.update(organizationOf(request), request.params.id, request.body as UpdateToolInput),
  );

  r.delete('/v1/tools/:id', { schema: { params: IdParams } }, async (request, reply) => {
    await tools.remove(organizationOf(request), request.params.id);
    return reply.status(204).send();
  });

  r.post(
    '/v1/tools/:id/test',
    {
      schema: { params: IdParams, body: TestToolBody },
      // Every field is optional: a test with no body at all runs the tool with no arguments.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => tools.test(organizationOf(request), request.params.id, request.body),
  );
}
