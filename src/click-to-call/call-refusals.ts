import { ApiError, type FieldProblem } from '../errors.js';
import { CTC_ERRORS, type CtcCode, type CtcResponse, ctcError } from './ctc-errors.js';

/**
 * A check that refused to place a call, in click to call's terms: its code and what it has to say.
 * Click to call answers it as the contract's ctc body (`refusalToCtc`), `POST /v1/calls` as a
 * management-API error (`refusalToApiError`, docs/decisions/0037-calls-api-and-call-details.md).
 */
export interface CallRefusal {
  code: CtcCode;
  /** What is wrong, by field or header (ctc:009, ctc:011, a signature timestamp). */
  details?: FieldProblem[];
  /** ctc:010: seconds until the agent's next minute. */
  retryAfterSeconds?: number;
  /** ctc:008: the call recorded as failed, when there is one. */
  callId?: string;
  /** ctc:007: which guard refused: a call to the number is open, or the agent is at `maxConcurrentCalls`. */
  reason?: 'number_busy' | 'at_capacity';
}

/** A detail of a `POST /v1/calls` refusal: the field, what is wrong with it, and click to call's code for it. */
export interface CallProblem extends FieldProblem {
  code: CtcCode;
  /** ctc:008: the call recorded as failed. */
  callId?: string;
}

export function refusalToCtc(refusal: CallRefusal, requestId: string): CtcResponse {
  return ctcError(refusal.code, requestId, {
    details: refusal.details,
    callId: refusal.callId,
    headers: refusal.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(refusal.retryAfterSeconds) },
  });
}

/**
 * The management-API error for a refusal: a refused body or key is 422, a state of the agent or a
 * call in the way is 409, a number on the do-not-call list 403, the rate limit 429, a failure 500;
 * each detail carries the ctc code.
 */
export function refusalToApiError(refusal: CallRefusal): ApiError {
  const { code } = refusal;
  const message = CTC_ERRORS[code].message;
  const problems = (details: FieldProblem[]): CallProblem[] => details.map((detail) => ({ ...detail, code }));
  const one = (path: string, text: string, extra: { callId?: string } = {}): CallProblem[] => [
    { path, message: text, code, ...extra },
  ];
  switch (code) {
    case 'ctc:009':
    case 'ctc:011':
      return new ApiError('validation', message, problems(refusal.details ?? []));
    case 'ctc:012':
      return new ApiError(
        'conflict',
        message,
        one('headers.idempotency-key', 'the first request with this key is still being answered: ask again shortly'),
      );
    case 'ctc:010':
      return new ApiError(
        'rate_limited',
        message,
        one('$.agentId', 'is over its rateLimitPerMinute: Retry-After says when it takes calls again'),
      );
    case 'ctc:013':
      return new ApiError('forbidden', message, one('$.phone', "is on the organization's do-not-call list"));
    case 'ctc:004':
      return new ApiError('conflict', message, one('$.agentId', 'is disabled'));
    case 'ctc:005':
      return new ApiError(
        'conflict',
        message,
        one('$.agentId', 'is not configured: it needs a provider, and on Vapi or Retell a credential and a fromNumber'),
      );
    case 'ctc:007':
      return new ApiError(
        'conflict',
        message,
        refusal.reason === 'at_capacity'
          ? one('$.agentId', 'has as many calls open as its maxConcurrentCalls')
          : one('$.phone', 'has a call through this agent still open'),
      );
    case 'ctc:008':
      return new ApiError(
        'internal',
        message,
        refusal.callId
          ? one(
              '$',
              'the provider refused or failed to start the call: it is recorded as ended (endedReason "failed_to_start", its error says why)',
              { callId: refusal.callId },
            )
          : one('$', 'the call could not be recorded'),
      );
    default:
      // ctc:002: the database failed; the credential codes (ctc:001, 003, 006) are not asked here.
      return new ApiError('internal', 'Internal error', one('$', 'the server failed; the log has it under requestId'));
  }
}
