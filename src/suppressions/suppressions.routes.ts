import type { Readable } from 'node:stream';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors, schemaProblemsOf, validationError } from '../errors.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  CreateSuppressionBody,
  type CreateSuppressionInput,
  SuppressionCsvBody,
  SuppressionImport,
  SuppressionListQuery,
  SuppressionPage,
  SuppressionView,
} from './suppressions.schemas.js';
import type { SuppressionsService } from './suppressions.service.js';

const tags = ['Do-not-call list'];
const security = SIGNED_IN;

/**
 * A `text/csv` body as the handler receives it: the request's stream, unread. Its one field is
 * private, so the management API's check of every body's strings (src/lib/json-guard.ts) sees an
 * empty object, and the file is judged row by row as it is read.
 */
class CsvUpload {
  readonly #stream: Readable;
  constructor(stream: Readable) {
    this.#stream = stream;
  }
  get stream(): Readable {
    return this.#stream;
  }
}

const wrongType = () =>
  validationError([{ path: '$', message: 'Send JSON as application/json, or a CSV file as text/csv' }]);

/** The charsets a `text/csv` upload may name: it is read as UTF-8 (ASCII is UTF-8). */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** The do-not-call routes (docs/interface.md#do-not-call-list), in the management API's scope. */
export async function suppressionsRoutes(
  app: FastifyInstance,
  { auth, suppressions }: { auth: AuthService; suppressions: SuppressionsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));
  // In this plugin's scope only: the campaigns' contacts take CSV their own way.
  r.addContentTypeParser('text/csv', (_request, payload, done) => done(null, new CsvUpload(payload)));
  // Any other type is refused saying both that are taken (the default would name JSON only);
  // Fastify's own text/plain parser goes, or a text body would reach the handler unchecked.
  r.removeContentTypeParser('text/plain');
  r.addContentTypeParser('*', (_request, _payload, done) => done(wrongType()));

  r.post(
    '/v1/suppressions',
    {
      schema: {
        operationId: 'addSuppressions',
        summary: 'Add a number to the do-not-call list, or upload a CSV of numbers',
        description:
          'JSON `{phone, reason?}`: 201 with the number listed, or 200 with it as it was when it is listed already (its reason is kept). `text/csv`: a header with a `phone` column (any case) and optionally `reason`; every valid row is listed, every invalid one reported by line and skipped; 200 with what was done. A file without a `phone` column, over 32 MiB, or a list that is full is refused whole (422).',
        tags,
        security,
        body: {
          content: {
            'application/json': { schema: CreateSuppressionBody },
            'text/csv': { schema: SuppressionCsvBody },
          },
        } as unknown as typeof CreateSuppressionBody,
        response: {
          201: ref(SuppressionView, { description: 'The number, listed now' }),
          200: Type.Union([ref(SuppressionView), ref(SuppressionImport)], {
            description:
              'JSON: the number, listed already (left as it was). CSV: rows read, numbers added, numbers listed already, and the rows refused by line',
          }),
          ...apiErrors('unauthorized', 'forbidden', 'validation'),
        },
      },
      // The schema's problems are answered with the number's own, in one 422 (issue 18).
      attachValidation: true,
    },
    async (request, reply) => {
      const organizationId = organizationOf(request);
      const body = request.body as unknown;
      if (body instanceof CsvUpload) {
        const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
        if (charset && !UTF8_CHARSETS.has(charset.toLowerCase()))
          throw validationError([{ path: '$', message: `Send the file as UTF-8 (charset=utf-8), not ${charset}` }]);
        const length = request.headers['content-length'];
        const result = await suppressions.importCsv(
          organizationId,
          body.stream,
          length === undefined ? undefined : Number(length),
        );
        // Stopped before the end of the file: the rest is not read, so the connection ends with the answer.
        if (!request.raw.complete) reply.header('connection', 'close');
        return reply.status(200).send(result);
      }
      // Only JSON is validated by the schema: anything else that got this far (no body at all) is refused here.
      if (request.mediaType !== 'application/json') throw wrongType();
      const { created, suppression } = await suppressions.add(
        organizationId,
        body as CreateSuppressionInput,
        schemaProblemsOf(request),
      );
      return reply.status(created ? 201 : 200).send(suppression);
    },
  );

  r.get(
    '/v1/suppressions',
    {
      schema: {
        operationId: 'listSuppressions',
        summary: 'List the do-not-call list',
        tags,
        security,
        querystring: SuppressionListQuery,
        response: {
          200: ref(SuppressionPage, { description: 'A page of listed numbers, newest first, and how many match' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => suppressions.list(organizationOf(request), request.query),
  );

  r.delete(
    '/v1/suppressions/:id',
    {
      schema: {
        operationId: 'deleteSuppression',
        summary: 'Remove a number from the do-not-call list',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'validation') },
      },
    },
    async (request, reply) => {
      await suppressions.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );
}
