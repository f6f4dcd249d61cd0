import { endWithMarker, prefixOfBytes } from './text-budget.js';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/**
 * The most UTF-8 bytes one filled text may have (a simulator turn or first message, a tool
 * parameter's value), marker included. 800 `{{p}}` in one turn with a 60,000-character `p` made a
 * 48 MB turn; no spoken turn or parameter comes near 16 KiB (docs/decisions/0027-bounded-call-records.md).
 */
export const FILLED_TEXT_BUDGET = 16 * 1024;

/**
 * Replaces each `{{name}}` in one pass. Values are inserted as they are and never expanded again,
 * so a caller cannot smuggle a placeholder in through a variable's value. A name `lookup` does
 * not know becomes "" (docs/interface.md#click-to-call: optional variables are empty strings, never "undefined").
 *
 * The result is at most `budget` UTF-8 bytes: past it, nothing more is built (the rest is only
 * counted, to say how much was cut) and the text ends with the cut marker. Each distinct name is
 * looked up once.
 */
export function fillTemplate(
  text: string,
  lookup: (name: string) => string | undefined,
  budget: number = FILLED_TEXT_BUDGET,
): string {
  const values = new Map<string, { value: string; bytes: number }>();
  const filledValue = (name: string) => {
    let known = values.get(name);
    if (!known) {
      const value = lookup(name) ?? '';
      known = { value, bytes: Buffer.byteLength(value) };
      values.set(name, known);
    }
    return known;
  };
  let out = '';
  let outBytes = 0;
  let totalBytes = 0;
  const add = (piece: string, bytes: number) => {
    totalBytes += bytes;
    if (outBytes >= budget) return;
    // Past the budget only a prefix is kept: never more than `budget` bytes are built.
    const kept = outBytes + bytes <= budget ? piece : prefixOfBytes(piece, budget - outBytes);
    out += kept;
    outBytes += kept === piece ? bytes : Buffer.byteLength(kept);
  };
  let from = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const literal = text.slice(from, match.index);
    add(literal, Buffer.byteLength(literal));
    const { value, bytes } = filledValue(match[1] as string);
    add(value, bytes);
    from = match.index + match[0].length;
  }
  const rest = text.slice(from);
  add(rest, Buffer.byteLength(rest));
  return totalBytes <= budget ? out : endWithMarker(out, outBytes, totalBytes, budget);
}

/** The distinct placeholder names a text uses, in order of first use. */
export function placeholdersOf(...texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(PLACEHOLDER)) if (match[1]) names.add(match[1]);
  return [...names];
}

/**
 * The text with each placeholder written `{{name}}`, spaces inside the braces dropped: what we
 * publish to a provider, which fills `{{name}}` itself from the call's variables (Retell's dynamic
 * variables do not allow the spaces our own filling, and Vapi's, do).
 */
export function normalizePlaceholders(text: string): string {
  return text.replace(PLACEHOLDER, (_match, name: string) => `{{${name}}}`);
}
