import { createHmac } from 'node:crypto';

/** Retell's `x-retell-signature` for `body`: `v=<ms>,d=<hex HMAC-SHA256 of body + ms>`, keyed with the API key. */
export function retellSignature(key: string, body: string, at: number = Date.now()): string {
  const digest = createHmac('sha256', key)
    .update(body + at)
    .digest('hex');
  return `v=${at},d=${digest}`;
}
