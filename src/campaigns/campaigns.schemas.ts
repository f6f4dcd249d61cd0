import { type Static, Type } from '@sinclair/typebox';
import { OutcomeStatus } from '../agents/agents.schemas.js';
import { CountedPageOf, Name, Nullable, ref, StringEnum, Timestamp } from '../lib/schema.js';

/** A campaign's states (decision 0048): draft → running ⇄ paused → completed | cancelled. */
export const CAMPAIGN_STATES = ['draft', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];
/** A contact's states: pending → calling → retrying … → done | skipped | failed. */
export const CONTACT_STATES = ['pending', 'calling', 'retrying', 'done', 'skipped', 'failed'] as const;
export type ContactState = (typeof CONTACT_STATES)[number];
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** How many contacts one campaign holds, across every upload. */
export const MAX_CONTACTS_PER_CAMPAIGN = 1_000_000;
/** Campaigns an organization may have at once (deleted ones not counted): 409 beyond. */
export const MAX_CAMPAIGNS_PER_ORGANIZATION = 1000;
/** Rows of one CSV upload, and its bytes. */
export const MAX_CSV_ROWS = 200_000;
export const MAX_CSV_BYTES = 32 * 1024 * 1024;
/** Contacts of one JSON request. */
export const MAX_JSON_CONTACTS = 10_000;
/** Row errors an import answer lists; the rest are counted in `errorsOmitted`. */
export const MAX_IMPORT_ERRORS = 1000;

export const DEFAULT_WINDOW = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '18:00' };
export const DEFAULT_RETRY = { noAnswer: 2, busy: 2, voicemail: 0, failed: 0, delayMinutes: 60 };

const Window = Type.Object(
  {
    days: Type.Array(StringEnum(DAYS), {
      minItems: 1,
      maxItems: 7,
      description: 'The days calls may be placed on, each once',
    }),
    start: Type.String({
      maxLength: 5,
      description: 'Local time HH:MM (00:00–23:59) the window opens at',
      examples: ['09:00'],
    }),
    end: Type.String({ maxLength: 5, description: 'Local time HH:MM it closes at, after start', examples: ['18:00'] }),
  },
  {
    additionalProperties: false,
    description:
      "When calls may be placed, in the contact's time zone (else the campaign's); start inclusive, end exclusive",
  },
);

const Attempts = (description: string) => Type.Integer({ minimum: 0, maximum: 10, description });
const Retry = Type.Object(
  {
    noAnswer: Attempts('More attempts after a call nobody answered'),
    busy: Attempts('More attempts after a busy line'),
    voicemail: Attempts('More attempts after reaching voicemail'),
    failed: Attempts('More attempts after a call that failed'),
    delayMinutes: Type.Integer({
      minimum: 1,
      maximum: 10080,
      description: 'Minutes after a call ended before the next attempt',
    }),
  },
  { additionalProperties: false },
);
const DoNotCallOutcomes = Type.Array(OutcomeStatus, {
  maxItems: 20,
  uniqueItems: true,
  description: "Outcomes that put the called number on the organization's do-not-call list",
});

const settings = {
  name: Name(200),
  timezone: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'IANA time zone of the window for contacts without their own; default UTC',
    examples: ['America/New_York'],
  }),
  window: Window,
  concurrency: Type.Integer({ minimum: 1, maximum: 1000, description: 'Calls in progress at once at most; default 1' }),
  callsPerMinute: Type.Integer({
    minimum: 1,
    maximum: 6000,
    description: 'Calls started per minute at most; default 10',
  }),
  retry: Retry,
  doNotCallOutcomes: DoNotCallOutcomes,
  startAt: Nullable(Timestamp(), { description: 'No call before this instant; null: as soon as started' }),
};

export const CreateCampaignBody = Type.Object(
  {
    name: settings.name,
    agentId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An outbound or click-to-call agent of the organization',
    }),
    timezone: Type.Optional(settings.timezone),
    window: Type.Optional(settings.window),
    concurrency: Type.Optional(settings.concurrency),
    callsPerMinute: Type.Optional(settings.callsPerMinute),
    retry: Type.Optional(settings.retry),
    doNotCallOutcomes: Type.Optional(settings.doNotCallOutcomes),
    startAt: Type.Optional(settings.startAt),
  },
  { additionalProperties: false },
);
export type CreateCampaignInput = Static<typeof CreateCampaignBody>;

export const UpdateCampaignBody = Type.Partial(CreateCampaignBody, { additionalProperties: false });
export type UpdateCampaignInput = Static<typeof UpdateCampaignBody>;

