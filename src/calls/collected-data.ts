/**
 * A call's collected data typed against what its agent declares it collects (`collect`, issue 17;
 * docs/decisions/0037-calls-api-and-call-details.md). Pure: it never throws and never refuses, so an
 * end-of-call report is always recorded, with what could not be kept as declared listed as warnings.
 */

export const COLLECT_TYPES = ['string', 'number', 'boolean', 'enum'] as const;
export type CollectType = (typeof COLLECT_TYPES)[number];

/** One declared field, as read from `agents.collect`. */
export interface CollectedField {
  name: string;
  type: CollectType;
  /** The accepted values of an `enum` field (none for the other types). */
  choices: string[];
}

export interface TypedCollectedData {
  data: Record<string, unknown>;
  /** One line per value kept as its text: `collectedData.age: expected a number, got "forty"`. */
  warnings: string[];
}

/** How much of an ill-typed value a warning quotes, in characters. */
const QUOTED_CHARS = 80;

/**
 * The fields an agent's `collect` declares, read structurally: entries that are not a `{name, type}`
 * with a known type are skipped (the agents API refuses them; a row written otherwise must not stop
 * a call's end). An enum without usable choices is read as a string.
 */
export function declaredFields(collect: unknown): CollectedField[] {
  if (!Array.isArray(collect)) return [];
  const fields: CollectedField[] = [];
  const seen = new Set<string>();
  for (const entry of collect) {
    if (entry === null || typeof entry !== 'object') continue;
    const { name, type, choices } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '' || seen.has(name)) continue;
    if (!(COLLECT_TYPES as readonly unknown[]).includes(type)) continue;
    const options = Array.isArray(choices) ? choices.filter((c): c is string => typeof c === 'string') : [];
    seen.add(name);
    fields.push(
      type === 'enum' && options.length === 0
        ? { name, type: 'string', choices: [] }
        : { name, type: type as CollectType, choices: type === 'enum' ? options : [] },
    );
  }
  return fields;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** How a value is quoted in a warning: its JSON, cut. */
function quoted(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= QUOTED_CHARS ? json : `${json.slice(0, QUOTED_CHARS)}…`;
}

/** The value as text, for a value that could not be kept as declared. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

type Typed = { ok: true; value: unknown } | { ok: false; expected: string };

function typed(field: CollectedField, value: unknown): Typed {
  switch (field.type) {
    case 'string':
      // A number or a boolean reads the same as text; an object or a list is not what was asked for.
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, value: String(value) };
      return { ok: false, expected: 'a string' };
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
      const text = typeof value === 'string' ? value.trim() : undefined;
      if (text !== undefined && DECIMAL.test(text) && Number.isFinite(Number(text)))
        return { ok: true, value: Number(text) };
      return { ok: false, expected: 'a number' };
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { ok: true, value };
      const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
      if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' };
      return { ok: false, expected: 'true or false' };
    }
    case 'enum': {
      const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
      if (text !== undefined) {
        if (field.choices.includes(text)) return { ok: true, value: text };
        // A choice in another case is that choice when only one matches ("Gold" for "gold").
        const folded = field.choices.filter((choice) => choice.toLowerCase() === text.trim().toLowerCase());
        if (folded.length === 1) return { ok: true, value: folded[0] };
      }
      return { ok: false, expected: `one of ${field.choices.map((choice) => JSON.stringify(choice)).join(', ')}` };
    }
  }
}

/** `collectedData.<name>` as a JSON path segment would write it. */
const pathOf = (name: string) =>
  /^[A-Za-z_$][\w$]*$/.test(name) ? `collectedData.${name}` : `collectedData[${JSON.stringify(name)}]`;

/**
 * The report's collected values typed as `collect` declares them:
 * - an agent that declares nothing keeps every value as reported (what it did before `collect`);
 * - a key that is not declared is dropped, as is a null (the provider found no value);
 * - a value of the declared type is kept; "42" is 42 for a number, "true" / "false" (any case) are
 *   booleans, a number or a boolean is its text for a string, an enum choice may differ in case;
 * - any other value is kept as its text, and a warning names it (in the declared order).
 */
export function typeCollectedData(reported: Record<string, unknown>, collect: unknown): TypedCollectedData {
  const fields = declaredFields(collect);
  if (fields.length === 0) return { data: reported, warnings: [] };
  const entries: [string, unknown][] = [];
  const warnings: string[] = [];
  for (const field of fields) {
    if (!Object.hasOwn(reported, field.name)) continue;
    const value = reported[field.name];
    if (value === null || value === undefined) continue;
    const result = typed(field, value);
    if (result.ok) {
      entries.push([field.name, result.value]);
    } else {
      entries.push([field.name, asText(value)]);
      warnings.push(`${pathOf(field.name)}: expected ${result.expected}, got ${quoted(value)}`);
    }
  }
  // fromEntries defines own properties: a field named "__proto__" is an ordinary key.
  return { data: Object.fromEntries(entries), warnings };
}
