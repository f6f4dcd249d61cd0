import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams } from '../agents/agents.schemas.js';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors, validationError } from '../errors.js';
import { formatCount } from '../lib/format-count.js';
import { NO_CONTENT, ref } from '../lib/schema.js';
import {
  CampaignListQuery,
  CampaignPage,
  CampaignView,
  ContactListQuery,
  ContactPage,
  CreateCampaignBody,
  ImportJsonBody,
  ImportQuery,
  ImportResult,
  MAX_CSV_BYTES,
  MAX_CSV_ROWS,
  MAX_JSON_CONTACTS,
  UpdateCampaignBody,
} from './campaigns.schemas.js';
import type { CampaignsService } from './campaigns.service.js';
import { CsvUpload, tooLarge } from './contacts-import.js';

const tags = ['Campaigns'];
const security = SIGNED_IN;

export interface CampaignsRoutesOptions {
  auth: AuthService;
  campaigns: CampaignsService;
}

/**
 * The campaign routes (docs/interface.md#campaigns), in the management API's scope: campaigns,
 * their state changes, their contacts (imported as JSON or a streamed CSV) and the results export.
 */
export async function campaignsRoutes(
  app: FastifyInstance,
  { auth, campaigns }: CampaignsRoutesOptions,
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));
  // A CSV upload is read as it arrives, never held whole (this plugin's scope only): the route
  // hands the stream to the import, which counts its bytes.
  r.addContentTypeParser('text/csv', (request, payload, done) => {
    const length = Number(request.headers['content-length']);
    if (length > MAX_CSV_BYTES) {
      payload.resume();
      return done(tooLarge(`more than ${MAX_CSV_BYTES / 1024 / 1024} MiB`));
    }
    done(null, new CsvUpload(payload as Readable));
  });

  r.post(
    '/v1/campaigns',
    {
      schema: {
        operationId: 'createCampaign',
        summary: 'Create a campaign (a draft): the agent, calling window, pace and retry policy',
        tags,
        security,
        body: CreateCampaignBody,
        response: {
          201: ref(CampaignView, { description: 'The campaign, a draft' }),
          ...apiErrors('unauthorized', 'forbidden', 'conflict', 'validation'),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await campaigns.create(organizationOf(request), request.body)),
  );

  r.get(
    '/v1/campaigns',
    {
      schema: {
        operationId: 'listCampaigns',
        summary: 'List campaigns, newest first',
        tags,
        security,
        querystring: CampaignListQuery,
        response: {
          200: ref(CampaignPage, { description: 'A page of campaigns with their contact counts' }),
          ...apiErrors('unauthorized', 'validation'),
        },
      },
    },
    async (request) => campaigns.list(organizationOf(request), request.query),
  );

  r.get(
    '/v1/campaigns/:id',
    {
      schema: {
        operationId: 'getCampaign',
        summary: 'Get a campaign with its contacts counted by state',
        tags,
        security,
        params: IdParams,
        response: {
          200: ref(CampaignView, { description: 'The campaign' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => campaigns.get(organizationOf(request), request.params.id),
  );

  r.patch(
    '/v1/campaigns/:id',
    {
      schema: {
        operationId: 'updateCampaign',
        summary: 'Change a campaign’s settings (the agent only while it is a draft)',
        tags,
        security,
        params: IdParams,
        body: UpdateCampaignBody,
        response: {
          200: ref(CampaignView, { description: 'The campaign' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => campaigns.update(organizationOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/campaigns/:id',
    {
      schema: {
        operationId: 'deleteCampaign',
        summary: 'Delete a draft, completed or cancelled campaign',
        tags,
        security,
        params: IdParams,
        response: { 204: NO_CONTENT, ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation') },
      },
    },
    async (request, reply) => {
      await campaigns.remove(organizationOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  const actions = [
    ['start', 'startCampaign', 'Start a draft campaign: its contacts are called within the window'],
    ['pause', 'pauseCampaign', 'Pause a running campaign: no new call starts; calls in progress finish'],
    ['resume', 'resumeCampaign', 'Resume a paused campaign'],
    ['cancel', 'cancelCampaign', 'Cancel a campaign: contacts still waiting are skipped; calls in progress finish'],
  ] as const;
  for (const [action, operationId, summary] of actions) {
    r.post(
      `/v1/campaigns/:id/${action}`,
      {
        schema: {
          operationId,
          summary,
          tags,
          security,
          params: IdParams,
          response: {
            200: ref(CampaignView, { description: 'The campaign in its new state' }),
            ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
          },
        },
      },
      async (request) => campaigns[action](organizationOf(request), request.params.id),
    );
  }

  r.post(
    '/v1/campaigns/:id/contacts',
    {
      bodyLimit: MAX_CSV_BYTES,
      schema: {
        operationId: 'addCampaignContacts',
        summary: 'Add contacts as JSON or a CSV upload; bad rows are reported and skipped',
        description: `JSON: a list \`[{phone, variables?, timezone?}]\` or \`{contacts: [...]}\`, at most ${formatCount(MAX_JSON_CONTACTS)}. CSV (\`text/csv\`, UTF-8 with or without BOM): a header row with a \`phone\` column (any case), optionally \`timezone\`; every other column is a variable named by its header. At most 32 MiB and ${formatCount(MAX_CSV_ROWS)} rows per upload. A number the campaign holds is merged (its variables updated while it is pending). \`?dryRun=true\` checks and previews without storing.`,
        tags,
        security,
        params: IdParams,
        querystring: ImportQuery,
        body: {
          content: {
            'application/json': { schema: ImportJsonBody },
            // No type: the body reaches the handler as the upload's stream (CsvUpload), read as it arrives.
            'text/csv': { schema: { description: 'The CSV file: UTF-8 text, a header row naming the columns' } },
          },
        },
        response: {
          200: ref(ImportResult, { description: 'What was read, added and merged, and each row refused' }),
          ...apiErrors('unauthorized', 'forbidden', 'not_found', 'conflict', 'validation'),
        },
      },
    },
    async (request) => {
      const organizationId = organizationOf(request);
      const dryRun = request.query.dryRun === true;
      const body = request.body as unknown;
      if (body instanceof CsvUpload) return campaigns.importCsv(organizationId, request.params.id, body.stream, dryRun);
      if (body === undefined || body === null) {
        throw validationError([{ path: '$', message: 'Send the contacts as JSON or a text/csv file' }]);
      }
      return campaigns.importJson(organizationId, request.params.id, body as never, dryRun);
    },
  );

  r.get(
    '/v1/campaigns/:id/contacts',
    {
      schema: {
        operationId: 'listCampaignContacts',
        summary: "List a campaign's contacts, in the order added, with their attempts",
        tags,
        security,
        params: IdParams,
        querystring: ContactListQuery,
        response: {
          200: ref(ContactPage, { description: 'A page of contacts' }),
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request) => campaigns.listContacts(organizationOf(request), request.params.id, request.query),
  );

  r.get(
    '/v1/campaigns/:id/results.csv',
    {
      schema: {
        operationId: 'exportCampaignResults',
        summary: "Export a campaign's contacts with their results, as CSV",
        description:
          "Every contact (no pages), streamed. Columns: contact_id, phone, state, attempts, last_outcome, last_call_id, reason, variables (JSON). Cells a spreadsheet would read as a formula start with `'`.",
        tags,
        security,
        params: IdParams,
        response: {
          200: {
            description: 'The results as CSV (RFC 4180, UTF-8, CRLF line ends), sent as an attachment',
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...apiErrors('unauthorized', 'not_found', 'validation'),
        },
      },
    },
    async (request, reply) => {
      const { filename, body } = await campaigns.resultsCsv(organizationOf(request), request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(body);
    },
  );
}