const Count = Type.Integer({ minimum: 0 });
export const CampaignView = Type.Object(
  {
    id: Type.String({ examples: ['cmp_01JD8Y6Q4S'] }),
    name: Type.String(),
    agentId: Type.String(),
    timezone: Type.String(),
    window: Window,
    concurrency: Type.Integer(),
    callsPerMinute: Type.Integer(),
    retry: Retry,
    doNotCallOutcomes: Type.Array(Type.String()),
    startAt: Nullable(Timestamp()),
    state: StringEnum(CAMPAIGN_STATES),
    counts: Type.Object(
      {
        total: Count,
        pending: Count,
        calling: Count,
        retrying: Count,
        done: Count,
        skipped: Count,
        failed: Count,
      },
      { description: 'Contacts in each state' },
    ),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    startedAt: Nullable(Timestamp()),
    endedAt: Nullable(Timestamp(), { description: 'When it completed or was cancelled' }),
  },
  { $id: 'Campaign' },
);
export type CampaignView = Static<typeof CampaignView>;
export const CampaignPage = CountedPageOf(ref(CampaignView), 'CampaignPage');

export const CampaignListQuery = Type.Object(
  {
    state: Type.Optional(StringEnum(CAMPAIGN_STATES, { description: 'Only campaigns in this state' })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
export type CampaignListQuery = Static<typeof CampaignListQuery>;

const ContactAttempt = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  callId: Type.String(),
  state: StringEnum(['placing', 'placed', 'ended', 'not_started'] as const),
  outcome: Nullable(Type.String()),
  result: Nullable(StringEnum(['answered', 'noAnswer', 'busy', 'voicemail', 'failed'] as const)),
  createdAt: Timestamp(),
  endedAt: Nullable(Timestamp()),
});

export const ContactView = Type.Object(
  {
    id: Type.String({ examples: ['cct_01JD8Y6Q4S'] }),
    campaignId: Type.String(),
    phone: Type.String({ description: 'E.164' }),
    variables: Type.Record(Type.String(), Type.String()),
    timezone: Nullable(Type.String(), { description: "IANA zone of this contact's window; null: the campaign's" }),
    state: StringEnum(CONTACT_STATES),
    attempts: Type.Array(ContactAttempt),
    dueAt: Nullable(Timestamp(), { description: 'When it is next due (pending or retrying)' }),
    lastOutcome: Nullable(Type.String()),
    reason: Nullable(Type.String(), { description: 'Why it was skipped or failed' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'CampaignContact' },
);
export type ContactView = Static<typeof ContactView>;
export const ContactPage = CountedPageOf(ref(ContactView), 'CampaignContactPage');

export const ContactListQuery = Type.Object(
  {
    state: Type.Optional(StringEnum(CONTACT_STATES, { description: 'Only contacts in this state' })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
export type ContactListQuery = Static<typeof ContactListQuery>;

export const ImportQuery = Type.Object(
  {
    dryRun: Type.Optional(Type.Boolean({ description: 'Check and preview without storing anything' })),
  },
  { additionalProperties: false },
);

const ContactInput = Type.Object(
  {
    // Optional here: a contact without one is reported by index, as every other bad row.
    phone: Type.Optional(Type.Unknown({ description: 'E.164; required' })),
    variables: Type.Optional(Type.Unknown({ description: 'Names and string values, as click to call takes them' })),
    timezone: Type.Optional(Type.Unknown({ description: "IANA time zone of this contact's window" })),
  },
  { description: 'Checked row by row: a bad row is reported by index and skipped' },
);
export const ImportJsonBody = Type.Union([
  Type.Array(ContactInput, { maxItems: MAX_JSON_CONTACTS }),
  Type.Object({ contacts: Type.Array(ContactInput, { maxItems: MAX_JSON_CONTACTS }) }, { additionalProperties: false }),
]);

export const ImportResult = Type.Object(
  {
    received: Type.Integer({ minimum: 0, description: 'Rows read (CSV: not counting the header)' }),
    added: Type.Integer({ minimum: 0, description: 'New contacts' }),
    merged: Type.Integer({ minimum: 0, description: 'Numbers already in the campaign or repeated in the upload' }),
    errors: Type.Array(
      Type.Object({
        line: Type.Optional(Type.Integer({ description: "CSV: the file's line, the header being line 1" })),
        index: Type.Optional(Type.Integer({ description: 'JSON: the position in the list, from 0' })),
        message: Type.String(),
      }),
      { description: `Rows refused, at most ${MAX_IMPORT_ERRORS}` },
    ),
    errorsOmitted: Type.Optional(Type.Integer({ minimum: 1, description: 'Rows refused beyond those listed' })),
    preview: Type.Optional(
      Type.Array(
        Type.Object({
          line: Type.Optional(Type.Integer()),
          index: Type.Optional(Type.Integer()),
          phone: Type.String(),
          variables: Type.Record(Type.String(), Type.String()),
          timezone: Nullable(Type.String()),
        }),
        { description: 'dryRun: the first 10 valid contacts' },
      ),
    ),
  },
  { $id: 'ContactImportResult' },
);
export type ImportResult = Static<typeof ImportResult>;

export const CAMPAIGN_VIEWS = [CampaignView, CampaignPage, ContactView, ContactPage, ImportResult];
