/** The public `/v1` API, called with the session cookie (same origin): the dashboard has no other back end. */

import type { components } from './api-types.js';

/**
 * The API's views, as GET /openapi.json documents them (generated into api-types.ts from the
 * server's TypeBox schemas, decision 0033): the dashboard keeps no copy of its own.
 */
type Schemas = components['schemas'];

export interface FieldProblem {
  path: string;
  message: string;
}

/** An API refusal: `{code, message, details}` as the management API answers it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
    /** From `Retry-After` (seconds or a date), when the answer said when to ask again. */
    readonly retryAfterSeconds: number | null = null,
    /** Set by `useLoad` when it will ask again by itself, at this time. */
    readonly retryAt: Date | null = null,
  ) {
    super(message);
  }

  /** The same failure, said to be asked again at `at`. */
  retrying(at: Date): ApiFailure {
    return new ApiFailure(this.status, this.code, this.message, this.details, this.retryAfterSeconds, at);
  }

  /** The problem reported at a field's JSON path (`$.email`), if any. */
  at(path: string): string | undefined {
    return this.details.find((d) => d.path === path)?.message;
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    throw new ApiFailure(
      response.status,
      json?.code ?? 'api:internal',
      json?.message ?? response.statusText,
      json?.details,
      retryAfterSeconds(response.headers.get('retry-after')),
    );
  }
  return json as T;
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null if neither. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** `/v1/...?a=1&b=2`, leaving out parameters that are empty. */
export function withQuery(path: string, params: Record<string, string | number | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type Me = Schemas['Me'];

/** `key` only in the answer that created it. */
export type ApiKey = Schemas['ApiKey'] & { key?: string };

export type ProviderName = Schemas['Agent']['provider'];
export type AgentType = Schemas['Agent']['type'];

export const AGENT_TYPE_LABELS: Record<AgentType, string> = {
  click_to_call: 'Click to Call',
  inbound: 'Inbound',
  outbound: 'Outbound',
};

export interface SimulatorTurn {
  role?: 'user' | 'agent';
  text?: string;
  tool?: string;
  args?: Record<string, unknown>;
}

export interface SimulatorScenario {
  answer?: 'answered' | 'no_answer' | 'busy' | 'voicemail' | 'fail_to_start';
  turns?: SimulatorTurn[];
  outcome?: { status?: string; collectedData?: Record<string, unknown>; summary?: string };
  durationSeconds?: number;
  delayMs?: number;
}

/** What an agent collects in a call: each becomes a key of the outcome's `collectedData`. */
export type CollectType = AgentCollectField['type'];

export type AgentCollectField = Schemas['AgentCollectField'];

export type AgentVoice = Schemas['AgentVoice'];

export type AgentModel = Schemas['AgentModel'];

export type VoicemailAction = 'hang_up' | 'leave_message';

export type AgentVoicemail = Schemas['AgentVoicemail'];

export type Agent = Schemas['Agent'];

/** A voice a provider account offers; `voiceId` null: any id of that provider's voices, typed in. */
export type VoiceOption = Schemas['ProviderVoice'];

export type PhoneNumber = Schemas['PhoneNumber'];

/** A number of a provider account, to import; `phoneNumberId` once it is imported. */
export type ProviderPhoneNumber = Schemas['ProviderPhoneNumberList']['data'][number];

export type AgentCredentials = Schemas['AgentCredentials'];

export type ProviderCredential = Schemas['ProviderCredential'];

/** What a secret reads back as: writing it back unchanged keeps the stored value. */
export const SECRET_MASK = '••••••';

export type ParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

export type ToolField = Schemas['ToolField'];

export type ToolParameter = Schemas['Tool']['parameters'][number];

export type Tool = Schemas['Tool'];

/** A request as sent: secret header values masked, the body as the exact text sent (or none). */
export type RecordedRequest = Schemas['RecordedRequest'];

export type ToolTestResult = Schemas['ToolTestResult'];

/** A tool defined at the agent's provider, as `GET /v1/agents/:id/provider-tools` lists it. */
export type ProviderTool = Schemas['ProviderTool'];

export type ProviderToolImport = Schemas['ProviderToolImport'];

export interface TriggerCondition {
  field: string;
  operator: string;
  value?: unknown;
}

export type Integration = Schemas['Integration'];

export type IntegrationTestResult = Schemas['IntegrationTestResult'];

export type DeliveryAttempt = Schemas['DeliveryAttempt'];

export type Delivery = Schemas['Delivery'];

export type TranscriptTurn = Schemas['TranscriptTurn'];

export type ToolInvocation = Schemas['ToolInvocation'];

export type CallStatus = Schemas['Call']['status'];

export type CallDirection = Schemas['Call']['direction'];

export type Call = Schemas['Call'];
