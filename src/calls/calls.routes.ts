import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OutcomeStatus } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { ref, StringEnum, Timestamp } from '../lib/schema.js';
import { CALL_DIRECTIONS, CALL_SORTS, CALL_STATUSES, CallPage, CallView } from './calls.schemas.js';
import type { CallsService } from './calls.service.js';

/** What GET /v1/calls and its CSV export filter and sort by (docs/interface.md#calls). */
const callFilter = {
  agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(StringEnum(CALL_STATUSES)),
  outcome: Type.Optional(
    Type.String({ pattern: OutcomeStatus.pattern, description: 'The outcome status, e.g. SOLD (UPPER_SNAKE_CASE)' }),
  ),
  direction: Type.Optional(StringEnum(CALL_DIRECTIONS)),
  since: Type.Optional(Timestamp({ description: 'Calls created at or after this time (ISO 8601 with its offset)' })),
  until: Type.Optional(Timestamp({ description: 'Calls created before this time (ISO 8601 with its offset)' })),
  phone: Type.Optional(
    Type.String({
      pattern: '^\\+?[0-9]{1,15}$',
      maxLength: 16,
      description: 'The start of the number called or calling (`to` or `from`), e.g. +1555; `+` is assumed',
      examples: ['+1415'],
    }),
  ),
  campaignId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Only this campaign's calls (an unknown id: none)" }),
  ),
  sort: Type.Optional(
    StringEnum(CALL_SORTS, {
      default: '-createdAt',
      description: 'By creation time or duration, `-` for descending; calls with no duration yet come last',
    }),
  ),
};

const ListCallsQuery = Type.Object(
  {
    ...callFilter,
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);

const ExportCallsQuery = Type.Object(callFilter, { additionalProperties: false });

const tags = ['Calls'];
const security = SIGNED_IN;

export async function callsRoutes(
  app: FastifyInstance,
  { auth, calls }: { auth: AuthService; calls: CallsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get(
    '/v1/calls',
    {
      schema: {
        operationId: 'listCalls',
        summary: 'List calls',
        tags,
        security,
        querystring: ListCallsQuery,
        response: {
          200: ref(CallPage, { description: 'A page of calls (newest first by default), and how many match' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => calls.list(organizationOf(request), request.query),
  );

  // A static path: the router prefers it to `/v1/calls/:id`, whatever the order they are added in.
  r.get(
    '/v1/calls/export.csv',
    {
      schema: {
        operationId: 'exportCalls',
        summary: "Export the calls GET /v1/calls's filter keeps, as CSV",
        description:
          "The same filters and sort as GET /v1/calls, every matching call (no pages), streamed. Columns: id, createdAt, direction, agentId, from, to, status, outcome, endedReason, durationSeconds, summary, then `collected.<name>` per field the agent declares when `agentId` names one that declares some (else one `collectedData` column of JSON), then `variables` (JSON). Cells a spreadsheet would read as a formula start with `'`.",
        tags,
        security,
        querystring: ExportCallsQuery,
        response: {
          200: {
            description: 'The calls as CSV (RFC 4180, UTF-8, CRLF line ends), sent as an attachment',
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request, reply) => {
      const { filename, body } = await calls.exportCsv(organizationOf(request), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(body);
    },
  );

  r.get(
    '/v1/calls/:id',
    {
      schema: {
        operationId: 'getCall',
        summary: 'Get a call: transcript, tool invocations, deliveries',
        tags,
        security,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: {
          200: ref(CallView, { description: 'The call' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => calls.get(organizationOf(request), request.params.id),
  );
}
