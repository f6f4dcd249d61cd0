import { createHmac } from 'node:crypto';
import type { FieldProblem } from '../errors.js';
import { hexDigestEquals } from '../lib/crypto.js';

/**
 * How far `signature-timestamp` may be from the server's clock, either way: 5 minutes, the window
 * Stripe and Slack give their signed requests. A captured request stops verifying once it has passed.
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const TIMESTAMP_PATH = 'headers.signature-timestamp';

/**
 * The click-to-call `signature`: the lowercase hex HMAC-SHA256 of the exact body, keyed with the
 * agent's API secret; with a timestamp (Unix seconds, as sent in `signature-timestamp`), of
 * `timestamp + "." + body`.
 */
export function signClickToCall(secret: string, body: string | Buffer, timestamp?: string | number): string {
  const hmac = createHmac('sha256', secret);
  if (timestamp !== undefined) hmac.update(`${timestamp}.`);
  return hmac.update(body).digest('hex');
}

export type SignatureVerdict = { ok: true } | { ok: false; code: 'ctc:001' | 'ctc:006'; details?: FieldProblem[] };

/**
 * Checks 4–5 of click to call for an agent that verifies signatures (decision 0031):
 * - `signature` absent or empty: ctc:001; so is `signature-timestamp` when the agent requires it;
 * - `signature-timestamp` sent but not whole Unix seconds: ctc:006;
 * - the signature does not match (compared in constant time): ctc:006, without details;
 * - it matches but the timestamp is more than 300 s from `nowMs`: ctc:006. Details tell only a caller
 *   who proved the secret how far off its clock is.
 * An empty `signature-timestamp` is absent, as an empty `api-key` or `signature` is.
 */
export function verifyClickToCallSignature(input: {
  secret: string;
  rawBody: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  requireTimestamp: boolean;
  nowMs: number;
}): SignatureVerdict {
  if (!input.signature) return { ok: false, code: 'ctc:001' };
  const signature = input.signature.trim();
  const timestamp = input.timestamp?.trim() || undefined;
  if (timestamp === undefined) {
    if (input.requireTimestamp) {
      return {
        ok: false,
        code: 'ctc:001',
        details: [
          {
            path: TIMESTAMP_PATH,
            message:
              'is required by this agent (requireSignatureTimestamp): send the Unix time in seconds and sign timestamp + "." + body',
          },
        ],
      };
    }
    return hexDigestEquals(signClickToCall(input.secret, input.rawBody), signature)
      ? { ok: true }
      : { ok: false, code: 'ctc:006' };
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    return {
      ok: false,
      code: 'ctc:006',
      details: [{ path: TIMESTAMP_PATH, message: 'must be the Unix time in whole seconds, e.g. 1767225600' }],
    };
  }
  if (!hexDigestEquals(signClickToCall(input.secret, input.rawBody, timestamp), signature)) {
    return { ok: false, code: 'ctc:006' };
  }
  const skew = Number(timestamp) - Math.floor(input.nowMs / 1000);
  if (Math.abs(skew) <= SIGNATURE_TOLERANCE_SECONDS) return { ok: true };
  const milliseconds = timestamp.length >= 13 ? ' (it looks like milliseconds: send seconds)' : '';
  return {
    ok: false,
    code: 'ctc:006',
    details: [
      {
        path: TIMESTAMP_PATH,
        message: `is ${Math.abs(skew)} s ${skew < 0 ? 'in the past' : 'in the future'}${milliseconds}; at most ${SIGNATURE_TOLERANCE_SECONDS} s either way is accepted: sign each request as it is sent, with a synchronised clock`,
      },
    ],
  };
}
