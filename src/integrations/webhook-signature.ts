import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks' format). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key Standard Webhooks signs with: the base64 part of `whsec_…`, decoded. */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

export interface SignWebhookInput {
  /** The exact bytes sent. */
  body: Buffer;
  /** The same on every attempt of one delivery. */
  webhookId: string;
  /** Seconds since the epoch, fresh on every attempt. */
  timestamp: number;
  /** The current secret first, then a previous one still honoured during a rotation. */
  secrets: [string, ...string[]];
}

/**
 * The signature headers of one attempt (docs/interface.md#call-outcome-webhook): `x-webhook-signature`, the lowercase hex
 * HMAC-SHA256 of the body keyed with the current secret exactly as shown (`whsec_…`); while a
 * rotated-out secret is still honoured, `x-webhook-signature-previous` is the same with that one.
 * Standard Webhooks: `webhook-id`, `webhook-timestamp`, and `webhook-signature` with one `v1,<base64>`
 * per secret, space separated, over `<id>.<timestamp>.<body>` keyed with the secret's decoded bytes.
 */
export function signWebhook({ body, webhookId, timestamp, secrets }: SignWebhookInput): Record<string, string> {
  const [current, previous] = secrets;
  const hex = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');
  const signed = Buffer.concat([Buffer.from(`${webhookId}.${timestamp}.`), body]);
  const standard = secrets
    .map((secret) => `v1,${createHmac('sha256', standardKey(secret)).update(signed).digest('base64')}`)
    .join(' ');
  return {
    'x-webhook-signature': hex(current),
    ...(previous ? { 'x-webhook-signature-previous': hex(previous) } : {}),
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard,
  };
}

export interface WebhookHeadersInput {
  /** The exact bytes sent. */
  body: Buffer;
  webhookId: string;
  /** Seconds since the epoch. */
  timestamp: number;
  userAgent: string;
  /** The bearer token, opened; undefined when the integration has none. */
  bearerToken?: string;
  /** The secrets to sign with, current first; undefined when signing is off. */
  secrets?: [string, ...string[]];
}

/**
 * Every header of one webhook request (docs/interface.md#call-outcome-webhook): content type, user agent, the bearer token,
 * and the signatures. `webhook-id` and `webhook-timestamp` are sent even when signing is off, so
 * receivers can deduplicate either way.
 */
export function webhookHeaders(input: WebhookHeadersInput): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': input.userAgent };
  if (input.bearerToken !== undefined) headers.authorization = `Bearer ${input.bearerToken}`;
  if (input.secrets) {
    Object.assign(headers, signWebhook({ ...input, secrets: input.secrets }));
  } else {
    headers['webhook-id'] = input.webhookId;
    headers['webhook-timestamp'] = String(input.timestamp);
  }
  return headers;
}
