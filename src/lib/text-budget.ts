/**
 * Byte budgets for the texts we build and record (docs/decisions/0027-bounded-call-records.md): a
 * text over its budget keeps its start and ends with a marker saying how much was cut, never more
 * than the budget in all. Budgets are in UTF-8 bytes, or, for what is recorded as JSON, in bytes of
 * its JSON form (escapes included). Every budget is far larger than the marker.
 */
const encoder = new TextEncoder();

/** How a byte count reads in a marker: "16 KiB", or bytes when it is not a whole number of KiB. */
function budgetLabel(budget: number): string {
  return budget % 1024 === 0 ? `${budget / 1024} KiB` : `${budget} bytes`;
}

/**
 * The visible end of a text cut at its budget: what was cut and why. ASCII only, so that a cut
 * header value is still something HTTP can carry.
 */
export function cutMarker(cutBytes: number, budget: number): string {
  return `...[${cutBytes} bytes cut: over the ${budgetLabel(budget)} budget]`;
}

/** The longest start of `text` that is at most `maxBytes` in UTF-8, never splitting a character. */
export function prefixOfBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  // encodeInto writes whole characters only; `read` is how many UTF-16 units they took.
  let { read } = encoder.encodeInto(text.length > maxBytes ? text.slice(0, maxBytes) : text, new Uint8Array(maxBytes));
  // The slice may have split a surrogate pair, whose first half was then read as a character of its
  // own: a lone surrogate is a string PostgreSQL refuses (docs/decisions/0005-calls-and-errors.md).
  const last = text.charCodeAt(read - 1);
  if (last >= 0xd800 && last <= 0xdbff && read < text.length) read--;
  return text.slice(0, read);
}

/**
 * `kept` (at most `budget` bytes, `keptBytes` of them) ended with the marker, so that the result is
 * at most `budget` bytes; `totalBytes` is what the whole text would have been.
 */
export function endWithMarker(kept: string, keptBytes: number, totalBytes: number, budget: number): string {
  // The marker's length depends on the count it states, which depends on how much it displaces.
  let marker = cutMarker(totalBytes - keptBytes, budget);
  let prefix = prefixOfBytes(kept, budget - Buffer.byteLength(marker));
  marker = cutMarker(totalBytes - Buffer.byteLength(prefix), budget);
  prefix = prefixOfBytes(prefix, budget - Buffer.byteLength(marker));
  return prefix + marker;
}

/** `text` when it is at most `budget` UTF-8 bytes, else its start ended by the cut marker (at most `budget` bytes in all). */
export function cutText(text: string, budget: number): string {
  // A JS string's UTF-8 is at most 3 bytes per UTF-16 unit: most texts need no counting at all.
  if (text.length * 3 <= budget) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes <= budget) return text;
  const kept = prefixOfBytes(text, budget);
  return endWithMarker(kept, Buffer.byteLength(kept), bytes, budget);
}

/** The size of a value's JSON text in UTF-8 bytes (0 for what JSON cannot hold). */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Buffer.byteLength(json);
}

/** `text`, cut (with the marker) so that its JSON string, quotes and escapes included, is at most `budget` bytes. */
export function cutJsonText(text: string, budget: number): string {
  // Escapes take up to 6 bytes per UTF-16 unit (\u0001): below that, nothing needs measuring.
  if (text.length * 6 + 2 <= budget) return text;
  const total = jsonBytes(text);
  if (total <= budget) return text;
  let textBudget = budget - 2;
  let cut = cutText(text, textBudget);
  // Each round shrinks the text budget by how far the JSON form is over: a few rounds at most.
  for (let size = jsonBytes(cut); size > budget; size = jsonBytes(cut)) {
    textBudget -= size - budget;
    cut = cutText(text, textBudget);
  }
  return cut;
}

/** The key under which a cut object says what it left out. */
export const CUT_KEY = '[cut]';

/**
 * A value recorded as JSON, at most `budget` bytes of it: unchanged when it fits. An object keeps
 * its first entries that fit, the first string that does not keeps its start, and the entries left
 * out are counted under the key "[cut]"; anything else too large becomes the marker text.
 */
export function boundJson(value: unknown, budget: number): unknown {
  const total = jsonBytes(value);
  if (total <= budget) return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return typeof value === 'string' ? cutJsonText(value, budget) : cutMarker(total, budget);
  }
  // Room kept for the "[cut]" entry itself.
  const limit = budget - 96;
  const kept: Record<string, unknown> = {};
  let used = 2;
  const entries = Object.entries(value);
  let keptCount = 0;
  for (const [key, entry] of entries) {
    const keyBytes = jsonBytes(key) + 2; // the colon, and a comma
    const entryBytes = jsonBytes(entry);
    if (used + keyBytes + entryBytes <= limit) {
      kept[key] = entry;
      used += keyBytes + entryBytes;
      keptCount++;
      continue;
    }
    const room = limit - used - keyBytes;
    if (typeof entry === 'string' && room > 128) {
      kept[key] = cutJsonText(entry, room);
      keptCount++;
    }
    break;
  }
  if (keptCount < entries.length) kept[CUT_KEY] = cutMarker(Math.max(0, total - jsonBytes(kept)), budget);
  return jsonBytes(kept) <= budget ? kept : { [CUT_KEY]: cutMarker(total, budget) };
}
