import type { OutboundClient } from '../lib/outbound-http.js';
import type { ToolDefinition } from './tool-definition.js';
import { buildToolRequest, type ToolRequest, type VariableLookup } from './tool-request.js';

/** Response bodies are read up to this much; more is cut off (docs/interface.md#tools). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** The result handed back to the agent, and the recorded excerpt, are cut to this much. */
export const MAX_RESULT_BYTES = 16 * 1024;

/** One run of a tool: what was sent (null when nothing was), what came back, what the agent is told. */
export interface ToolRun {
  request: ToolRequest | null;
  response: { status: number; body: string } | null;
  /** The text handed back to the agent: the body on 2xx, a short error naming the cause otherwise. */
  result: string;
  /** Null on success; otherwise the cause in a few words. */
  error: string | null;
  /**
   * What happened, from a small fixed set (the metrics' label): `ok`, `http_status` (a non-2xx
   * answer), `arguments` (the request could not be built), `refused` (not run at all), or how
   * sending failed (`timeout`, `connect`, `dns`, `blocked`, `network`, …).
   */
  kind: string;
  latencyMs: number;
}

export interface RunnableTool extends ToolDefinition {
  timeoutMs: number;
}

function textOf(body: Buffer, maxBytes: number): string {
  // A cut may split a multi-byte character; drop the replacement character it would leave.
  const text = body.subarray(0, maxBytes).toString('utf8');
  return body.length > maxBytes ? text.replace(/\uFFFD$/, '') : text;
}

/**
 * Builds and sends one tool request. Never throws for anything the endpoint or the arguments do:
 * a refused argument, a non-2xx answer, a timeout or a refused connection all become an error
 * result the agent can talk its way around.
 */
export async function runTool(
  tool: RunnableTool,
  args: unknown,
  lookup: VariableLookup,
  outbound: OutboundClient,
): Promise<ToolRun> {
  const built = buildToolRequest(tool, args, lookup);
  if (!built.ok)
    return {
      request: null,
      response: null,
      result: `Error: ${built.error}`,
      error: built.error,
      kind: 'arguments',
      latencyMs: 0,
    };
  const { request } = built;
  const sent = await outbound.send({
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body ?? undefined,
    timeoutMs: tool.timeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  });
  const latencyMs = Math.round(sent.latencyMs);
  if (!sent.ok) {
    const error = sent.failure.message;
    // A refused address, an unknown host or a refused connection means no byte left: nothing was sent.
    const wasSent = sent.failure.kind === 'timeout' || sent.failure.kind === 'network';
    return {
      request: wasSent ? request : null,
      response: null,
      result: `Error: ${error}`,
      error,
      kind: sent.failure.kind,
      latencyMs,
    };
  }
  const body = textOf(sent.body, MAX_RESULT_BYTES);
  const response = { status: sent.status, body };
  if (sent.status >= 200 && sent.status < 300) {
    const result = body === '' ? `The tool succeeded (HTTP ${sent.status}) with an empty response.` : body;
    return { request, response, result, error: null, kind: 'ok', latencyMs };
  }
  const error = `The tool endpoint answered HTTP ${sent.status}`;
  const detail = body.trim().slice(0, 200);
  return {
    request,
    response,
    result: `Error: ${error}${detail ? `: ${detail}` : ''}`,
    error,
    kind: 'http_status',
    latencyMs,
  };
}
