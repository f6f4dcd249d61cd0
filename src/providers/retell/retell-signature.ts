/**
 * Retell signs its webhooks and custom-function calls with `x-retell-signature: v=<unix ms>,d=<hex
 * HMAC-SHA256 of body + timestamp, keyed with the API key>`; the SDK's `Retell.verify` checks it and
 * refuses timestamps more than five minutes off. It is async: a forgotten `await` would accept
 * everything (a Promise is truthy), so this is the one place it is called, and it returns a boolean.
 */
export async function verifyRetellSignature(
  rawBody: string,
  apiKey: string,
  signature: string | undefined,
): Promise<boolean> {
  if (!signature) return false;
  // Loaded on the first Retell webhook: a server without Retell agents does not pay for the SDK.
  const { default: Retell } = await import('retell-sdk');
  try {
    return (await Retell.verify(rawBody, apiKey, signature)) === true;
  } catch {
    return false;
  }
}

/** How far a signature's timestamp may be from now, as `Retell.verify` allows. */
const RETELL_SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/**
 * Whether `x-retell-signature` could verify at all: `v=<unix ms>,d=<64 hex>` with a timestamp within
 * five minutes. Checked on the headers alone, before the body is read (decision 0029); the digest is
 * checked by `verifyRetellSignature` once the body names its credential.
 */
export function hasFreshRetellSignatureHeader(signature: string, now: number = Date.now()): boolean {
  const match = /^v=(\d{1,16}),d=[0-9a-f]{64}$/i.exec(signature);
  return match !== null && Math.abs(now - Number(match[1])) <= RETELL_SIGNATURE_TOLERANCE_MS;
}
