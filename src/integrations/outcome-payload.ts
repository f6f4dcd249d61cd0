import type { TranscriptTurn } from '../db/schema/index.js';

/** Bodies over this are cut, transcript first, and say so (docs/interface.md#call-outcome-webhook). */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** What the payload is built from: an ended call as the calls API shows it, and its agent's name. */
export interface EndedCall {
  id: string;
  agentId: string;
  /** The agent's number, or for a simulator agent without one SIMULATED_CALLER_ID. */
  from: string;
  to: string;
  outcome: string | null;
  endedReason: string | null;
  transcript: TranscriptTurn[];
  collectedData: Record<string, unknown>;
  variables: Record<string, string>;
  startedAt: string | null;
  endedAt: string | null;
  durationSeconds: number | null;
  /** `outbound` (the default: a call recorded before issue 17 was one) or `inbound`. */
  direction?: string;
  /** The provider's summary; absent or null: none. */
  summary?: string | null;
  /** The recording's http(s) URL; absent or null: none. */
  recordingUrl?: string | null;
  /** What the end-of-call report said that could not be kept as it was; absent: none. */
  warnings?: string[];
  /** The campaign and contact the call was placed for; absent or null: not a campaign's call. */
  campaignId?: string | null;
  contactId?: string | null;
}

/**
 * The call-outcome payload (docs/interface.md#call-outcome-webhook) as the exact bytes to send. The same call
 * always gives the same bytes, so every attempt of a delivery signs the same body. When the JSON
 * would exceed 256 KiB, the oldest transcript turns go first, then the collected data, and
 * `truncated` says what was removed. `test` marks the sample that "Send test" sends. Every field of
 * the calls API's view the payload shows is there, null when the call has none (decision 0037).
 */
export function buildOutcomePayload(
  call: EndedCall,
  agentName: string,
  { test = false }: { test?: boolean } = {},
): { body: Buffer; truncated: boolean } {
  const payload = {
    event: 'call.completed',
    // Only "Send test" deliveries say so: a real call's payload is exactly the contract's.
    ...(test ? { test: true } : {}),
    callId: call.id,
    agentId: call.agentId,
    agent: agentName,
    from: call.from,
    to: call.to,
    status: call.outcome ?? 'FAILED',
    transcript: call.transcript.map(({ role, text, at, name }) =>
      name ? { role, name, text, at } : { role, text, at },
    ),
    collectedData: call.collectedData,
    variables: call.variables,
    startedAt: call.startedAt,
    endedAt: call.endedAt,
    durationSeconds: call.durationSeconds,
    endedReason: call.endedReason,
    // Issue 17's additions, after the contract's fields: always present, null when there is none.
    direction: call.direction ?? 'outbound',
    summary: call.summary ?? null,
    recordingUrl: call.recordingUrl ?? null,
    warnings: call.warnings ?? [],
    // Issue 19's: the campaign and its contact, null for a call no campaign placed.
    campaignId: call.campaignId ?? null,
    contactId: call.contactId ?? null,
  };
  let body = Buffer.from(JSON.stringify(payload));
  if (body.length <= MAX_PAYLOAD_BYTES) return { body, truncated: false };

  // Remove the fewest oldest turns that make it fit (binary search over how many are kept).
  const turns = payload.transcript;
  const withTurns = (kept: number, collectedData: Record<string, unknown>) =>
    Buffer.from(
      JSON.stringify({
        ...payload,
        transcript: turns.slice(turns.length - kept),
        collectedData,
        truncated: {
          transcriptTurnsRemoved: turns.length - kept,
          collectedDataRemoved: collectedData !== call.collectedData,
        },
      }),
    );
  let low = 0;
  let high = turns.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (withTurns(mid, call.collectedData).length <= MAX_PAYLOAD_BYTES) low = mid;
    else high = mid - 1;
  }
  body = withTurns(low, call.collectedData);
  if (body.length > MAX_PAYLOAD_BYTES) body = withTurns(0, {});
  return { body, truncated: true };
}
