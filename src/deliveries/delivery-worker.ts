import { setMaxListeners } from 'node:events';
import { buildOutcomePayload } from '../integrations/outcome-payload.js';
import { matchesTriggerConditions } from '../integrations/trigger-conditions.js';
import { webhookHeaders } from '../integrations/webhook-signature.js';
import type { SecretBox } from '../lib/crypto.js';
import type { OutboundClient } from '../lib/outbound-http.js';
import type {
  ClaimedCall,
  ClaimedDelivery,
  DeliveriesRepository,
  DeliveryCompletion,
} from './deliveries.repository.js';
import { judgeAttempt, RESPONSE_EXCERPT_BYTES, WEBHOOK_TIMEOUT_MS, WEBHOOK_USER_AGENT } from './delivery-attempt.js';

export interface DeliveryWorkerDeps {
  repository: DeliveriesRepository;
  /** The client for webhooks: address-guarded, 5 s to connect. */
  outbound: OutboundClient;
  secretBox: SecretBox;
  retryScheduleSeconds: readonly number[];
  /** Attempts in flight at once in this process, default 256. */
  maxInFlight?: number;
  /** Attempts in flight at once per integration in this process, default 16. */
  perIntegration?: number;
  /** How long a claim lasts: a delivery whose worker died is claimed again after it. Default 50. */
  leaseSeconds?: number;
  /**
   * How long an idle worker waits at most before it looks again, default 5 s (decision 0079). It
   * wakes by itself when the soonest pending delivery it knows of falls due (a retry, a lapsing
   * lease), and at once on news (a call ended, a delivery retried by hand, a slot freed); this bounds
   * only what no claim of its own could have seen: a retry or a claim another process wrote since,
   * and then died.
   */
  maxIdleMs?: number;
  /** How long `stop` lets attempts under way finish before abandoning them, default 10 s. */
  shutdownGraceMs?: number;
  random?: () => number;
  onError: (error: unknown) => void;
  /**
   * A delivery was settled by this worker: `delivered`, the attempt's error code
   * (`webhook:http_status`, `webhook:connect`, …), `dropped` (its trigger conditions did not
   * match) or `unsent` (no payload could be built). The metrics count them.
   */
  onAttempted?: (result: string) => void;
}

const CLAIM_BATCH = 200;

/** The result label of a settled delivery, from a small fixed set (see `onAttempted`). */
function resultOf(completion: DeliveryCompletion): string {
  if (completion.kind === 'dropped') return 'dropped';
  if (completion.kind === 'failed_unsent') return 'unsent';
  return completion.attempt.errorCode ?? 'delivered';
}
/**
 * While due deliveries wait for room, claims start at least this far apart: room frees one attempt
 * at a time, and a claim per freed slot would cost a statement per delivery.
 */
const BACKLOG_CLAIM_SPACING_MS = 5;
/**
 * Claims that fail (the database is away) are tried again after a pause that starts at the first and
 * doubles up to the second: a long outage costs a log line every few seconds, not two a second. News
 * (the change feed reconnected, a call ended) still wakes the worker at once.
 */
const FIRST_FAILURE_PAUSE_MS = 500;
const MAX_FAILURE_PAUSE_MS = 5000;

function payloadCall(call: ClaimedCall) {
  return {
    ...call,
    startedAt: call.startedAt?.toISOString() ?? null,
    endedAt: call.endedAt?.toISOString() ?? null,
  };
}

/**
 * Sends due deliveries: claims them from the table (SKIP LOCKED, with a lease), sends each on its own
 * as soon as it is claimed, and records each outcome as it comes. A slow receiver holds at most
 * `perIntegration` of the `maxInFlight` slots, so other integrations keep flowing past it.
 */
