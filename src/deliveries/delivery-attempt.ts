/**
 * One webhook attempt, as pure functions: the request a delivery sends, and what the answer (or the
 * lack of one) means for the delivery, its retry schedule and its integration (docs/interface.md#call-outcome-webhook).
 */
import type { OutboundResult } from '../lib/outbound-http.js';

/** The contract's retry delays, in seconds: about three days in all. */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
/** Each delay is lengthened by up to this fraction, so retries of a burst spread out. */
export const RETRY_JITTER = 0.2;
/** An attempt succeeds with a 2xx within this time, connecting included. */
export const WEBHOOK_TIMEOUT_MS = 15_000;
export const WEBHOOK_CONNECT_TIMEOUT_MS = 5_000;
/** The part of the receiver's answer kept in the attempt log. */
export const RESPONSE_EXCERPT_BYTES = 20 * 1024;
export const WEBHOOK_USER_AGENT = 'Switchboard-Webhooks/1';
/** Statuses whose `Retry-After` is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 502, 504]);

/**
 * Seconds a `Retry-After` header asks for (delta-seconds or an HTTP date), or undefined when it is
 * absent or unreadable.
 */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now.getTime()) / 1000);
}

/**
 * The delay before the next attempt after `retriesUsed` delays of the schedule, or undefined when the
 * schedule is spent. A `Retry-After` is honoured within 1–2× the scheduled delay; otherwise the
 * scheduled delay gets up to 20 % jitter.
 */
export function nextDelaySeconds(
  schedule: readonly number[],
  retriesUsed: number,
  random: () => number,
  retryAfter?: number,
): number | undefined {
  const scheduled = schedule[retriesUsed];
  if (scheduled === undefined) return undefined;
  if (retryAfter !== undefined) return Math.min(Math.max(retryAfter, scheduled), 2 * scheduled);
  return scheduled * (1 + RETRY_JITTER * random());
}

export interface JudgedAttempt {
  attempt: {
    status: number | null;
    latencyMs: number;
    error: string | null;
    errorCode: string | null;
    responseExcerpt: string | null;
  };
  next: { state: 'delivered' | 'failed' } | { state: 'pending'; delaySeconds: number; retriesUsed: number };
  health: 'ok' | 'failing' | 'gone';
}

/** What an attempt's outcome means: the log entry, the delivery's next state, the receiver's health. */
export function judgeAttempt(
  result: OutboundResult,
  context: { schedule: readonly number[]; retriesUsed: number; finalAttempt: boolean; random: () => number; now: Date },
): JudgedAttempt {
  const latencyMs = Math.round(result.latencyMs);
  if (result.ok && result.status >= 200 && result.status < 300) {
    return {
      attempt: {
        status: result.status,
        latencyMs,
        error: null,
        errorCode: null,
        responseExcerpt: excerpt(result.body),
      },
      next: { state: 'delivered' },
      health: 'ok',
    };
  }
  let attempt: JudgedAttempt['attempt'];
  let retryAfter: number | undefined;
  if (result.ok) {
    const { status } = result;
    const [error, errorCode] =
      status === 410
        ? ['HTTP 410 Gone: the integration is disabled', 'webhook:gone']
        : status >= 300 && status < 400
          ? [`HTTP ${status}: redirects are not followed`, 'webhook:redirect']
          : [`HTTP ${status}`, 'webhook:http_status'];
    attempt = { status, latencyMs, error, errorCode, responseExcerpt: excerpt(result.body) };
    if (status === 410) return { attempt, next: { state: 'failed' }, health: 'gone' };
    if (RETRY_AFTER_STATUSES.has(status)) retryAfter = retryAfterSeconds(result.headers['retry-after'], context.now);
  } else {
    attempt = {
      status: null,
      latencyMs,
      error: result.failure.message,
      errorCode: `webhook:${result.failure.kind}`,
      responseExcerpt: null,
    };
  }
  const delaySeconds = context.finalAttempt
    ? undefined
    : nextDelaySeconds(context.schedule, context.retriesUsed, context.random, retryAfter);
  return {
    attempt,
    next:
      delaySeconds === undefined
        ? { state: 'failed' }
        : { state: 'pending', delaySeconds, retriesUsed: context.retriesUsed + 1 },
    health: 'failing',
  };
}

function excerpt(body: Buffer): string | null {
  return body.length === 0 ? null : body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}
