import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signature's timestamp may be from now, as `Retell.verify` allows. */
const RETELL_SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/**
 * Retell signs its webhooks and custom-function calls with `x-retell-signature: v=<unix ms>,d=<hex
 * HMAC-SHA256 of body + timestamp, keyed with the API key>`, and refuses timestamps more than five
 * minutes off. Checked here as the SDK's `Retell.verify` checks it (the same header grammar, the same
 * tolerance; test/provider-mappers.test.ts compares the two on signatures the SDK makes and on
 * broken ones), with node:crypto over the raw bytes, synchronously: the SDK's Web Crypto
 * verification imported the key, copied the body twice and went through the thread pool for each
 * webhook, about a tenth of our process's busy time per report (decision 0062).
 */
export function verifyRetellSignature(
  raw: Buffer | string,
  apiKey: string,
  signature: string | undefined,
  now: number = Date.now(),
): boolean {
  const match = signature === undefined ? null : /^v=(\d+),d=([0-9a-f]{64})$/i.exec(signature);
  if (!match?.[1] || !match[2]) return false;
  const timestamp = Number(match[1]);
  if (!Number.isSafeInteger(timestamp) || Math.abs(now - timestamp) > RETELL_SIGNATURE_TOLERANCE_MS) return false;
  // What Retell signs is the body followed by the timestamp, as the number reads (no leading zeros).
  const expected = createHmac('sha256', apiKey).update(raw).update(String(timestamp)).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}

/**
 * Whether `x-retell-signature` could verify at all: `v=<unix ms>,d=<64 hex>` with a timestamp within
 * five minutes. Checked on the headers alone, before the body is read (decision 0029); the digest is
 * checked by `verifyRetellSignature` once the body names its credential.
 */
export function hasFreshRetellSignatureHeader(signature: string, now: number = Date.now()): boolean {
  const match = /^v=(\d{1,16}),d=[0-9a-f]{64}$/i.exec(signature);
  return match !== null && Math.abs(now - Number(match[1])) <= RETELL_SIGNATURE_TOLERANCE_MS;
}
