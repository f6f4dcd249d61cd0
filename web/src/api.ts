/** The public `/v1` API, called with the session cookie (same origin): the dashboard has no other back end. */

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
  ) {
    super(message);
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
    );
  }
  return json as T;
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

export interface Me {
  organization: { id: string; name: string };
  user: { id: string; email: string } | null;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  /** Only in the answer that created it. */
  key?: string;
}

export type ProviderName = 'simulator' | 'vapi' | 'retell';
export type AgentType = 'click_to_call' | 'inbound' | 'outbound';

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
  outcome?: { status?: string; collectedData?: Record<string, unknown> };
  durationSeconds?: number;
  delayMs?: number;
}

export interface Agent {
  id: string;
  name: string;
  type: AgentType;
  enabled: boolean;
  provider: ProviderName;
  providerCredentialId: string | null;
  prompt: string;
  firstMessage: string;
  fromNumber: string | null;
  disableSignatureVerification: boolean;
  /** Click to call refuses a request without `signature-timestamp`. */
  requireSignatureTimestamp: boolean;
  /** ISO 3166 alpha-2 codes click to call may dial; null: every country. */
  allowedCountries: string[] | null;
  maxConcurrentCalls: number | null;
  rateLimitPerMinute: number | null;
  maxCallDurationSeconds: number;
  toolIds: string[];
  outcomes: string[];
  simulator: SimulatorScenario | null;
  configured: boolean;
  /** The `{{variables}}` the prompt and first message use, as saved. */
  variables: string[];
  providerSync: {
    state: 'synced' | 'pending' | 'failed';
    error: string | null;
    syncedAt?: string | null;
    providerAgentId?: string | null;
  };
  createdAt: string;
  updatedAt: string;
}

export interface AgentCredentials {
  apiToken: string;
  apiSecret: string;
  endpoint: string;
  /** Plain-text instructions with the three examples. */
  instructions: string;
  examples: { curl: string; node: string; python: string };
}

export interface ProviderCredential {
  id: string;
  provider: 'vapi' | 'retell';
  name: string;
  apiKey: string;
  apiKeyLast4?: string;
  webhookSecret: string | null;
  baseUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a secret reads back as: writing it back unchanged keeps the stored value. */
export const SECRET_MASK = '••••••';

export type ParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

export interface ToolField {
  name: string;
  type: ParameterType;
  fillMode: 'ai' | 'variable' | 'fixed';
  value?: unknown;
  description?: string;
  allowedValues?: (string | number | boolean)[];
  required?: boolean;
  fields?: ToolField[];
  items?: {
    type: Exclude<ParameterType, 'array'>;
    fields?: ToolField[];
    allowedValues?: (string | number | boolean)[];
  };
}

export interface ToolParameter extends ToolField {
  location: 'body' | 'query' | 'path';
}

export interface Tool {
  id: string;
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: { key: string; mode: 'fixed' | 'variable'; value: string; secret?: boolean }[];
  parameters: ToolParameter[];
  variables: { name: string; defaultValue?: string }[];
  timeoutMs: number;
  aiSchema: unknown;
  createdAt: string;
  updatedAt: string;
}

/** A request as sent: secret header values masked, the body as the exact text sent (or none). */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface ToolTestResult {
  request: RecordedRequest | null;
  response: { status: number; body: unknown } | null;
  result: unknown;
  error: string | null;
}

export interface TriggerCondition {
  field: string;
  operator: string;
  value?: unknown;
}

export interface Integration {
  id: string;
  agentId: string;
  type: 'webhook';
  url: string;
  enabled: boolean;
  authorization: string | null;
  signing: boolean;
  signingSecret: string;
  previousSigningSecretExpiresAt: string | null;
  triggerConditions: { match?: 'all' | 'any'; conditions: TriggerCondition[] } | null;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryAttempt {
  at: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
  errorCode: string | null;
  responseExcerpt: string | null;
}

export interface Delivery {
  id: string;
  integrationId: string;
  callId: string;
  webhookId: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  attemptCount: number;
  nextAttemptAt: string | null;
  failureReason: string | null;
  payloadTruncated: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface TranscriptTurn {
  role: 'agent' | 'user' | 'tool';
  name?: string;
  text: string;
  at: string;
}

export interface ToolInvocation {
  id: string;
  toolId: string | null;
  name: string;
  arguments: unknown;
  request: RecordedRequest | null;
  response: { status: number; body: string } | null;
  /** What the agent was handed: the response body, or a short error text. */
  result: string;
  error: string | null;
  latencyMs: number;
  at: string;
}

export type CallStatus = 'queued' | 'ringing' | 'in_progress' | 'ended';

export interface Call {
  id: string;
  agentId: string;
  provider: ProviderName;
  providerCallId: string | null;
  /** The agent's number, or the simulated caller id +15555550100 (docs/interface.md#calls). */
  from: string;
  to: string;
  status: CallStatus;
  outcome: string | null;
  endedReason: string | null;
  error: string | null;
  variables: Record<string, string>;
  collectedData: Record<string, unknown>;
  transcript: TranscriptTurn[];
  toolInvocations: ToolInvocation[];
  deliveries: Delivery[];
  createdAt: string;
  startedAt: string | null;
  answeredAt: string | null;
  endedAt: string | null;
  durationSeconds: number | null;
}
