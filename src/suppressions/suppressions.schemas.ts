import { type Static, Type } from '@sinclair/typebox';
import { formatCount } from '../lib/format-count.js';
import { CountedPageOf, Nullable, ref, StringEnum, Timestamp } from '../lib/schema.js';

/** The longest reason a number is listed for (characters). */
export const MAX_REASON = 500;
/** How many numbers an organization's do-not-call list holds at most. */
export const MAX_SUPPRESSIONS_PER_ORGANIZATION = 1_000_000;
/** One CSV upload: at most this many bytes and data rows. */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;
export const MAX_UPLOAD_ROWS = 1_000_000;
/** Row errors an upload's answer lists at most; `errorsOmitted` counts the rest. */
export const MAX_REPORTED_ERRORS = 1000;

export const SUPPRESSION_SOURCES = ['api', 'outcome'] as const;

/** A number on the organization's do-not-call list (docs/interface.md#do-not-call-list). */
export const SuppressionView = Type.Object(
  {
    id: Type.String({ examples: ['dnc_01JD8Y6Q4S'] }),
    phone: Type.String({ description: 'E.164', examples: ['+14155550123'] }),
    reason: Nullable(Type.String(), {
      description: 'Why it is listed, as given; for an outcome, "outcome <STATUS>"',
    }),
    source: StringEnum(SUPPRESSION_SOURCES, {
      description:
        "api: added by POST /v1/suppressions (or the dashboard); outcome: a call ended with one of its agent's or campaign's doNotCallOutcomes",
    }),
    callId: Nullable(Type.String(), { description: 'source outcome: the call whose outcome listed it' }),
    createdAt: Timestamp(),
  },
  { $id: 'Suppression' },
);
export type SuppressionView = Static<typeof SuppressionView>;

export const SuppressionPage = CountedPageOf(ref(SuppressionView), 'SuppressionPage');

/** What a CSV upload did: rows read, numbers added, numbers listed already, and each refused row by line. */
export const SuppressionImport = Type.Object(
  {
    received: Type.Integer({ minimum: 0, description: 'Data rows read (the header and blank lines not counted)' }),
    added: Type.Integer({ minimum: 0, description: 'Numbers added to the list' }),
    alreadyListed: Type.Integer({
      minimum: 0,
      description: 'Numbers on the list already, or twice in the file (their reason is left as it was)',
    }),
    errors: Type.Array(
      Type.Object({
        line: Type.Integer({ minimum: 1, description: "The file's line number, the header being line 1" }),
        message: Type.String(),
      }),
      { description: `Rows not added and why, the first ${MAX_REPORTED_ERRORS}` },
    ),
    errorsOmitted: Type.Optional(
      Type.Integer({ minimum: 1, description: `Row errors beyond the first ${MAX_REPORTED_ERRORS}, not listed` }),
    ),
  },
  { $id: 'SuppressionImport' },
);
export type SuppressionImport = Static<typeof SuppressionImport>;

export const CreateSuppressionBody = Type.Object(
  {
    phone: Type.String({ maxLength: 64, description: 'E.164, e.g. +14155550123', examples: ['+14155550123'] }),
    reason: Type.Optional(
      Nullable(Type.String({ maxLength: MAX_REASON }), { description: `Why, at most ${MAX_REASON} characters` }),
    ),
  },
  {
    additionalProperties: false,
    'x-examples': {
      optOut: {
        summary: 'A lead who asked not to be called',
        value: { phone: '+14155550123', reason: 'asked on 2026-01-31' },
      },
    },
  },
);
export type CreateSuppressionInput = Static<typeof CreateSuppressionBody>;

/**
 * `text/csv`: the file, read as it arrives and never held whole (src/suppressions/suppressions-csv.ts).
 * No `type`: the route receives the stream, which no JSON Schema type describes; the text is judged row by row.
 */
export const SuppressionCsvBody = Type.Unsafe<unknown>({
  description: `A header row with a \`phone\` column (any case) and optionally \`reason\`; other columns are ignored. UTF-8 with or without a BOM, comma-separated, fields quoted with " where needed. At most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB and ${formatCount(MAX_UPLOAD_ROWS)} rows.`,
  examples: ['phone,reason\n+14155550123,asked not to be called\n"+14155550124","moved, no longer a lead"\n'],
});

export const SuppressionListQuery = Type.Object(
  {
    phone: Type.Optional(
      Type.String({
        pattern: '^\\+?[0-9]{1,15}$',
        maxLength: 16,
        description: 'The start of the number, e.g. +1415; `+` is assumed',
        examples: ['+1415'],
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
export type SuppressionListQuery = Static<typeof SuppressionListQuery>;

export const SUPPRESSION_VIEWS = [SuppressionView, SuppressionPage, SuppressionImport];
