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
  | 'pcr'
  | 'phn'
  | 'cmp'
  | 'cct'
  | 'att'
  | 'dnc';

/**
 * A new id: `<prefix>_` + 10 characters of millisecond time + 16 random characters.
 * Ids sort by creation time, which makes them usable as pagination cursors. Within one process they
 * are strictly increasing: ids made in the same millisecond (a call's tool runs, a burst of calls)
 * continue the previous one's random part plus one, as monotonic ULIDs do, so lists ordered by id
 * keep the order things happened in.
 */
// Random bytes drawn 4 KiB at a time: one system call per 256 ids instead of one per id.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = POOL_SIZE;

function randomDigits(): number[] {
  if (poolOffset + 16 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const digits = [...pool.subarray(poolOffset, poolOffset + 16)].map((byte) => byte % 32);
  poolOffset += 16;
  return digits;
}

/** The next value of base-32 digits, or undefined when they were all at their highest. */
function increment(digits: number[]): number[] | undefined {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if ((next[i] as number) < 31) {
      next[i] = (next[i] as number) + 1;
      return next;
    }
    next[i] = 0;
  }
  return undefined;
}

let lastTime = -1;
let lastDigits: number[] = [];

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = now;
  let digits: number[] | undefined;
  if (time <= lastTime) {
    time = lastTime;
    digits = increment(lastDigits);
    // 32^16 ids in one millisecond: move on to the next.
    if (!digits) time = lastTime + 1;
  }
  digits ??= randomDigits();
  lastTime = time;
  lastDigits = digits;

  let random = '';
  for (const digit of digits) random += ALPHABET[digit];
  return `${prefix}_${encodedTime(time)}${random}`;
}

/** The last millisecond encoded, and its 10 characters: a busy process makes many ids in one. */
let encodedAt = -1;
let encoded = '';
function encodedTime(time: number): string {
  if (time !== encodedAt) {
    encoded = '';
    let t = time;
    for (let i = 0; i < 10; i++) {
      encoded = ALPHABET[t % 32] + encoded;
      t = Math.floor(t / 32);
    }
    encodedAt = time;
  }
  return encoded;
}

const ID_PATTERN = /^[a-z]{2,4}_[0-9a-hjkmnp-tv-z]{26}$/;

/** Whether `value` has the shape of an id we issued (used to validate cursors). */
export function isIdShaped(value: string): boolean {
  return ID_PATTERN.test(value);
}
