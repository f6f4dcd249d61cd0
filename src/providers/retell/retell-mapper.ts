/**
 * Retell's webhook payloads in our terms (decision 0017, its OpenAPI `V2PhoneCallResponse`).
 * The only place that knows Retell's shapes: everything returned here is a `CallEvent` or a plain value.
 */
import type { TranscriptTurn } from '../../db/schema/index.js';
import type { JsonProjection } from '../../lib/json-bodies.js';
import { type Disposition, isObject, type Json, dateMs as ms, outcomeOf, text } from '../provider-outcome.js';
import type { CallEvent } from '../voice-provider.js';

/** A text that says something: an empty one is none. */
const filled = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

const FAILED = new Set([
  'dial_failed',
  'invalid_destination',
  'telephony_provider_permission_denied',
  'telephony_provider_unavailable',
  'sip_routing_error',
  'concurrency_limit_reached',
  'no_valid_payment',
  'scam_detected',
  'marked_as_spam',
  'registered_call_timeout',
]);

/**
 * Retell's `disconnection_reason` as a disposition: `dial_no_answer` and `user_declined` are NO_ANSWER,
 * `dial_busy` BUSY, `voicemail_reached` (or an analysis that says voicemail) VOICEMAIL, every
 * `error_*` and every call that could not be placed FAILED, the rest (hang-ups, inactivity, maximum
 * duration, transfers, an IVR) answered.
 */
export function retellDisposition(reason: string, inVoicemail = false): Disposition {
  if (reason === 'dial_no_answer' || reason === 'user_declined') return 'NO_ANSWER';
  if (reason === 'dial_busy') return 'BUSY';
  if (reason === 'voicemail_reached' || inVoicemail) return 'VOICEMAIL';
  if (reason.startsWith('error_') || FAILED.has(reason)) return 'FAILED';
  return 'answered';
}

/**
 * What our Retell webhooks read of a body, and all they keep of it (decision 0109): the event, a
 * tool call's name and arguments, and of the call what this mapper and the incoming calls read.
 * Every word's timing is most of a report's bytes; only each utterance's first word is read.
 */
export const RETELL_BODY_READ: JsonProjection = {
  event: true,
  name: true,
  args: true,
  call: {
    call_id: true,
    agent_id: true,
    direction: true,
    from_number: true,
    to_number: true,
    metadata: { switchboardCallId: true },
    disconnection_reason: true,
    call_analysis: { in_voicemail: true, custom_analysis_data: true, call_summary: true },
    start_timestamp: true,
    end_timestamp: true,
    duration_ms: true,
    collected_dynamic_variables: true,
    recording_url: true,
    scrubbed_recording_url: true,
    transcript_object: [{ role: true, content: true, words: [{ start: true }, 1] }],
  },
};

/** Our call id, which we put in `metadata` when we start the call. */
export function switchboardCallIdOf(call: Json): string | undefined {
  return isObject(call.metadata) ? text(call.metadata.switchboardCallId) : undefined;
}

/** `transcript_object` as our transcript; each utterance is dated by its first word. */
export function retellTranscript(
  utterances: unknown,
  startMs: number | undefined,
  fallbackAt: string,
): TranscriptTurn[] {
  if (!Array.isArray(utterances)) return [];
  const turns: TranscriptTurn[] = [];
  for (const u of utterances) {
    if (!isObject(u) || (u.role !== 'agent' && u.role !== 'user') || !text(u.content)) continue;
    const firstWord = Array.isArray(u.words) && isObject(u.words[0]) ? ms(u.words[0].start) : undefined;
    const atMs = startMs !== undefined && firstWord !== undefined ? ms(startMs + firstWord * 1000) : undefined;
    const at = atMs !== undefined ? new Date(atMs).toISOString() : fallbackAt;
    turns.push({ role: u.role, text: u.content as string, at });
  }
  return turns;
}

/**
 * A `call_ended` or `call_analyzed` call as our `ended` event. An answered call's outcome is the
 * analysis's `custom_analysis_data.status` when it is one of the agent's outcomes, else COMPLETED;
 * the other custom analysis fields and the collected dynamic variables are the collected data
 * (typed against the agent's `collect` when the call ends). The summary is the analysis's
 * `call_summary`; the recording `recording_url` (or, on an account that scrubs PII, `scrubbed_recording_url`).
 */
export function retellEndedEvent(
  call: Json,
  callId: string,
  outcomes: readonly string[],
  now: () => Date = () => new Date(),
): Extract<CallEvent, { type: 'ended' }> {
  const endedReason = text(call.disconnection_reason) ?? 'unknown';
  const analysis = isObject(call.call_analysis) ? call.call_analysis : {};
  const disposition = retellDisposition(endedReason, analysis.in_voicemail === true);
  const { status, ...custom } = isObject(analysis.custom_analysis_data) ? analysis.custom_analysis_data : {};
  const outcome = outcomeOf(disposition, status, outcomes);
  const startMs = ms(call.start_timestamp);
  const endMs = ms(call.end_timestamp) ?? now().getTime();
  const endedAt = new Date(endMs).toISOString();
  const collected = isObject(call.collected_dynamic_variables) ? call.collected_dynamic_variables : {};
  const answered = disposition === 'answered' && startMs !== undefined;
  const summary = filled(analysis.call_summary);
  const recordingUrl = filled(call.recording_url) ?? filled(call.scrubbed_recording_url);
  return {
    type: 'ended',
    callId,
    at: new Date(endMs),
    outcome,
    endedReason,
    ...(answered ? { answeredAt: new Date(startMs) } : {}),
    transcript: retellTranscript(call.transcript_object, startMs, endedAt),
    collectedData: { ...collected, ...custom },
    durationSeconds: answered ? Math.max(0, Math.round((ms(call.duration_ms) ?? endMs - startMs) / 1000)) : 0,
    ...(summary ? { summary } : {}),
    ...(recordingUrl ? { recordingUrl } : {}),
  };
}

/** `call_started`: the callee answered. */
export function retellStartedEvent(call: Json, callId: string, now: () => Date = () => new Date()): CallEvent {
  return { type: 'answered', callId, at: new Date(ms(call.start_timestamp) ?? now().getTime()) };
}
