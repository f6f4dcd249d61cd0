import { variablesOf } from '../agents/agent-definition.js';
import type { AgentRow } from '../agents/agents.repository.js';
import type { SimulatorScenario } from '../agents/agents.schemas.js';
import { type AgentsService, type CallTriggerAgent, isConfigured } from '../agents/agents.service.js';
import { callDeadline } from '../calls/call-deadline.js';
import type { CallView } from '../calls/calls.schemas.js';
import type { CallsService } from '../calls/calls.service.js';
import type { Db } from '../db/client.js';
import { ApiError, notFound } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import {
  type ProviderName,
  type ProviderRegistry,
  SIMULATED_CALLER_ID,
  type StartCallRequest,
  type StartCallResult,
} from '../providers/voice-provider.js';
import { type CallRefusal, refusalToCtc } from './call-refusals.js';
import type { ClickToCallRepository, IdempotencyRow } from './click-to-call.repository.js';
import { type CtcResponse, ctcError } from './ctc-errors.js';
import { numberPolicyProblems } from './number-policy.js';
import { createRateLimiter, type RateLimitAnswer } from './rate-limit.js';
import { checkCallRequestBody, type ParsedBody, parseClickToCallBody } from './request-body.js';
import { signClickToCall, verifyClickToCallSignature } from './request-signature.js';

