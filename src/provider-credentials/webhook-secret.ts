import { constantTimeEquals } from '../lib/crypto.js';

/**
 * How long a changed webhook secret keeps opening webhooks (decision 0096): a call under way may go on
 * sending the secret it started with, calls are placed with it until the agents are published again,
 * and Vapi retries a report for up to about 17 minutes (decision 0095). 24 hours, as an
 * integration's old signing secret (decision 0013); revocable at once.
 */
export const PREVIOUS_WEBHOOK_SECRET_MS = 24 * 60 * 60 * 1000;

/** A credential's webhook secrets, opened: the current one, and the one it replaced while that still counts. */
export interface WebhookSecrets {
  webhookSecret: string | null;
  /** The secret before the last change and when it changed; null when there is none or it was revoked. */
  previousWebhookSecret: { secret: string; changedAt: Date } | null;
}

/** Until when a secret replaced at `changedAt` opens webhooks, or null when it no longer does. */
export function previousSecretExpiresAt(changedAt: Date | null, now: Date): Date | null {
  if (!changedAt) return null;
  const expiresAt = new Date(changedAt.getTime() + PREVIOUS_WEBHOOK_SECRET_MS);
  return expiresAt > now ? expiresAt : null;
}

/**
 * Whether `presented` opens a webhook of the credential: its current secret, or the one it replaced
 * until 24 hours after the change. Both compared in constant time.
 */
export function opensWebhook(credential: WebhookSecrets, presented: string, now: Date): boolean {
  if (credential.webhookSecret && constantTimeEquals(credential.webhookSecret, presented)) return true;
  const previous = credential.previousWebhookSecret;
  return (
    previous !== null &&
    previousSecretExpiresAt(previous.changedAt, now) !== null &&
    constantTimeEquals(previous.secret, presented)
  );
}
