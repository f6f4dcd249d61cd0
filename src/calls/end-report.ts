import type { CallEvent } from '../providers/voice-provider.js';
import { boundCallEvent, boundWarnings, CALL_RECORD_BUDGET } from './call-record-budget.js';
import type { EndCall } from './calls.repository.js';
import { typeCollectedData } from './collected-data.js';

export type EndedEvent = Extract<CallEvent, { type: 'ended' }>;

/** Why a recording URL is not kept, or undefined when it is. */
function recordingUrlProblem(url: string): string | undefined {
  if (Buffer.byteLength(url) > CALL_RECORD_BUDGET.recordingUrlBytes)
    return `longer than ${CALL_RECORD_BUDGET.recordingUrlBytes} bytes`;
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return 'not a URL';
  }
  return protocol === 'https:' || protocol === 'http:' ? undefined : `not an http or https URL (${protocol})`;
}

/**
 * What an end-of-call report records on its call (docs/decisions/0037-calls-api-and-call-details.md):
 * the collected data typed against the agent's `collect`, a recording URL only when it is one a
 * browser can play, every part within the call's budgets, and what could not be kept as reported
 * listed in `warnings`. Pure, and never throws: the report is always recorded.
 */
export function endReportOf(event: EndedEvent, collect: unknown): EndCall {
  // Typed before it is bounded: a value kept as its text may be what makes it too large.
  const typed = typeCollectedData(event.collectedData, collect);
  const bounded = boundCallEvent({ ...event, collectedData: typed.data }) as EndedEvent;
  const { type: _type, callId: _callId, summary, recordingUrl, ...rest } = bounded;
  const urlProblem = recordingUrl === undefined ? undefined : recordingUrlProblem(recordingUrl);
  // The recording's first: past the budget, the last warnings are the ones left out.
  const warnings = [...(urlProblem ? [`recordingUrl: ${urlProblem}; dropped`] : []), ...typed.warnings];
  return {
    ...rest,
    ...(summary?.trim() ? { summary } : {}),
    ...(recordingUrl !== undefined && !urlProblem ? { recordingUrl } : {}),
    warnings: boundWarnings(warnings),
  };
}