export function createDeliveryWorker({
  repository,
  outbound,
  secretBox,
  retryScheduleSeconds,
  maxInFlight = 256,
  perIntegration = 16,
  leaseSeconds = 50,
  maxIdleMs = 5000,
  shutdownGraceMs = 10_000,
  random = Math.random,
  onError,
  onAttempted = () => {},
}: DeliveryWorkerDeps) {
  /** Deliveries whose attempt is under way (the slots in use). */
  const held = new Set<string>();
  /** Attempts and the writes of their outcomes, until written: what a shutdown waits for. */
  const work = new Set<Promise<void>>();
  const heldPerIntegration = new Map<string, number>();
  const abandon = new AbortController();
  // Every attempt under way listens on it: hundreds at once is normal, not a leak.
  setMaxListeners(0, abandon.signal);
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let wakeRequested = false;
  /** Due deliveries are waiting for room this worker's attempts under way will free. */
  let backlogged = false;
  let lastClaimAt = 0;
  /** Claims failed in a row. */
  let failures = 0;
  let wakeUp: (() => void) | undefined;
  /** Deliveries were given back to the queue by a shutdown, due at once for another worker. */
  let gaveBack = false;
  /** Moves the pause under way to end by `at` (a `performance.now()` time) if that is sooner. */
  let endPauseBy: ((at: number) => void) | undefined;
  /** When the soonest pending delivery this worker knows of falls due (`performance.now()` time). */
  let soonestDue = Number.POSITIVE_INFINITY;
  /** The soonest of this worker's own retries recorded while a claim was under way, which it may not have seen. */
  let dueDuringClaim = Number.POSITIVE_INFINITY;

  // Secrets are opened once each: a worker sends thousands of deliveries per integration.
  const opened = new Map<string, string>();
  const open = (sealed: string, integrationId: string): string => {
    let plain = opened.get(sealed);
    if (plain === undefined) {
      if (opened.size >= 1000) opened.clear();
      plain = secretBox.decrypt(sealed, integrationId);
      opened.set(sealed, plain);
    }
    return plain;
  };

  const wake = () => {
    wakeRequested = true;
    wakeUp?.();
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      let endsAt = performance.now() + ms;
      let timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        endPauseBy = undefined;
        resolve();
      }
      wakeUp = done;
      endPauseBy = (at) => {
        if (at >= endsAt) return;
        clearTimeout(timer);
        endsAt = at;
        timer = setTimeout(done, Math.max(0, at - performance.now()));
      };
    });

  /** A pending delivery falls due at `at` (a `performance.now()` time): be awake for it. */
  const expectDue = (at: number) => {
    soonestDue = Math.min(soonestDue, at);
    dueDuringClaim = Math.min(dueDuringClaim, at);
    endPauseBy?.(at);
  };

  /** The body to send, or why there is nothing to send. */
  function payloadOf(
    delivery: ClaimedDelivery,
  ): { body: string; stored?: { text: string; truncated: boolean } } | DeliveryCompletion {
    const base = { id: delivery.id, claim: delivery.claim, integrationId: delivery.integration.id };
    if (!delivery.integration.enabled) {
      return {
        ...base,
        kind: 'failed_unsent',
        reason: delivery.integration.disabledReason ?? 'The integration is disabled',
      };
    }
    if (delivery.payload !== null) return { body: delivery.payload };
    const call = delivery.call;
    if (!call) return { ...base, kind: 'failed_unsent', reason: 'The call is not available' };
    // Trigger conditions decide once, before the first attempt; a stored payload means they matched.
    const subject = {
      status: call.outcome ?? 'FAILED',
      durationSeconds: call.durationSeconds,
      endedReason: call.endedReason,
      collectedData: call.collectedData,
      variables: call.variables,
    };
    if (!matchesTriggerConditions(delivery.integration.triggerConditions, subject)) return { ...base, kind: 'dropped' };
    const built = buildOutcomePayload(payloadCall(call), call.agentName);
    const text = built.body.toString('utf8');
    return { body: text, stored: { text, truncated: built.truncated } };
  }

  function headersOf(delivery: ClaimedDelivery, body: Buffer, timestamp: number): Record<string, string> {
    const { integration } = delivery;
    const secrets: [string, ...string[]] | undefined = integration.signing
      ? [
          open(integration.signingSecretSealed, integration.id),
          ...(integration.previousSecretSealed ? [open(integration.previousSecretSealed, integration.id)] : []),
        ]
      : undefined;
    return webhookHeaders({
      body,
      webhookId: delivery.webhookId,
      timestamp,
      userAgent: WEBHOOK_USER_AGENT,
      bearerToken: integration.authorizationSealed ? open(integration.authorizationSealed, integration.id) : undefined,
      secrets,
    });
  }

  /** One attempt; undefined when it was abandoned by a shutdown (the delivery is then released). */
  async function attempt(delivery: ClaimedDelivery): Promise<DeliveryCompletion | undefined> {
    const prepared = payloadOf(delivery);
    if ('kind' in prepared) return prepared;
    const body = Buffer.from(prepared.body, 'utf8');
    const at = new Date();
    const result = await outbound.send({
      method: 'POST',
      url: delivery.integration.url,
      headers: headersOf(delivery, body, Math.floor(at.getTime() / 1000)),
      body,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_EXCERPT_BYTES,
      signal: abandon.signal,
    });
    if (!result.ok && result.failure.kind === 'aborted') return undefined;
    const judged = judgeAttempt(result, {
      schedule: retryScheduleSeconds,
      retriesUsed: delivery.retriesUsed,
      finalAttempt: delivery.finalAttempt,
      random,
      now: new Date(),
    });
    return {
      id: delivery.id,
      claim: delivery.claim,
      integrationId: delivery.integration.id,
      kind: 'attempted',
      attempt: { at, ...judged.attempt },
      payload: prepared.stored,
      next: judged.next,
      health: judged.health,
    };
  }

  function dispatch(delivery: ClaimedDelivery): void {
    const integrationId = delivery.integration.id;
    held.add(delivery.id);
    heldPerIntegration.set(integrationId, (heldPerIntegration.get(integrationId) ?? 0) + 1);
    const done: Promise<void> = attempt(delivery)
      .then(
        (completion) => {
          // The slot frees as soon as the receiver has answered: the record is written in a batch.
          release(delivery.id, integrationId);
          if (!completion) {
            gaveBack = true;
            return repository.release([{ id: delivery.id, claim: delivery.claim }]);
          }
          onAttempted(resultOf(completion));
          return repository.complete(completion).then(() => {
            // Its retry is due that long after it was recorded: this worker wakes for it.
            if (completion.kind === 'attempted' && completion.next.state === 'pending') {
              expectDue(performance.now() + completion.next.delaySeconds * 1000);
            }
          });
        },
        (error: unknown) => {
          release(delivery.id, integrationId);
          throw error;
        },
      )
      .catch(onError)
      .finally(() => work.delete(done));
    work.add(done);
  }

  function release(id: string, integrationId: string): void {
    const wasFull = held.size >= maxInFlight || (heldPerIntegration.get(integrationId) ?? 0) >= perIntegration;
    held.delete(id);
    const left = (heldPerIntegration.get(integrationId) ?? 1) - 1;
    if (left === 0) heldPerIntegration.delete(integrationId);
    else heldPerIntegration.set(integrationId, left);
    // Deliveries may be waiting for exactly this slot.
    if (wasFull || backlogged) wake();
  }

  async function run(): Promise<void> {
    while (running) {
      const free = maxInFlight - held.size;
      if (free <= 0) {
        // A finishing attempt frees a slot and wakes the worker.
        await pause(maxIdleMs);
        continue;
      }
      if (backlogged) {
        // At least one turn of the event loop between claims: with the embedded database a claim runs
        // on this thread, and back-to-back claims would leave no time to read the receivers' answers.
        const wait = lastClaimAt + BACKLOG_CLAIM_SPACING_MS - performance.now();
        await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
        if (!running) continue;
      }
      wakeRequested = false;
      lastClaimAt = performance.now();
      const limit = Math.min(maxInFlight - held.size, CLAIM_BATCH);
      let claimed: ClaimedDelivery[] = [];
      let dueCount = 0;
      let nextDueInMs: number | null = null;
      dueDuringClaim = Number.POSITIVE_INFINITY;
      try {
        const room = new Map([...heldPerIntegration].map(([id, count]) => [id, perIntegration - count]));
        ({
          deliveries: claimed,
          dueCount,
          nextDueInMs,
        } = await repository.claim({ limit, perIntegration, room, leaseSeconds, lookAheadMs: maxIdleMs }));
      } catch (error) {
        onError(error);
        failures++;
        await pause(Math.min(FIRST_FAILURE_PAUSE_MS * 2 ** (failures - 1), MAX_FAILURE_PAUSE_MS));
        continue;
      }
      failures = 0;
      // What the claim saw pending, and this worker's own retries recorded after its snapshot.
      soonestDue = Math.min(
        nextDueInMs === null ? Number.POSITIVE_INFINITY : performance.now() + nextDueInMs,
        dueDuringClaim,
      );
      if (!running) {
        gaveBack ||= claimed.length > 0;
        await repository.release(claimed).catch(onError);
        return;
      }
      for (const delivery of claimed) dispatch(delivery);
      backlogged = dueCount > claimed.length;
      // A short claim means nothing more is due now: wait for news (a call ended, a slot freed), for the
      // soonest pending delivery to fall due, or at most `maxIdleMs`.
      if (claimed.length < limit && !wakeRequested) {
        await pause(Math.max(0, Math.min(soonestDue - performance.now(), maxIdleMs)));
      }
    }
  }

  return {
    start(): void {
      if (running) return;
      running = true;
      loop = run().catch(onError);
    },

    /** Something may be due now (a call ended, a delivery was retried by hand). */
    wake,

    /** Attempts under way, for metrics and tests. */
    get inFlight(): number {
      return held.size;
    },

    /**
     * Stops claiming, lets attempts under way finish for up to the grace period, then abandons the
     * rest and gives their deliveries back, due at once for another worker. Resolves true when it
     * gave any back: the other workers are then worth telling.
     */
    async stop(): Promise<boolean> {
      running = false;
      wake();
      await loop;
      const pending = () => Promise.all(work);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), shutdownGraceMs);
      });
      if ((await Promise.race([pending(), graceOver])) === 'late') {
        abandon.abort();
        await pending();
      }
      clearTimeout(timer);
      return gaveBack;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
