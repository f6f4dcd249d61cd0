import { type TUnsafe, Type } from '@sinclair/typebox';
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
