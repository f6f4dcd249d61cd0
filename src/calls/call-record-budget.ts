import type { TranscriptTurn } from '../db/schema/index.js';
import { boundJson, cutJsonText, cutMarker, cutText, jsonBytes } from '../lib/text-budget.js';
import type { CallEvent } from '../providers/voice-provider.js';

/**
 * What one call may record, whoever reports it (docs/decisions/0027-bounded-call-records.md). A real
 * call comes nowhere near: a two-hour conversation is about 100 KB of transcript. Past a budget the
 * record is cut with a visible marker, never refused: refusing would lose the call's end.
 */
export const CALL_RECORD_BUDGET = {
  /** One turn's text, in UTF-8 bytes: the same as a filled template (lib/template.ts). */
  turnBytes: 16 * 1024,
  /** The whole transcript as JSON. Turns past it are left out; the last turn kept says so. */
  transcriptBytes: 1024 * 1024,
  /** The collected data as JSON. */
  collectedDataBytes: 64 * 1024,
  /** The call's `error` text (a provider's message, or why its end could not be recorded). */
  errorBytes: 2 * 1024,
  /** A tool name, an outcome or an ended reason a provider reports, in UTF-8 bytes (ours are at most 64 characters). */
  nameBytes: 256,
  /** The provider's summary of the call: a paragraph or two; a page at most. */
  summaryBytes: 16 * 1024,
  /** A recording's URL: a longer one is dropped with a warning (a cut URL plays nothing). */
  recordingUrlBytes: 2 * 1024,
  /** Warnings on one call (one per declared field at most, and the recording's). */
  warnings: 64,
  /** One warning's text, in UTF-8 bytes. */
  warningBytes: 512,
} as const;

/** The turns, each text cut to its budget, as many as fit the transcript's budget (the last kept says how many did not). */
export function boundTranscript(turns: TranscriptTurn[]): TranscriptTurn[] {
  const { turnBytes, transcriptBytes, nameBytes } = CALL_RECORD_BUDGET;
  const bounded = turns.map((turn) => {
    const text = cutText(turn.text, turnBytes);
    const name = turn.name === undefined ? undefined : cutText(turn.name, nameBytes);
    return text === turn.text && name === turn.name ? turn : { ...turn, text, ...(name === undefined ? {} : { name }) };
  });
  const total = jsonBytes(bounded);
  if (total <= transcriptBytes) return bounded;
  // Room for the marker the last kept turn gets.
  const limit = transcriptBytes - 128;
  const kept: TranscriptTurn[] = [];
  let used = 2;
  for (const turn of bounded) {
    const size = jsonBytes(turn) + 1;
    if (used + size > limit) break;
    kept.push(turn);
    used += size;
  }
  const left = bounded.length - kept.length;
  const marker = `${cutMarker(total - used, transcriptBytes)} (${left} later turns)`;
  const last = kept.pop();
  if (!last) return [];
  return [...kept, { ...last, text: `${last.text} ${marker}` }];
}

/** A turn reported alone (a live transcript): its text cut to the turn's budget. */
export function boundTurn(turn: TranscriptTurn): TranscriptTurn {
  return boundTranscript([turn])[0] ?? turn;
}

/** A provider's event with everything it would record within the call's budgets. */
export function boundCallEvent(event: CallEvent): CallEvent {
  if (event.type === 'transcript') return { ...event, turn: boundTurn(event.turn) };
  if (event.type !== 'ended') return event;
  return {
    ...event,
    outcome: cutText(event.outcome, CALL_RECORD_BUDGET.nameBytes),
    endedReason: cutText(event.endedReason, CALL_RECORD_BUDGET.nameBytes),
    ...(event.transcript ? { transcript: boundTranscript(event.transcript) } : {}),
    collectedData: boundJson(event.collectedData, CALL_RECORD_BUDGET.collectedDataBytes) as Record<string, unknown>,
    ...(event.summary === undefined ? {} : { summary: cutText(event.summary, CALL_RECORD_BUDGET.summaryBytes) }),
  };
}

/** A call's warnings within their budget: the first ones, each cut to its budget. */
export function boundWarnings(warnings: string[]): string[] {
  return warnings.slice(0, CALL_RECORD_BUDGET.warnings).map((w) => cutText(w, CALL_RECORD_BUDGET.warningBytes));
}

/** A call's `error` text within its budget. */
export function boundErrorText(text: string): string {
  return cutJsonText(text, CALL_RECORD_BUDGET.errorBytes);
}