/** A click-to-call request as received: headers and the exact bytes of the body. */
export interface ClickToCallRequest {
  requestId: string;
  apiKey: string | undefined;
  /** `apiKey`'s hash (`apiTokenHash`), where the caller has computed it already: it is not computed again. */
  apiKeyHash?: string;
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
/**
 * Keys of `POST /v1/calls` are kept apart from click to call's (the same table, per agent): the two
 * hash different bodies and store different answers, so one key can never replay the other's.
 */
const API_KEY_PREFIX = 'api:';

/** What `POST /v1/calls` asks: the agent, the number and the variables, as the route received them. */
export interface ApiCallRequest {
  agentId: string;
  phone: string;
  variables?: Record<string, string>;
}

/** `POST /v1/calls`'s answer: the call, or the check that refused it (docs/interface.md#post-v1calls). */
export type ApiCallResult = { ok: true; call: CallView; replayed: boolean } | { ok: false; refusal: CallRefusal };

/** A pass's calls of one campaign (decision 0049): its agent, the contacts, and the scheduler's transaction. */
export interface CampaignCallsRequest {
  row: AgentRow;
  campaignId: string;
  contacts: { contactId: string; phone: string; variables: Record<string, string> }[];
  /** The scheduler's transaction: the calls commit with it, and with `alongside`'s statements. */
  within: Db;
  /** Statements that commit with the calls (the attempts, the contacts' state), given the recorded ones. */
  alongside: (tx: Db, recorded: { index: number; callId: string }[]) => Promise<void>;
}

/** Why a campaign's call was not recorded, in the checks' order. */
export type CampaignCallRefusal =
  | { reason: 'disabled' | 'not_configured' | 'at_capacity' | 'number_busy' }
  | { reason: 'number_policy'; message: string };

export type CampaignCallAcceptance =
  | { ok: true; callId: string; request: StartCallRequest; provider: ProviderName }
  | ({ ok: false } & CampaignCallRefusal);

/** The agent types that place calls (an inbound agent answers them). */
const PLACES_CALLS = new Set(['outbound', 'click_to_call']);

/**
 * Whether the agent can place a call through `POST /v1/calls`: as `configured` says for click to call
 * (a provider, and for real providers a credential and a caller id), for either type that places calls.
 */
const canPlaceCalls = (row: AgentRow) => PLACES_CALLS.has(row.type) && isConfigured({ ...row, type: 'click_to_call' });

/**
 * The variables an agent's script uses, tool variables aside, by agent row. Click to call's rows come
 * from the agent cache, one object per version of an agent, so its script is read once per version
 * rather than at every call.
 */
const scriptVariables = new WeakMap<AgentRow, readonly string[]>();
function scriptVariablesOf(row: AgentRow): readonly string[] {
  let names = scriptVariables.get(row);
  if (!names) {
    names = variablesOf(row).filter((name) => !name.startsWith('tool.'));
    scriptVariables.set(row, names);
  }
  return names;
}

/** The variables a call is placed with: those the script uses but the request left out are "", never undefined. */
function callVariables(row: AgentRow, given: Record<string, string>): Record<string, string> {
  return Object.fromEntries([...scriptVariablesOf(row).map((name) => [name, ''] as const), ...Object.entries(given)]);
}

/** A new call's row, queued, as click to call, `POST /v1/calls` and campaigns record it. */
function newCallRow(
  row: AgentRow,
  call: { id: string; to: string; variables: Record<string, string>; startedAt: Date },
  reportGraceSeconds: number,
  campaign?: { campaignId: string; contactId: string },
) {
  return {
    id: call.id,
    organizationId: row.organizationId,
    agentId: row.id,
    provider: row.provider,
    // Only a simulator agent can lack a number (isConfigured); its calls show the simulated one.
    fromNumber: row.fromNumber ?? SIMULATED_CALLER_ID,
    toNumber: call.to,
    status: 'queued',
    variables: call.variables,
    collectedData: {},
    transcript: [],
    startedAt: call.startedAt,
    deadlineAt: callDeadline(
      { startedAt: call.startedAt, provider: row.provider },
      row.maxCallDurationSeconds,
      reportGraceSeconds,
    ),
    ...campaign,
  };
}

/** What the provider is asked to place. */
function startRequestOf(
  row: AgentRow,
  callId: string,
  to: string,
  variables: Record<string, string>,
): StartCallRequest {
  return {
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
    to,
    variables,
  };
}

/**
 * What the checks from the idempotency key on came to: a call placed, an earlier request's answer
 * to replay (same key, same body), or the refusal of the first check that failed.
 */
type Placement =
  | { kind: 'placed'; callId: string }
  | { kind: 'replay'; callId: string; response: Record<string, unknown> | null }
  | { kind: 'refused'; refusal: CallRefusal };

const refused = (refusal: CallRefusal): Placement => ({ kind: 'refused', refusal });

/** An `Idempotency-Key` as sent, as stored (`storedKey`), and the hash of the request it came with. */
interface Idempotency {
  key: string;
  storedKey: string;
  requestHash: string;
}

/** What `place` needs besides the agent: the key, the agent's readiness, the body and what a replay answers. */
interface PlaceRequest {
  idempotency: Idempotency | undefined;
  /** Whether the agent is set up to place this kind of call (ctc:005 otherwise). */
  configured: (row: AgentRow) => boolean;
  /** The body check (ctc:009), made at its place in the order. */
  body: () => ParsedBody;
  /** What the key keeps to answer a retry with, once the call is placed. */
  storedAnswer: (callId: string) => Record<string, unknown>;
}

/** The request's own bytes' stand-in for `POST /v1/calls`: its fields, in one order whatever order they came in. */
function apiRequestHash(input: ApiCallRequest): string {
  const variables = Object.entries(input.variables ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(JSON.stringify([input.agentId, input.phone, variables]));
}

export interface ClickToCallServiceDeps {
  agents: AgentsService;
  calls: CallsService;
  repository: ClickToCallRepository;
  providers: ProviderRegistry;
  now?: () => Date;
  /** `SWITCHBOARD_PROVIDER_REPORT_GRACE_SECONDS`: a provider call's deadline past its maximum duration. */
  reportGraceSeconds: number;
  /** Told about infrastructure failures, which the caller only sees as ctc:002 / ctc:008. */
  onError?: (error: unknown, context: string) => void;
  /** Told every answer's code: `success` or the ctc code (the metrics count them). */
  onAnswered?: (code: string) => void;
}

/**
 * `POST /api/click-to-call` (docs/interface.md#click-to-call): every check in its documented order, the first that
 * fails answers. Returns the response to send; never throws. `POST /v1/calls` goes through the same
 * checks from the idempotency key on (`startCall`).
 */
export function createClickToCallService(deps: ClickToCallServiceDeps) {
  const { agents, calls, repository, providers, reportGraceSeconds } = deps;
  const now = deps.now ?? (() => new Date());
  const report = deps.onError ?? (() => {});
  const answered = deps.onAnswered ?? (() => {});
  const rateLimiter = createRateLimiter(repository);

  /** A refusal from the headers alone (ctc:001, ctc:003), counted. */
  const refusedBeforeBody = (code: 'ctc:001' | 'ctc:003', requestId: string): CtcResponse => {
    answered(code);
    return ctcError(code, requestId);
  };

  /** What an earlier request with the same key answers: its answer again, or why it cannot. */
  function replayOf(row: IdempotencyRow, requestHash: string): Placement {
    if (row.requestHash !== requestHash) {
      return refused({
        code: 'ctc:011',
        details: [{ path: 'headers.idempotency-key', message: 'was used with a different request body' }],
      });
    }
    if (row.state === 'completed' && row.response) {
      return { kind: 'replay', callId: row.callId ?? String(row.response.callId ?? ''), response: row.response };
    }
    // Still in progress after a minute: the first request's process died after its call was
    // recorded (the key and the call commit together). Whether the provider already placed it is
    // unknown, so the call is never placed again: the retry learns its id, and its outcome arrives
    // like any other (the duration sweep closes it if nothing ever reports).
    if (row.callId && row.createdAt.getTime() < now().getTime() - IDEMPOTENCY_ABANDONED_MS) {
      return { kind: 'replay', callId: row.callId, response: null };
    }
    return refused({ code: 'ctc:012' });
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

  /** A placement when the key settles the request (a replay or a refusal); undefined to go on. */
  async function placementFromIdempotencyKey(agentId: string, key: Idempotency): Promise<Placement | undefined> {
    if (key.key.length === 0 || key.key.length > MAX_IDEMPOTENCY_KEY) {
      return refused({
        code: 'ctc:011',
        details: [{ path: 'headers.idempotency-key', message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` }],
      });
    }
    try {
      const at = now();
      await repository.deleteIdempotencyKeyIfExpired(agentId, key.storedKey, at);
      const existing = await repository.findIdempotencyKey(agentId, key.storedKey);
      return existing ? replayOf(existing, key.requestHash) : undefined;
    } catch (error) {
      report(error, 'reading the idempotency key');
      return refused({ code: 'ctc:002' });
    }
  }

  /** ctc:010 once the agent's requests this minute exceed its limit, counted in the database (decision 0051). */
  async function checkRateLimit(agentId: string, limit: number | null): Promise<Placement | undefined> {
    if (limit === null) return undefined;
    let answer: RateLimitAnswer;
    try {
      answer = await rateLimiter.take(agentId, limit, now().getTime());
    } catch (error) {
      report(error, 'counting the request');
      return refused({ code: 'ctc:002' });
    }
    return answer.allowed ? undefined : refused({ code: 'ctc:010', retryAfterSeconds: answer.retryAfterSeconds });
  }

  /**
   * The checks of click to call from the idempotency key on (steps 6–14), for an agent its caller
   * may use: the first that fails refuses; else the call is recorded and handed to its provider.
   */
  async function place(row: AgentRow, request: PlaceRequest): Promise<Placement> {
    // A retried request answers what the first one did, before it counts against the rate limit.
    const { idempotency } = request;
    if (idempotency) {
      const settled = await placementFromIdempotencyKey(row.id, idempotency);
      if (settled) return settled;
    }

    // The agent's rate limit, counted in the database so every process shares it.
    const limited = await checkRateLimit(row.id, row.rateLimitPerMinute);
    if (limited) return limited;

    // The agent must be on and set up to place calls.
    if (!row.enabled) return refused({ code: 'ctc:004' });
    if (!request.configured(row)) return refused({ code: 'ctc:005' });

    // The body.
    const body = request.body();
    if (!body.ok) return refused({ code: 'ctc:009', details: body.details });
    // Costly number types and the agent's countries (toll fraud, decision 0031).
    const refusedNumber = numberPolicyProblems(body.phone, row.allowedCountries ?? null);
    if (refusedNumber.length > 0) return refused({ code: 'ctc:009', details: refusedNumber });

    const variables = callVariables(row, body.variables);

    // Decided by the database, in this order, as the call is written: the organization's do-not-call
    // list (ctc:013, decision 0056), at most maxConcurrentCalls and one open call per number (ctc:007).
    // A database that fails here refuses the call (ctc:008): a listed number is never called for want
    // of an answer.
    const startedAt = now();
    const callId = newId('call', startedAt.getTime());
    let accepted: Awaited<ReturnType<ClickToCallRepository['acceptCall']>>;
    try {
      accepted = await repository.acceptCall({
        call: newCallRow(row, { id: callId, to: body.phone, variables, startedAt }, reportGraceSeconds),
        maxConcurrentCalls: row.maxConcurrentCalls,
        idempotency: idempotency && {
          key: idempotency.storedKey,
          requestHash: idempotency.requestHash,
          expiresAt: new Date(startedAt.getTime() + IDEMPOTENCY_TTL_MS),
        },
      });
    } catch (error) {
      report(error, 'recording the call');
      return refused({ code: 'ctc:008' });
    }
    if (!accepted.ok) {
      if (accepted.reason === 'idempotency_taken' && idempotency) {
        const existing = await repository.findIdempotencyKey(row.id, idempotency.storedKey).catch(() => undefined);
        return existing ? replayOf(existing, idempotency.requestHash) : refused({ code: 'ctc:012' });
      }
      if (accepted.reason === 'suppressed') return refused({ code: 'ctc:013' });
      return refused({ code: 'ctc:007', reason: accepted.reason === 'at_capacity' ? 'at_capacity' : 'number_busy' });
    }

    // The provider places the call; if it cannot, the call ends and its number is free again.
    const started = await startWithProvider(
      row.provider as ProviderName,
      startRequestOf(row, callId, body.phone, variables),
    );
    try {
      if (!started.ok) {
        await calls.failStart(callId, started.message);
        if (idempotency) await repository.releaseIdempotencyKey(row.id, idempotency.storedKey);
        return refused({ code: 'ctc:008', callId });
      }
      calls.recordProviderCallId(callId, started.providerCallId);
      if (idempotency) {
        await repository.completeIdempotencyKey(row.id, idempotency.storedKey, request.storedAnswer(callId));
      }
      return { kind: 'placed', callId };
    } catch (error) {
      report(error, 'recording the provider answer');
      return started.ok ? { kind: 'placed', callId } : refused({ code: 'ctc:008', callId });
    }
  }

  /** Every check in order; the first that fails answers. */
  async function answer(request: ClickToCallRequest): Promise<CtcResponse> {
    const { requestId } = request;
    // 1. The agent's token must be there.
    if (!request.apiKey) return ctcError('ctc:001', requestId);

    // 2–3. The agent it names.
    let agent: CallTriggerAgent | undefined;
    try {
      agent = await agents.findByApiToken(request.apiKey, request.apiKeyHash);
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

    // 6–14.
    const success = (callId: string) => ({ success: true, callId, status: 'queued', requestId });
    const placement = await place(row, {
      idempotency:
        request.idempotencyKey === undefined
          ? undefined
          : { key: request.idempotencyKey, storedKey: request.idempotencyKey, requestHash: sha256Hex(rawBody) },
      configured: isConfigured,
      body: () => parseClickToCallBody(request.rawBody),
      // The first answer's body, its requestId included (decision 0033).
      storedAnswer: success,
    });
    const replayed = { 'idempotent-replayed': 'true' };
    switch (placement.kind) {
      case 'placed':
        return { status: 200, body: success(placement.callId) };
      case 'replay':
        // A key stored before the requestId was kept (decision 0033) answers with this request's id,
        // so the body still has every documented field.
        return placement.response
          ? { status: 200, body: { requestId, ...placement.response }, headers: replayed }
          : { status: 200, body: success(placement.callId), headers: replayed };
      case 'refused':
        return refusalToCtc(placement.refusal, requestId);
    }
  }

  /**
   * A campaign's calls of one pass, through click to call's checks after the body check (decision
   * 0049): the agent on and set up, the number policy of each, then the calls recorded together by
   * `acceptCalls` under the agent's maxConcurrentCalls and the one-open-call-per-number guard, in the
   * scheduler's transaction. No idempotency key (the attempt row is the campaign's key) and no agent
   * rate limit (a campaign is paced by its own callsPerMinute). The do-not-call list is checked by the
   * scheduler's claim, in the same transaction. The provider is asked by `startCampaignCall`, after
   * the commit. Answers one acceptance per contact, in order.
   */
  async function acceptCampaignCalls(input: CampaignCallsRequest): Promise<CampaignCallAcceptance[]> {
    const { row } = input;
    if (!row.enabled) return input.contacts.map(() => ({ ok: false, reason: 'disabled' }));
    if (!canPlaceCalls(row)) return input.contacts.map(() => ({ ok: false, reason: 'not_configured' }));
    const answers: CampaignCallAcceptance[] = new Array(input.contacts.length);
    const candidates: { index: number; call: ReturnType<typeof newCallRow>; variables: Record<string, string> }[] = [];
    const startedAt = now();
    input.contacts.forEach((contact, index) => {
      const refusedNumber = numberPolicyProblems(contact.phone, row.allowedCountries ?? null);
      if (refusedNumber.length > 0) {
        answers[index] = {
          ok: false,
          reason: 'number_policy',
          message: refusedNumber.map((p) => p.message).join('; '),
        };
        return;
      }
      const variables = callVariables(row, contact.variables);
      const call = newCallRow(
        row,
        { id: newId('call', startedAt.getTime()), to: contact.phone, variables, startedAt },
        reportGraceSeconds,
        { campaignId: input.campaignId, contactId: contact.contactId },
      );
      candidates.push({ index, call, variables });
    });
    if (candidates.length > 0) {
      const results = await repository.acceptCalls({
        calls: candidates.map((c) => c.call),
        maxConcurrentCalls: row.maxConcurrentCalls,
        within: input.within,
        alongside: (tx, recorded) =>
          input.alongside(
            tx,
            recorded.map((i) => {
              const candidate = candidates[i] as (typeof candidates)[number];
              return { index: candidate.index, callId: candidate.call.id as string };
            }),
          ),
      });
      candidates.forEach((candidate, i) => {
        const result = results[i];
        answers[candidate.index] = result?.ok
          ? {
              ok: true,
              callId: candidate.call.id,
              provider: row.provider as ProviderName,
              request: startRequestOf(row, candidate.call.id, candidate.call.toNumber, candidate.variables),
            }
          : { ok: false, reason: result?.reason === 'at_capacity' ? 'at_capacity' : 'number_busy' };
      });
    }
    return answers;
  }

  /**
   * Asks the provider for a campaign's call recorded by `acceptCampaignCalls`: its id is recorded, or
   * the call ends as FAILED (failed_to_start) and its number is free again. Never throws.
   */
  async function startCampaignCall(accepted: { callId: string; provider: ProviderName; request: StartCallRequest }) {
    const started = await startWithProvider(accepted.provider, accepted.request);
    try {
      if (started.ok) calls.recordProviderCallId(accepted.callId, started.providerCallId);
      else await calls.failStart(accepted.callId, started.message);
    } catch (error) {
      report(error, 'recording the provider answer');
    }
    return started;
  }

  const service = {
    acceptCampaignCalls,
    startCampaignCall,

    /**
     * Checks 1–3 from the headers alone, before the body is read: the refusal when the token is
     * missing or surely unknown (memory says so, decision 0029), else undefined and `trigger` goes on.
     * A promise when memory has to wait for the change feed first (decision 0092).
     */
    refuseBeforeBody(
      request: Pick<ClickToCallRequest, 'requestId' | 'apiKey'>,
    ): CtcResponse | undefined | Promise<CtcResponse | undefined> {
      if (!request.apiKey) return refusedBeforeBody('ctc:001', request.requestId);
      const unknown = agents.isSurelyUnknownToken(request.apiKey);
      if (unknown === false) return undefined;
      if (unknown === true) return refusedBeforeBody('ctc:003', request.requestId);
      return unknown.then((surely) => (surely ? refusedBeforeBody('ctc:003', request.requestId) : undefined));
    },

    async trigger(request: ClickToCallRequest): Promise<CtcResponse> {
      const response = await answer(request);
      const { code } = response.body;
      answered(response.body.success === true ? 'success' : typeof code === 'string' ? code : 'unknown');
      return response;
    },

    /**
     * `POST /v1/calls` (docs/interface.md#post-v1calls): a call through one of the organization's
     * agents, authenticated by the caller's API key or session instead of the agent's credentials,
     * then through click to call's checks from the idempotency key on. Another organization's agent
     * is 404, an inbound agent 409; a refusal is a value, with the ctc code of the check.
     */
    async startCall(
      organizationId: string,
      input: ApiCallRequest,
      idempotencyKey: string | undefined,
    ): Promise<ApiCallResult> {
      const row = await repository.findAgent(organizationId, input.agentId);
      if (!row) throw notFound('Agent');
      if (!PLACES_CALLS.has(row.type)) {
        throw new ApiError('conflict', 'An inbound agent answers calls; it places none', [
          { path: '$.agentId', message: 'is an inbound agent: place calls through an outbound or click_to_call agent' },
        ]);
      }
      const placement = await place(row, {
        idempotency:
          idempotencyKey === undefined
            ? undefined
            : { key: idempotencyKey, storedKey: API_KEY_PREFIX + idempotencyKey, requestHash: apiRequestHash(input) },
        configured: canPlaceCalls,
        body: () => checkCallRequestBody({ phone: input.phone, variables: input.variables }),
        storedAnswer: (callId) => ({ callId }),
      });
      if (placement.kind === 'refused') return { ok: false, refusal: placement.refusal };
      return {
        ok: true,
        call: await calls.get(organizationId, placement.callId),
        replayed: placement.kind === 'replay',
      };
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
