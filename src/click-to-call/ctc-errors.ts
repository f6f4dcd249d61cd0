import type { FieldProblem } from '../errors.js';

/**
 * The click-to-call error codes (docs/interface.md#click-to-call lists them in the order of the checks),
 * ctc:011–012 among them for `Idempotency-Key` misuse (docs/decisions/0003-idempotency.md), ctc:013 for a
 * number on the organization's do-not-call list (docs/decisions/0047-do-not-call-list.md).
 */
export const CTC_ERRORS = {
  'ctc:001': { status: 400, message: 'Missing headers' },
  'ctc:002': { status: 500, message: 'Error fetching agent' },
  'ctc:003': { status: 403, message: 'Invalid API key' },
  'ctc:004': { status: 400, message: 'Agent is disabled' },
  'ctc:005': { status: 400, message: 'Agent not configured' },
  'ctc:006': { status: 403, message: 'Invalid signature' },
  'ctc:007': { status: 400, message: 'Call already in progress' },
  'ctc:008': { status: 500, message: 'Error initiating call' },
  'ctc:009': { status: 400, message: 'Invalid request body' },
  'ctc:010': { status: 429, message: 'Too many requests' },
  'ctc:011': { status: 400, message: 'Invalid Idempotency-Key' },
  'ctc:012': { status: 409, message: 'A request with this Idempotency-Key is in progress' },
  // The organization's do-not-call list (issue 19, decision 0047).
  'ctc:013': { status: 403, message: 'Number is on the do-not-call list' },
} as const;

export type CtcCode = keyof typeof CTC_ERRORS;

export interface CtcResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function ctcError(
  code: CtcCode,
  requestId: string,
  extra: { details?: FieldProblem[]; headers?: Record<string, string>; callId?: string } = {},
): CtcResponse {
  const { status, message } = CTC_ERRORS[code];
  return {
    status,
    headers: extra.headers,
    body: {
      success: false,
      code,
      message,
      requestId,
      ...(extra.details ? { details: extra.details } : {}),
      ...(extra.callId ? { callId: extra.callId } : {}),
    },
  };
}
