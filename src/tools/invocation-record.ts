import { boundJson, cutJsonText } from '../lib/text-budget.js';
import type { ToolRequest } from './tool-request.js';
import type { NewToolInvocationRow } from './tools.repository.js';

/**
 * What one tool invocation record may hold, in bytes of JSON (docs/decisions/0027-bounded-call-records.md).
 * The agent has had its result already: this only bounds what is kept and shown. With at most
 * MAX_INVOCATIONS_PER_CALL records a call's invocations stay under about 2 MB.
 */
export const INVOCATION_RECORD_BUDGET = {
  /** The arguments the model (or the scenario) sent. */
  argumentsBytes: 4 * 1024,
  /** The request as sent: URL, headers and body, each a share of it (body ½, URL ¼, headers ¼). */
  requestBytes: 8 * 1024,
  /** The endpoint's answer as recorded (what was read of it is already at most 16 KiB of text). */
  responseBytes: 16 * 1024,
  /** The result the agent was given (the answer, or an error naming its cause). */
  resultBytes: 8 * 1024,
  /** The error in a few words, and the tool's name as the provider said it. */
  errorBytes: 1024,
  nameBytes: 256,
} as const;

function boundRequest(request: ToolRequest): ToolRequest {
  const { requestBytes } = INVOCATION_RECORD_BUDGET;
  return {
    method: cutJsonText(request.method, 64),
    url: cutJsonText(request.url, requestBytes / 4),
    headers: boundJson(request.headers, requestBytes / 4) as Record<string, string>,
    body: request.body === null ? null : cutJsonText(request.body, requestBytes / 2),
  };
}

/** An invocation record within its budget: each part cut, with the marker, to its share. */
export function boundInvocationRecord(row: NewToolInvocationRow): NewToolInvocationRow {
  const budget = INVOCATION_RECORD_BUDGET;
  const request = row.request as ToolRequest | null | undefined;
  return {
    ...row,
    toolName: cutJsonText(row.toolName, budget.nameBytes),
    arguments: boundJson(row.arguments, budget.argumentsBytes),
    request: request ? boundRequest(request) : (request ?? null),
    responseExcerpt: row.responseExcerpt == null ? null : cutJsonText(row.responseExcerpt, budget.responseBytes),
    result: cutJsonText(row.result, budget.resultBytes),
    error: row.error == null ? null : cutJsonText(row.error, budget.errorBytes),
  };
}
