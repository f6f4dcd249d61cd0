import type { FieldProblem } from '../errors.js';

/**
 * PostgreSQL stores no NUL character (U+0000) in text or jsonb, and no lone UTF-16 surrogate in
 * jsonb (node-postgres writes one into a text column as U+FFFD, silently changing it). A string
 * holding either fails its INSERT: a 500 for a request that is merely malformed, and, where rows
 * are inserted in batches (accepted calls), the failure of every other row of the batch. So such
 * strings are refused where they come in, where the caller can be told which field.
 */

// With the u flag a well-formed surrogate pair is one code point; only a lone surrogate is \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether PostgreSQL can store `text` as it is, in a text column and inside jsonb. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain a NUL character (\\u0000) or an unpaired UTF-16 surrogate';

/**
 * How deep a management-API body may nest. The deepest legitimate body (a tool's fields, five
 * levels of objects in arrays) is about 20 levels; the schema validator recurses once per level of
 * nested fields and overflows the stack at a few thousand (a 500).
 */
export const MAX_JSON_DEPTH = 100;

/** What stands, in recorded data, where it nested deeper than MAX_JSON_DEPTH. */
const CUT_OFF = `[nested deeper than ${MAX_JSON_DEPTH} levels: cut off]`;

function keyPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * What in a parsed JSON value the API cannot take: a string (an object key or a string value) that
 * PostgreSQL cannot store, or nesting deeper than `maxDepth`; undefined when there is none.
 * Walks with its own stack, not by recursion: what it is given may nest thousands of levels deep.
 */
export function jsonProblem(value: unknown, root = '$', maxDepth = MAX_JSON_DEPTH): FieldProblem | undefined {
  const pending: [unknown, string, number][] = [[value, root, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, path, depth] = next;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return { path, message: UNSTORABLE_TEXT_MESSAGE };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= maxDepth) return { path, message: `nests deeper than ${maxDepth} levels` };
    if (Array.isArray(item)) {
      item.forEach((element, i) => {
        pending.push([element, keyPath(path, i), depth + 1]);
      });
    } else {
      for (const [key, element] of Object.entries(item)) {
        const at = keyPath(path, key);
        if (!isStorableText(key)) return { path: at, message: UNSTORABLE_TEXT_MESSAGE };
        pending.push([element, at, depth + 1]);
      }
    }
  }
  return undefined;
}

/** `text` with each NUL and each lone surrogate replaced by U+FFFD, the replacement character. */
export function toStorableText(text: string): string {
  return isStorableText(text) ? text : text.replaceAll('\u0000', '\ufffd').replace(/\p{Cs}/gu, '\ufffd');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Data from outside that is recorded rather than judged — a provider's call events, a tool
 * endpoint's answer — with every string (keys too) made storable, and anything nested deeper than
 * `MAX_JSON_DEPTH` replaced by a string saying so; the same value when nothing needed it. Refusing
 * such data would lose the call's end: one NUL in a tool's answer failed the end-of-call write (the
 * call stayed open until the duration sweep) and, batched, other calls' tool records; a report
 * nested 10,000 levels deep overflowed JSON.stringify on its way to the database (a 500, which the
 * provider retried for ever). Other objects (dates) are kept as they are; walks with its own stack.
 */
export function toStorableJson<T>(value: T): T {
  if (jsonProblem(value, '$', MAX_JSON_DEPTH) === undefined) return value;
  const root: Record<string, unknown> = { value };
  const pending: [Record<string | number, unknown>, string | number, number][] = [[root, 'value', 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [holder, key, depth] = next;
    const item = holder[key];
    if (typeof item === 'string') {
      holder[key] = toStorableText(item);
    } else if ((Array.isArray(item) || isPlainObject(item)) && depth >= MAX_JSON_DEPTH) {
      holder[key] = CUT_OFF;
    } else if (Array.isArray(item)) {
      const copy: unknown[] = [...item];
      holder[key] = copy;
      copy.forEach((_, i) => {
        pending.push([copy as unknown as Record<number, unknown>, i, depth + 1]);
      });
    } else if (isPlainObject(item)) {
      // fromEntries defines own properties, so a "__proto__" key stays a key.
      const copy = Object.fromEntries(Object.entries(item).map(([k, v]) => [toStorableText(k), v]));
      holder[key] = copy;
      for (const k of Object.keys(copy)) pending.push([copy, k, depth + 1]);
    }
  }
  return root.value as T;
}
