import { validationError } from '../errors.js';
import { isIdShaped } from './ids.js';

/** A page of a list route: `nextCursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * The lists of tables that grow with every call (calls, deliveries) count their matching rows up to
 * this many; above it, `total` is this and `totalCapped` is true ("10,000+"), so a large
 * organization's total costs a bounded read (decision 0053).
 */
export const TOTAL_CAP = 10_000;

/** `total` and `totalCapped` of a list from its count, taken with `limit TOTAL_CAP + 1`. */
export function cappedTotal(counted: number): { total: number; totalCapped: boolean } {
  return { total: Math.min(counted, TOTAL_CAP), totalCapped: counted > TOTAL_CAP };
}

/** Cursors are opaque to clients; inside, the last id of the page (ids sort by creation time). */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isIdShaped(id)) throw validationError([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
  return id;
}

/** Turns `limit + 1` rows fetched newest first into a page and the cursor of the next one. */
export function toPage<Row extends { id: string }, View>(
  rows: Row[],
  limit: number,
  view: (row: Row) => View,
): Page<View> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(view), nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}
