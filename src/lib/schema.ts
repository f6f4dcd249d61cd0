import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { SECRET_MASK } from './crypto.js';

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

/** A 204 answer: the schema Fastify and the document read as "no body". */
export const NO_CONTENT = { description: 'Done', type: 'null' } as const;
