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
