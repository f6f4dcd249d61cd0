/**
 * Vapi's webhook payloads in our terms (decision 0017, their OpenAPI `ServerMessage*` schemas).
 * The only place that knows Vapi's shapes: everything returned here is a `CallEvent` or a plain value.
 */
import type { TranscriptTurn } from '../../db/schema/index.js';
import type { JsonProjection } from '../../lib/json-bodies.js';
import { type Disposition, dateMs, isObject, type Json, outcomeOf, text } from '../provider-outcome.js';
import type { CallEvent } from '../voice-provider.js';

/** Where our call id may stand: Vapi's `metadata` of the assistant's overrides, of the call, or of the message. */
const METADATA_READ: JsonProjection = { metadata: { switchboardCallId: true } };
/** A number Vapi names as `{number}`: the caller (`customer`), or ours (`phoneNumber`). */
const NUMBER_READ: JsonProjection = { number: true };

/**
 * What our Vapi webhook reads of a body, and all it keeps of it (decision 0121): the message's type,
 * the call's ids and numbers, a status update, a report's times, reason, analysis, recording and
 * each message's speaker, words and time, and the tool calls. A report's other copies of the
 * conversation (`messagesOpenAIFormatted`, `transcript`, the call's own), its costs and the words'
 * timings are most of its bytes, and are not kept.
 */
export const VAPI_BODY_READ: JsonProjection = {
  message: {
    type: true,
    ...METADATA_READ,
    customer: NUMBER_READ,
    phoneNumber: NUMBER_READ,
    call: {
      id: true,
      type: true,
      assistantId: true,
      phoneNumberId: true,
      ...METADATA_READ,
      assistantOverrides: METADATA_READ,
      customer: NUMBER_READ,
      phoneNumber: NUMBER_READ,
    },
    status: true,
    timestamp: true,
    endedReason: true,
    startedAt: true,
    endedAt: true,
    analysis: { summary: true, structuredData: true },
    artifact: {
      messages: [{ role: true, message: true, time: true, name: true, result: true }],
      recording: { mono: { combinedUrl: true }, stereoUrl: true },
      recordingUrl: true,
      stereoRecordingUrl: true,
    },
    recordingUrl: true,
    toolCallList: [{ id: true, function: { name: true, arguments: true } }],
  },
};

/** A text that says something: an empty one is none. */
const filled = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

const NOT_CONNECTED = new Set([
  'assistant-request-returned-invalid-assistant',
  'assistant-request-returned-no-assistant',
  'assistant-request-returned-forwarding-phone-number',
  'assistant-not-valid',
  'assistant-not-found',
  'assistant-join-timed-out',
  'scheduled-call-deleted',
  'call-deleted',
  'manually-canceled',
  'worker-shutdown',
  'phone-call-provider-bypass-enabled-but-no-call-received',
  'twilio-reported-customer-misdialed',
  'vonage-rejected',
]);

/**
 * Vapi's `endedReason` (627 values in its OpenAPI file, more to come) as a disposition: the named
 * unanswered kinds, every error or failure and every call that never connected as FAILED, and the
 * rest (customer or assistant hung up, silence, max duration, forwarded, …) as answered.
 */
export function vapiDisposition(endedReason: string): Disposition {
  if (endedReason === 'customer-did-not-answer' || endedReason === 'call.forwarding.no-answer') return 'NO_ANSWER';
  if (endedReason === 'customer-busy' || endedReason === 'call.forwarding.operator-busy') return 'BUSY';
  if (endedReason === 'voicemail') return 'VOICEMAIL';
  if (/error|fail/.test(endedReason) || NOT_CONNECTED.has(endedReason)) return 'FAILED';
  return 'answered';
}

/** Our call id, which we put in `assistantOverrides.metadata` when we start the call. */
export function switchboardCallIdOf(message: Json): string | undefined {
  const call = isObject(message.call) ? message.call : {};
  for (const holder of [call.assistantOverrides, call, message]) {
    const metadata = isObject(holder) && isObject(holder.metadata) ? holder.metadata : undefined;
    const id = text(metadata?.switchboardCallId);
    if (id) return id;
  }
  return undefined;
}

/** Vapi's id of the call. */
export function vapiCallIdOf(message: Json): string | undefined {
  return isObject(message.call) ? text(message.call.id) : undefined;
}

function iso(value: unknown): string | undefined {
  const at = dateMs(value);
  if (at !== undefined) return new Date(at).toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return undefined;
}

