import { SECRET_MASK } from './crypto.js';

/**
 * The one rule for write-only values (a tool's secret header values, a webhook's bearer token, a
 * provider credential's API key and webhook secret), docs/decisions/0028-write-only-secrets.md.
 *
 * They read back as {@link SECRET_MASK}, so a form that saves what it read sends the mask back;
 * the mask then stands for the stored value, and only while that value stays a secret sent where
 * it was given: written where no secret is stored, on a value that would no longer be secret, or
 * beside a destination moved to another origin, it is refused and the real value is asked for.
 */

/** Whether `value` is the mask a write-only value reads back as. */
export const isMask = (value: unknown): boolean => value === SECRET_MASK;

/**
 * What a stored secret would be kept as, for {@link storedSecretProblem}: `none` when nothing is
 * stored to keep, `unsealed` when the value written with the mask would no longer be a secret
 * (a tool header made non-secret, or made a Variable), `secret` when it stays one.
 */
export type StoredSecret = 'none' | 'unsealed' | 'secret';

/** Why the mask, or a write leaving a stored secret untouched, may not keep it; undefined when it may. */
export function storedSecretProblem(stored: StoredSecret, destinationMoved: boolean): string | undefined {
  if (stored === 'none') return 'is the mask of a secret, and no secret is stored here to keep; send the real value';
  if (stored === 'unsealed') {
    return 'is the mask of a secret, which can only keep a stored value that stays secret; send the real value';
  }
  if (destinationMoved) {
    return (
      'must be given again: the destination moved to another origin (scheme, host and port), ' +
      'and a stored secret is only sent where it was given'
    );
  }
  return undefined;
}

/**
 * Whether a destination changes origin (scheme, host and port; the path may change freely):
 * `after` undefined leaves it as it is. Null stands for a default destination (a provider's public
 * API), an origin of its own; text that is not a URL is compared as it is (it is refused anyway).
 */
export function originMoved(before: string | null, after: string | null | undefined): boolean {
  if (after === undefined) return false;
  return originOf(before) !== originOf(after);
}

function originOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Why a single write-only field may not be saved as `given` (undefined when the write leaves it
 * out), or undefined when it may: a new value or null needs nothing stored; the mask, or leaving
 * the field out, keeps the stored secret only if there is one and its destination stays put.
 */
export function writeOnlyProblem(given: unknown, stored: boolean, destinationMoved: boolean): string | undefined {
  if (given !== undefined && !isMask(given)) return undefined;
  if (given === undefined && !stored) return undefined;
  return storedSecretProblem(stored ? 'secret' : 'none', destinationMoved);
}
