/**
 * Our outcome vocabulary as the provider mappers share it, and the small readers they use on the
 * providers' JSON. Knowledge of a provider's own shapes stays in its mapper.
 */

/** How a call ended before its outcome is known; `answered` takes the agent's own outcome. */
export type Disposition = 'answered' | 'NO_ANSWER' | 'BUSY' | 'VOICEMAIL' | 'FAILED';

/**
 * The call's outcome: an unanswered disposition as it is; for an answered call, the status the
 * provider's analysis extracted when it is one of the agent's outcomes, else COMPLETED.
 */
export function outcomeOf(disposition: Disposition, status: unknown, outcomes: readonly string[]): string {
  if (disposition !== 'answered') return disposition;
  return typeof status === 'string' && outcomes.includes(status) ? status : 'COMPLETED';
}

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The greatest time a JavaScript date holds, in ms either side of 1970. */
const LAST_DATE_MS = 8.64e15;

/** A number a date can be made of (ms since 1970); anything else, a time beyond a date's range included, is none. */
export const dateMs = (value: unknown): number | undefined =>
  typeof value === 'number' && Math.abs(value) <= LAST_DATE_MS ? value : undefined;
