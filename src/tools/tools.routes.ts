import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, ListQuery } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors, schemaProblemsOf } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  CreateToolBody,
  type CreateToolInput,
  TestToolBody,
  ToolPage,
  ToolPreview,
  ToolTestResult,
  ToolView,
  UpdateToolBody,
  type UpdateToolInput,
} from './tools.schemas.js';
import type { ToolsService } from './tools.service.js';

const tags = ['Tools'];
const security = SIGNED_IN;

export async function toolsRoutes(
  app: FastifyInstance,
  { auth, tools }: { auth: AuthService; tools: ToolsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.post(
    '/v1/tools',
    {
      schema: {
        operationId: 'createTool',
        summary: 'Create a tool',
        tags,
        security,
        body: CreateToolBody,
        response: {
          201: ref(ToolView, { description: 'The tool, with its read-only aiSchema' }),
          ...apiErrors('unauthorized', 'forbidden', 'conflict', 'validation'),
        },
      },
      // The schema's problems are answered with the tool's own rules, in one 422 (issue 18).
      attachValidation: true,
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await tools.create(organizationOf(request), request.body as CreateToolInput, schemaProblemsOf(request))),
  );

  // The editor's live view of `aiSchema`: the create body, checked as create checks it, written nowhere.
  r.post(
    '/v1/tools/preview',
    {
      schema: {
        operationId: 'previewTool',
        summary: 'Check a tool and show its aiSchema without saving it',
        tags,
        security,
        body: CreateToolBody,
        response: {
          200: ref(ToolPreview, { description: 'The aiSchema the tool would have' }),
          ...apiErrors('unauthorized', 'forbidden', 'validation'),
        },
      },
      attachValidation: true,
    },
    async (request) => tools.preview(request.body as CreateToolInput, schemaProblemsOf(request)),
  );

  r.get(
    '/v1/tools',
    {
      schema: {
        operationId: 'listTools',
        summary: 'List tools',
        tags,
        security,
        querystring: ListQuery,
        response: {
          200: ref(ToolPage, { description: 'A page of tools, newest first' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => tools.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/tools/:id',
    {
      schema: {
        operationId: 'getTool',
        summary: 'Get a tool',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(ToolView, { description: 'The tool' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => tools.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/tools/:id',
    {
      schema: {
        operationId: 'updateTool',
        summary: 'Change a tool',
        tags,
        security,
        params: IdParams,
        body: UpdateToolBody,
        response: {
          200: ref(ToolView, { description: 'The tool as changed' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
      attachValidation: true,
    },
    async (request) =>
      tools.update(
        organizationOf(request),
        request.params.id,
        request.body as UpdateToolInput,
        schemaProblemsOf(request),
      ),
  );

  r.delete(
    '/v1/tools/:id',
    {
      schema: {
        operationId: 'deleteTool',
        summary: 'Delete a tool (detaches it from every agent)',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation') },
      },
    },
    async (request, reply) => {
      await tools.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  r.post(
    '/v1/tools/:id/test',
    {
      schema: {
        operationId: 'testTool',
        summary: 'Run a tool once and show the exact request and response',
        tags,
        security,
        params: IdParams,
        body: TestToolBody,
        response: {
          200: ref(ToolTestResult, { description: 'What was sent and what came back' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation'),
        },
      },
      // Every field is optional: a test with no body at all runs the tool with no arguments.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => tools.test(organizationOf(request), request.params.id, request.body),
  );
}