/** `artifact.messages` as our transcript: spoken turns and tool results; system prompts and tool requests left out. */
export function vapiTranscript(messages: unknown, fallbackAt: string): TranscriptTurn[] {
  if (!Array.isArray(messages)) return [];
  const turns: TranscriptTurn[] = [];
  for (const m of messages) {
    if (!isObject(m)) continue;
    const at = iso(m.time) ?? fallbackAt;
    if ((m.role === 'bot' || m.role === 'assistant') && text(m.message)) {
      turns.push({ role: 'agent', text: m.message as string, at });
    } else if (m.role === 'user' && text(m.message)) {
      turns.push({ role: 'user', text: m.message as string, at });
    } else if (m.role === 'tool_call_result') {
      turns.push({ role: 'tool', name: text(m.name) ?? '', text: text(m.result) ?? '', at });
    }
  }
  return turns;
}

/**
 * The recording of an end-of-call report: `artifact.recording.mono.combinedUrl` (both parties, one
 * channel), else the deprecated `artifact.recordingUrl`, the stereo ones, and the top-level
 * `recordingUrl` of older reports. Whether it is a URL worth keeping is the calls service's to judge.
 */
export function vapiRecordingUrl(message: Json): string | undefined {
  const artifact = isObject(message.artifact) ? message.artifact : {};
  const recording = isObject(artifact.recording) ? artifact.recording : {};
  const mono = isObject(recording.mono) ? recording.mono : {};
  return (
    filled(mono.combinedUrl) ??
    filled(artifact.recordingUrl) ??
    filled(recording.stereoUrl) ??
    filled(artifact.stereoRecordingUrl) ??
    filled(message.recordingUrl)
  );
}

/**
 * An `end-of-call-report` as our `ended` event. The outcome of an answered call is the structured
 * data's `status` when it is one of the agent's outcomes, else COMPLETED; the other structured data
 * fields are the collected data (typed against the agent's `collect` when the call ends). The
 * summary is `analysis.summary`. `endedReason` stays Vapi's own.
 */
export function vapiEndedEvent(
  message: Json,
  callId: string,
  outcomes: readonly string[],
  now: () => Date = () => new Date(),
): Extract<CallEvent, { type: 'ended' }> {
  const endedReason = text(message.endedReason) ?? 'unknown';
  const disposition = vapiDisposition(endedReason);
  const analysis = isObject(message.analysis) ? message.analysis : {};
  const { status, ...collectedData } = isObject(analysis.structuredData) ? analysis.structuredData : {};
  const outcome = outcomeOf(disposition, status, outcomes);
  const endedAt = iso(message.endedAt) ?? now().toISOString();
  const startedAt = iso(message.startedAt);
  const artifact = isObject(message.artifact) ? message.artifact : {};
  const summary = filled(analysis.summary);
  const recordingUrl = vapiRecordingUrl(message);
  const durationSeconds =
    startedAt && disposition === 'answered'
      ? Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 1000))
      : 0;
  return {
    type: 'ended',
    callId,
    at: new Date(endedAt),
    outcome,
    endedReason,
    ...(startedAt && disposition === 'answered' ? { answeredAt: new Date(startedAt) } : {}),
    transcript: vapiTranscript(artifact.messages, endedAt),
    collectedData,
    durationSeconds,
    ...(summary ? { summary } : {}),
    ...(recordingUrl ? { recordingUrl } : {}),
  };
}

/** A `status-update` as an event, for the statuses that move a call on (the end comes with the report). */
export function vapiStatusEvent(
  message: Json,
  callId: string,
  now: () => Date = () => new Date(),
): CallEvent | undefined {
  const at = new Date(iso(message.timestamp) ?? now().toISOString());
  if (message.status === 'ringing') return { type: 'ringing', callId, at };
  if (message.status === 'in-progress') return { type: 'answered', callId, at };
  return undefined;
}

export interface VapiToolCall {
  toolCallId: string;
  name: string;
  /** The model's arguments, parsed when Vapi sent them as JSON text. */
  args: unknown;
}

/** The tool calls of a `tool-calls` message; `function.arguments` arrives as an object or as JSON text. */
export function vapiToolCalls(message: Json): VapiToolCall[] {
  const list = Array.isArray(message.toolCallList) ? message.toolCallList : [];
  return list.filter(isObject).map((call) => {
    const fn = isObject(call.function) ? call.function : {};
    let args: unknown = fn.arguments ?? {};
    if (typeof args === 'string') {
      try {
        args = args.trim() === '' ? {} : JSON.parse(args);
      } catch {
        // Left as text: the tools engine refuses it with a message the model can act on.
      }
    }
    return { toolCallId: text(call.id) ?? '', name: text(fn.name) ?? '', args };
  });
}

/** The answer to a `tool-calls` message: one result per call, each a single line, as Vapi asks. */
export function vapiToolResults(results: { toolCallId: string; name: string; result: string; error: boolean }[]) {
  const oneLine = (value: string) => value.replace(/\s*[\r\n]+\s*/g, ' ');
  return {
    results: results.map(({ toolCallId, name, result, error }) =>
      error ? { toolCallId, name, error: oneLine(result) } : { toolCallId, name, result: oneLine(result) },
    ),
  };
}
