import { type TUnsafe, Type } from '@sinclair/typebox';

/** A string enum as plain JSON Schema `enum`, so errors say "must be one of …" and OpenAPI shows the list. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
