import type { SimulatorScenario } from '../agents/agents.schemas.js';
import { type AgentsService, type CallTriggerAgent, isConfigured } from '../agents/agents.service.js';
import type { CallsService } from '../calls/calls.service.js';
import { sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { placeholdersOf } from '../lib/template.js';
import {
  type ProviderName,
  type ProviderRegistry,
  SIMULATED_CALLER_ID,
  type StartCallRequest,
  type StartCallResult,
} from '../providers/voice-provider.js';
import type { ClickToCallRepository, IdempotencyRow } from './click-to-call.repository.js';
import { type CtcResponse, ctcError } from './ctc-errors.js';
import { numberPolicyProblems } from './number-policy.js';
import { parseClickToCallBody } from './request-body.js';
import { signClickToCall, verifyClickToCallSignature } from './request-signature.js';

/** A click-to-call request as received: headers and the exact bytes of the body. */
export interface ClickToCallRequest {
  requestId: string;
  apiKey: string | undefined;
  signature: string | undefined;
  /** `signature-timestamp`: Unix seconds, signed with the body (decision 0031). */
  signatureTimestamp: string | undefined;
  idempotencyKey: string | undefined;
  rawBody: Buffer | undefined;
}

const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A first request still "in progress" after this long died with its process; a retry learns its call. */
const IDEMPOTENCY_ABANDONED_MS = 60_000;
const MAX_IDEMPOTENCY_KEY = 255;
const WINDOW_MS = 60_000;

export interface ClickToCallServiceDeps {
  agents: AgentsService;
  calls: CallsService;
  repository: ClickToCallRepository;
  providers: ProviderRegistry;
  now?: () => Date;
  /** Told about infrastructure failures, which the caller only sees as ctc:002 / ctc:008. */
  onError?: (error: unknown, context: string) => void;
  /** Told every answer's code: `success` or the ctc code (the metrics count them). */
  onAnswered?: (code: string) => void;
}

/**
 * `POST /api/click-to-call` (docs/interface.md#click-to-call): every check in its documented order, the first that
 * fails answers. Returns the response to send; never throws.
 */
export function createClickToCallService(deps: ClickToCallServiceDeps) {
  const { agents, calls, repository, providers } = deps;
  const now = deps.now ?? (() => new Date());
  const report = deps.onError ?? (() => {});
  const answered = deps.onAnswered ?? (() => {});

  function replay(row: IdempotencyRow, requestHash: string, requestId: string): CtcResponse {
    if (row.requestHash !== requestHash) {
      return ctcError('ctc:011', requestId, {
        details: [{ path: 'headers.idempotency-key', message: 'was used with a different request body' }],
      });
    }
    if (row.state === 'completed' && row.response) {
      // The first answer's body, its requestId included; a key stored before that was kept (decision
      // 0033) answers with this request's id, so the body still has every documented field.
      return { status: 200, body: { requestId, ...row.response }, headers: { 'idempotent-replayed': 'true' } };
    }
    // Still in progress after a minute: the first request's process died after its call was
    // recorded (the key and the call commit together). Whether the provider already placed it is
    // unknown, so the call is never placed again: the retry learns its id, and its outcome arrives
    // like any other (the duration sweep closes it if nothing ever reports).
    if (row.callId && row.createdAt.getTime() < now().getTime() - IDEMPOTENCY_ABANDONED_MS) {
      return {
        status: 200,
        body: { success: true, callId: row.callId, status: 'queued', requestId },
        headers: { 'idempotent-replayed': 'true' },
      };
    }
    return ctcError('ctc:012', requestId);
  }

  async function startWithProvider(provider: ProviderName, request: StartCallRequest): Promise<StartCallResult> {
    const adapter = providers[provider];
    if (!adapter) return { ok: false, message: `The ${provider} provider is not available in this process` };
    try {
      return await adapter.startCall(request);
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  /** A response when the key settles the request (a replay or a refusal); undefined to go on. */
  async function answerFromIdempotencyKey(
    agentId: string,
    key: string,
    requestHash: string,
    requestId: string,
  ): Promise<CtcResponse | undefined> {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
      return ctcError('ctc:011', requestId, {
        details: [{ path: 'headers.idempotency-key', message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` }],
      });
    }
    try {
      const at = now();
      await repository.deleteIdempotencyKeyIfExpired(agentId, key, at);
      const existing = await repository.findIdempotencyKey(agentId, key);
      return existing ? replay(existing, requestHash, requestId) : undefined;
    } catch (error) {
      report(error, 'reading the idempotency key');
      return ctcError('ctc:002', requestId);
    }
  }

  /** ctc:010 once the agent's requests this minute exceed its limit, counted in the database. */
  async function checkRateLimit(
    agentId: string,
    limit: number | null,
    requestId: string,
  ): Promise<CtcResponse | undefined> {
    if (limit === null) return undefined;
    const at = now().getTime();
    const windowStart = at - (at % WINDOW_MS);
    let seen: number;
    try {
      seen = await repository.countRequest(agentId, new Date(windowStart));
    } catch (error) {
      report(error, 'counting the request');
      return ctcError('ctc:002', requestId);
    }
    if (seen <= limit) return undefined;
    const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - at) / 1000));
    return ctcError('ctc:010', requestId, { headers: { 'retry-after': String(retryAfter) } });
  }

  /** Every check in order; the first that fails answers. */
  async function answer(request: ClickToCallRequest): Promise<CtcResponse> {
    const { requestId } = request;
    // 1. The agent's token must be there.
    if (!request.apiKey) return ctcError('ctc:001', requestId);

    // 2–3. The agent it names.
    let agent: CallTriggerAgent | undefined;
    try {
      agent = await agents.findByApiToken(request.apiKey);
    } catch (error) {
      report(error, 'loading the agent');
      return ctcError('ctc:002', requestId);
    }
    if (!agent) return ctcError('ctc:003', requestId);
    const { row } = agent;
    const rawBody = request.rawBody ?? Buffer.alloc(0);

    // 4–5. The signature over the bytes received (after "<signature-timestamp>." when one is sent),
    // compared in constant time; a timestamp more than 5 minutes off is refused.
    if (!row.disableSignatureVerification) {
      const verdict = verifyClickToCallSignature({
        secret: agent.apiSecret,
        rawBody,
        signature: request.signature,
        timestamp: request.signatureTimestamp,
        requireTimestamp: row.requireSignatureTimestamp,
        nowMs: now().getTime(),
      });
      if (!verdict.ok) return ctcError(verdict.code, requestId, { details: verdict.details });
    }

    // A retried request answers what the first one did, before it counts against the rate limit.
    const idempotencyKey = request.idempotencyKey;
    const requestHash = sha256Hex(rawBody);
    if (idempotencyKey !== undefined) {
      const answered = await answerFromIdempotencyKey(row.id, idempotencyKey, requestHash, requestId);
      if (answered) return answered;
    }

    // 5a. The agent's rate limit, counted in the database so every process shares it.
    const limited = await checkRateLimit(row.id, row.rateLimitPerMinute, requestId);
    if (limited) return limited;

    // 6–7. The agent must be on and set up for click to call.
    if (!row.enabled) return ctcError('ctc:004', requestId);
    if (!isConfigured(row)) return ctcError('ctc:005', requestId);

    // 8. The body.
    const body = parseClickToCallBody(request.rawBody);
    if (!body.ok) return ctcError('ctc:009', requestId, { details: body.details });
    // Costly number types and the agent's countries (toll fraud, decision 0031).
    const refusedNumber = numberPolicyProblems(body.phone, row.allowedCountries ?? null);
    if (refusedNumber.length > 0) return ctcError('ctc:009', requestId, { details: refusedNumber });

    // Variables the script uses but the request left out are sent as "", never undefined.
    const variables: Record<string, string> = Object.fromEntries([
      ...placeholdersOf(row.prompt, row.firstMessage)
        .filter((name) => !name.startsWith('tool.'))
        .map((name) => [name, ''] as const),
      ...Object.entries(body.variables),
    ]);

    // 9. One open call per number and at most maxConcurrentCalls, decided by the database.
    const startedAt = now();
    const callId = newId('call', startedAt.getTime());
    let accepted: Awaited<ReturnType<ClickToCallRepository['acceptCall']>>;
    try {
      accepted = await repository.acceptCall({
        call: {
          id: callId,
          organizationId: row.organizationId,
          agentId: row.id,
          provider: row.provider,
          // Only a simulator agent can lack a number (isConfigured); its calls show the simulated one.
          fromNumber: row.fromNumber ?? SIMULATED_CALLER_ID,
          toNumber: body.phone,
          status: 'queued',
          variables,
          collectedData: {},
          transcript: [],
          startedAt,
          deadlineAt: new Date(startedAt.getTime() + row.maxCallDurationSeconds * 1000),
        },
        maxConcurrentCalls: row.maxConcurrentCalls,
        idempotency:
          idempotencyKey === undefined
            ? undefined
            : { key: idempotencyKey, requestHash, expiresAt: new Date(startedAt.getTime() + IDEMPOTENCY_TTL_MS) },
      });
    } catch (error) {
      report(error, 'recording the call');
      return ctcError('ctc:008', requestId);
    }
    if (!accepted.ok) {
      if (accepted.reason === 'idempotency_taken' && idempotencyKey !== undefined) {
        const existing = await repository.findIdempotencyKey(row.id, idempotencyKey).catch(() => undefined);
        return existing ? replay(existing, requestHash, requestId) : ctcError('ctc:012', requestId);
      }
      return ctcError('ctc:007', requestId);
    }

    // 10. The provider places the call; if it cannot, the call ends and its number is free again.
    const started = await startWithProvider(row.provider as ProviderName, {
      callId,
      agent: {
        id: row.id,
        organizationId: row.organizationId,
        name: row.name,
        prompt: row.prompt,
        firstMessage: row.firstMessage,
        fromNumber: row.fromNumber,
        providerCredentialId: row.providerCredentialId,
        providerAgentId: row.providerAgentId,
        simulator: row.simulator as SimulatorScenario | null,
      },
      to: body.phone,
      variables,
    });
    try {
      if (!started.ok) {
        await calls.failStart(callId, started.message);
        if (idempotencyKey !== undefined) await repository.releaseIdempotencyKey(row.id, idempotencyKey);
        return ctcError('ctc:008', requestId, { callId });
      }
      calls.recordProviderCallId(callId, started.providerCallId);
      const response = { success: true, callId, status: 'queued', requestId };
      if (idempotencyKey !== undefined) await repository.completeIdempotencyKey(row.id, idempotencyKey, response);
      return { status: 200, body: response };
    } catch (error) {
      report(error, 'recording the provider answer');
      return started.ok
        ? { status: 200, body: { success: true, callId, status: 'queued', requestId } }
        : ctcError('ctc:008', requestId, { callId });
    }
  }

  const service = {
    /**
     * Checks 1–3 from the headers alone, before the body is read: the refusal when the token is
     * missing or surely unknown (memory says so, decision 0029), else undefined and `trigger` goes on.
     */
    refuseBeforeBody(request: Pick<ClickToCallRequest, 'requestId' | 'apiKey'>): CtcResponse | undefined {
      const response = !request.apiKey
        ? ctcError('ctc:001', request.requestId)
        : agents.isSurelyUnknownToken(request.apiKey)
          ? ctcError('ctc:003', request.requestId)
          : undefined;
      if (response) answered(String(response.body.code));
      return response;
    },

    async trigger(request: ClickToCallRequest): Promise<CtcResponse> {
      const response = await answer(request);
      const { code } = response.body;
      answered(response.body.success === true ? 'success' : typeof code === 'string' ? code : 'unknown');
      return response;
    },

    /**
     * The dashboard's "Test call": a click-to-call signed here with the agent's own credentials and
     * sent through `trigger`, so it passes every check a backend's request passes (rate limit,
     * ctc:007, configuration) and answers the same way. Only agents of type click_to_call have
     * credentials (409 otherwise, 404 for an unknown agent, as the management API answers).
     */
    async testCall(
      organizationId: string,
      agentId: string,
      input: { phone: string; variables?: Record<string, string> },
      requestId: string,
    ): Promise<CtcResponse> {
      const { apiToken, apiSecret } = await agents.credentials(organizationId, agentId);
      const rawBody = Buffer.from(JSON.stringify({ phone: input.phone, variables: input.variables ?? {} }));
      // Timestamped, so it passes whether or not the agent requires signature-timestamp.
      const timestamp = String(Math.floor(now().getTime() / 1000));
      return service.trigger({
        requestId,
        apiKey: apiToken,
        signature: signClickToCall(apiSecret, rawBody, timestamp),
        signatureTimestamp: timestamp,
        idempotencyKey: undefined,
        rawBody,
      });
    },
  };
  return service;
}

export type ClickToCallService = ReturnType<typeof createClickToCallService>;
