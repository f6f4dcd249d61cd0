import { validationError } from '../errors.js';
import { isIdShaped } from '../lib/ids.js';
import type { CallKey } from './calls.repository.js';
import { CALL_SORTS, type CallSort } from './calls.schemas.js';

/**
 * The cursors of GET /v1/calls (decision 0041). Opaque to clients; inside, the sort they were made
 * for and the last row of the page: its sort key and id, so the next page starts right after it in
 * any order, with no offset to count through.
 */

const CREATED_AT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const DURATION_KEY = /^\d{1,10}$/;

export function encodeCallCursor(sort: CallSort, last: CallKey): string {
  return Buffer.from(JSON.stringify([sort, last.key, last.id]), 'utf8').toString('base64url');
}

const notOurs = () => validationError([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);

/** The row a cursor continues after, for the page's sort; 422 naming `query.cursor` for anything else. */
export function decodeCallCursor(cursor: string, sort: CallSort): CallKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notOurs();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw notOurs();
  const [madeFor, key, id] = parsed as unknown[];
  if (typeof id !== 'string' || !isIdShaped(id)) throw notOurs();
  if (madeFor !== sort) {
    if ((CALL_SORTS as readonly unknown[]).includes(madeFor))
      throw validationError([
        {
          path: 'query.cursor',
          message: `was returned for sort=${madeFor}, not sort=${sort}: start again without a cursor`,
        },
      ]);
    throw notOurs();
  }
  const byDuration = sort.endsWith('durationSeconds');
  const sound = byDuration
    ? key === null || (typeof key === 'string' && DURATION_KEY.test(key))
    : typeof key === 'string' && CREATED_AT_KEY.test(key) && !Number.isNaN(Date.parse(key));
  if (!sound) throw notOurs();
  return { key: key as string | null, id };
}
