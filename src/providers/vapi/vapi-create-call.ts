import type { OutboundClient } from '../../lib/outbound-http.js';
import type { OpenedProviderCredential } from '../../provider-credentials/provider-credentials.service.js';

/** Vapi's API when a credential names no base URL (the SDK's default environment). */
export const VAPI_DEFAULT_BASE_URL = 'https://api.vapi.ai';

/** A refusal from Vapi, shaped as the SDK's errors are (`statusCode`, `body`) for `describeProviderError`. */
export class VapiRequestError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'VapiRequestError';
  }
}

/**
 * `POST /call`, sent straight through the guarded outbound client rather than through the SDK: the
 * one request on the way to the lead's phone ringing (speed to lead, issue 20). Through the SDK it
 * cost about 1.9 ms of CPU (a client built, WHATWG fetch, its serialisation layers) against about
 * 0.3 ms as one undici request, measured on this machine. The body is the SDK's CreateCallDTO; the
 * tests check it against Vapi's published schema. Returns Vapi's call (its `id`); throws a
 * VapiRequestError when Vapi refuses or cannot be reached.
 */
export async function createVapiCall(
  send: OutboundClient['send'],
  credential: OpenedProviderCredential,
  body: Record<string, unknown>,
): Promise<{ id?: string }> {
  const base = (credential.baseUrl ?? VAPI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const result = await send({
    method: 'POST',
    url: `${base}/call`,
    headers: {
      authorization: `Bearer ${credential.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
    timeoutMs: 15_000,
    maxResponseBytes: 1024 * 1024,
  });
  if (!result.ok) throw new VapiRequestError(result.failure.message);
  const text = result.body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (result.status < 200 || result.status >= 300) {
    throw new VapiRequestError('Vapi refused the request', result.status, parsed);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new VapiRequestError('Vapi answered without a JSON call');
  return parsed as { id?: string };
}
