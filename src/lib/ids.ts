import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

/** Prefixes name what an id points at, so a misplaced id is obvious in a log line. */
export type IdPrefix = 'org' | 'usr' | 'key' | 'ses' | 'agt' | 'call' | 'req';

/**
 * A new id: `<prefix>_` + 10 characters of millisecond time + 16 random characters.
 * Ids sort by creation time, which makes them usable as pagination cursors.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (const byte of bytes) random += ALPHABET[byte % 32];
  return `${prefix}_${time}${random}`;
}

const ID_PATTERN = /^[a-z]{2,4}_[0-9a-hjkmnp-tv-z]{26}$/;

/** Whether `value` has the shape of an id we issued (used to validate cursors). */
export function isIdShaped(value: string): boolean {
  return ID_PATTERN.test(value);
}
