import { cutText } from './text-budget.js';

/**
 * An error as a log line can hold it: its type, message, code and stack, and those of its causes,
 * each cut to a few KB. Logged as is, a database driver's error carries the statement's parameters:
 * with a 480 MB transcript among them it could not be turned into JSON at all, and the log said
 * only "[unable to serialize, circular reference is too complex to analyze]"
 * (docs/decisions/0027-bounded-call-records.md).
 */
export function loggableError(error: unknown, depth = 0): Record<string, unknown> {
  if (error === null || typeof error !== 'object') return { message: cutText(String(error), 2048) };
  const { name, message, code, stack, cause } = error as Record<string, unknown>;
  return {
    type: typeof name === 'string' ? name : 'Error',
    message: cutText(String(message ?? ''), 2048),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof stack === 'string' ? { stack: cutText(stack, 4096) } : {}),
    ...(cause !== undefined && depth < 3 ? { cause: loggableError(cause, depth + 1) } : {}),
  };
}
