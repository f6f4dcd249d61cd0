import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { SECRET_MASK } from './crypto.js';
import { formatCount } from './format-count.js';
import { TOTAL_CAP } from './pagination.js';

/** A string enum as plain JSON Schema `enum`, so errors say "must be one of …" and OpenAPI shows the list. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * A name a user types (organization, agent, provider credential, API key): 1 to `maxLength`
 * characters with at least one that is not whitespace, so a name of spaces is refused like an empty
 * one (errors.ts words the problem). Services store it trimmed (`.trim()`), as docs/interface.md says.
 */
export const NAME_PATTERN = '\\S';
export const Name = (maxLength = 100) => Type.String({ minLength: 1, maxLength, pattern: NAME_PATTERN });

/**
 * What an HTTP header value can carry (RFC 9110 field-value: tab, visible ASCII, space, obs-text),
 * as Node and undici check it before sending. A saved value outside it (any control character, not
 * only CR and LF) could never be sent: every tool run or webhook attempt with it would fail, so it
 * is refused where it is saved, naming the field. The mask a write-only value reads back as is also
 * taken: written back, it keeps the stored value.
 */
export const HEADER_VALUE_PATTERN = `^(?:[\\t\\x20-\\x7e\\x80-\\xff]*|${SECRET_MASK})$`;

/**
 * What each pattern a route's schema uses asks for, in words (issue 18): the validator would say
 * `must match pattern "^[A-Za-z0-9_-]{1,64}$"`, which only a programmer reads. Keyed by the pattern
 * itself, so a schema needs nothing added to be answered in words; a pattern missing here is said
 * generically, and test/validation-messages.test.ts fails for every pattern in the API document
 * that has no sentence, so a new one is given its words when it is added.
 */
export const PATTERN_SENTENCES: Readonly<Record<string, string>> = {
  [NAME_PATTERN]: 'must contain a character other than spaces',
  [HEADER_VALUE_PATTERN]: 'Must not contain line breaks or other control characters',
  // Tool, parameter and field names (src/tools/tools.schemas.ts).
  '^[A-Za-z0-9_-]{1,64}$': 'Use letters, digits, _ or - (at most 64)',
  // Tool variables.
  '^[A-Za-z_][A-Za-z0-9_-]{0,63}$': 'Start with a letter or _, then letters, digits, _ or - (at most 64)',
  // Header names: RFC 9110 token characters.
  "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$":
    "Use letters, digits and - (or ! # $ % & ' * + . ^ _ ` | ~), no spaces or colons (at most 100)",
  // Outcome statuses (src/agents/agents.schemas.ts).
  '^[A-Z][A-Z0-9_]{0,63}$': 'Use capitals, digits and _, starting with a capital (at most 64), e.g. SOLD',
  // What an agent collects.
  '^[A-Za-z_][A-Za-z0-9_]{0,63}$': 'Start with a letter or _, then letters, digits or _ (at most 64)',
  // Email addresses (src/auth/auth.schemas.ts).
  '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$': 'Must be an email address, e.g. ana@example.com',
  '^[0-9]+$': 'Use digits only',
  // A phone number's beginning, to find calls by (`GET /v1/calls?phone=`).
  '^\\+?[0-9]{1,15}$': 'Use digits only, with an optional + first (at most 15 digits)',
};

/** A pattern's sentence, or a plain one for a pattern not in the table. */
export const patternSentence = (pattern: string): string =>
  PATTERN_SENTENCES[pattern] ?? 'Has characters or a form this field does not take';

/**
 * A reference to a shared schema (one with an `$id`, registered by `registerSharedSchemas` in
 * src/openapi.ts): the document shows it once, under `components/schemas`, and the routes point
 * at it. Typed as the schema it names, so a route's handler is checked against the view.
 */
export const ref = <T extends TSchema & { $id?: string }>(schema: T, options: { description?: string } = {}) =>
  Type.Unsafe<Static<T>>({ ...Type.Ref(schema.$id as string), ...options });

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** A timestamp as the API writes it: ISO 8601 in UTC. */
export const Timestamp = (options: { description?: string } = {}) => Type.String({ format: 'date-time', ...options });

/** A free-form JSON object: its fields are whatever was given or recorded, kept as they are. */
export const FreeObject = (options: { description?: string } = {}) =>
  Type.Record(Type.String(), Type.Unknown(), { additionalProperties: true, ...options });

/** A page of a list route (docs/interface.md#conventions): `nextCursor` is null on the last page. */
export const PageOf = <T extends TSchema>(item: T, $id: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass back as ?cursor=; null on the last page',
      }),
    },
    { $id },
  );

/**
 * A page of a list that also says how many rows its filter matches (`total`, not the page's size),
 * counted with the list's own filter: the dashboard shows "12 agents" (issue 18, decision 0041).
 */
export const CountedPageOf = <T extends TSchema>(item: T, $id: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass back as ?cursor=; null on the last page',
      }),
      total: Type.Integer({ minimum: 0, description: 'How many rows the filter matches, across every page' }),
    },
    { $id },
  );

/** The cap as the descriptions write it: "10,000". */
const CAP_TEXT = formatCount(TOTAL_CAP);

/**
 * A page whose total is counted only up to `TOTAL_CAP` (decision 0053): `total` is exact up to
 * there; above it `total` is the cap and `totalCapped` is true, so a large organization's total costs
 * a bounded read. `noun` names the rows in the descriptions ("calls").
 */
export const CappedPageOf = <T extends TSchema>(item: T, $id: string, noun: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass back as ?cursor=; null on the last page',
      }),
      total: Type.Integer({
        minimum: 0,
        description: `How many ${noun} the filter matches across every page, counted up to ${CAP_TEXT}`,
      }),
      totalCapped: Type.Boolean({
        description: `True when more than ${CAP_TEXT} ${noun} match: \`total\` is then ${CAP_TEXT}, a lower bound`,
      }),
    },
    { $id },
  );

/** A 204 answer: the schema Fastify and the document read as "no body". */
export const NO_CONTENT = { description: 'Done', type: 'null' } as const;
