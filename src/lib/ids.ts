import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

/** Prefixes name what an id points at, so a misplaced id is obvious in a log line. */
export type IdPrefix =
  | 'org'
  | 'usr'
  | 'key'
  | 'ses'
  | 'agt'
  | 'call'
  | 'req'
  | 'tool'
  | 'tinv'
  | 'intg'
  | 'dlv'
  | 'msg'
  | 'pcr';

/**
 * A new id: `<prefix>_` + 10 characters of millisecond time + 16 random characters.
 * Ids sort by creation time, which makes them usable as pagination cursors.
 */
// Random bytes drawn 4 KiB at a time: one system call per 256 ids instead of one per id.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = POOL_SIZE;

function random16(): Buffer {
  if (poolOffset + 16 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = random16();
  let random = '';
  for (const byte of bytes) random += ALPHABET[byte % 32];
  return `${prefix}_${time}${random}`;
}

const ID_PATTERN = /^[a-z]{2,4}_[0-9a-hjkmnp-tv-z]{26}$/;

/** Whether `value` has the shape of an id we issued (used to validate cursors). */
export function isIdShaped(value: string): boolean {
  return ID_PATTERN.test(value);
}
