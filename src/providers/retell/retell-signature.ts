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
