import { randomUUID } from 'node:crypto';
import type { SimulatorScenario } from '../../agents/agents.schemas.js';
import type { TranscriptTurn } from '../../db/schema/index.js';
import { jsonProblem } from '../../lib/json-guard.js';
import { fillTemplate } from '../../lib/template.js';
import type {
  CallEvent,
  CallEventSink,
  StartCallRequest,
  StartCallResult,
  ToolCallResult,
  ToolInvoker,
  VoiceProvider,
} from '../voice-provider.js';
import { newPlayerId, type SimulatorLease } from './simulator-lease.js';

/** Unanswered calls end at once with these outcomes and reasons (docs/interface.md#simulator). */
const UNANSWERED = {
  no_answer: { outcome: 'NO_ANSWER', endedReason: 'no_answer' },
  busy: { outcome: 'BUSY', endedReason: 'busy' },
  voicemail: { outcome: 'VOICEMAIL', endedReason: 'voicemail' },
} as const;

/** The first pause before an end-of-call report that could not be recorded is sent again; it doubles up to the next. */
const END_REPORT_RETRY_MS = 250;
const END_REPORT_RETRY_MAX_MS = 5000;
/**
 * Sends of one end-of-call report at most: about ten minutes of a database away (the sink throws
 * only for passing faults; a report it refuses for good ends the call as FAILED itself). Past it
 * the duration sweep closes the call (docs/decisions/0027-bounded-call-records.md).
 */
const END_REPORT_MAX_ATTEMPTS = 120;

export interface SimulatorOptions {
  /** Where the simulated call's events go: the same sink real providers' webhooks feed. */
  onEvent: CallEventSink;
  /** Runs a tool the scenario calls: the same path a real provider's tool webhook takes. */
  invokeTool: ToolInvoker;
  /** Told about an event the sink could not apply; the call goes on (the duration sweep is the backstop). */
  onError?: (error: unknown, callId: string) => void;
  /**
   * Which call of its agent to its number a call is (1 for the first), as the calls table says: a
   * scenario's `answers` picks by it. Read only for scenarios that have `answers`.
   */
  callNumber: (callId: string) => Promise<number | null>;
  /**
   * Told, when the simulator closes, of the calls it started whose end it had not reported (it
   * plays nothing further): they are closed at once rather than left in progress until their
   * deadline (decision 0091). Its failure is its own to report; the close goes on.
   */
  onAbandoned?: (callIds: string[]) => Promise<void>;
  /**
   * On a shared PostgreSQL: held while calls are under way, so that a worker closes them if this
   * process is killed outright (decision 0094). Absent where the process alone uses its database.
   */
  lease?: SimulatorLease;
}

type Answer = NonNullable<SimulatorScenario['answer']>;

/**
 * How the call is answered: `answers[n - 1]` for the agent's n-th call to the number, the last one
 * once the list is used up; else `answer`; else answered.
 */
async function answerOf(request: StartCallRequest, callNumber: SimulatorOptions['callNumber']): Promise<Answer> {
  const scenario = request.agent.simulator ?? {};
  const answers = scenario.answers;
  if (!answers || answers.length === 0) return scenario.answer ?? 'answered';
  const n = (await callNumber(request.callId)) ?? 1;
  return answers[Math.min(Math.max(n, 1), answers.length) - 1] as Answer;
}

/**
 * The built-in provider: plays an agent's scenario as a real provider would report it, with no
 * network. `delayMs` spreads the turns over the time the call stays in progress; with 0 the
 * end-of-call report follows at once, carrying the whole transcript, as real reports do.
 */
export function createSimulator({
  onEvent,
  invokeTool,
  onError,
  callNumber,
  onAbandoned,
  lease,
}: SimulatorOptions): VoiceProvider {
  /** Names this process in its calls' provider call ids: `sim_<player>_<uuid>` (decision 0094). */
  const playerId = lease?.playerId ?? newPlayerId();
  const running = new Set<Promise<void>>();
  /** The calls started whose end report is not recorded yet: those left when it closes are abandoned. */
  const unfinished = new Set<string>();
  const finish = (callId: string) => {
    if (unfinished.delete(callId)) lease?.done();
  };
  /** Pending pauses, so that close() can end them at once. */
  const sleepers = new Map<NodeJS.Timeout, () => void>();
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || closed) return resolve();
      const timer = setTimeout(() => {
        sleepers.delete(timer);
        resolve();
      }, ms);
      sleepers.set(timer, resolve);
    });

  async function emit(event: Parameters<CallEventSink>[0]): Promise<void> {
    if (closed) return;
    try {
      await onEvent(event);
    } catch (error) {
      onError?.(error, event.callId);
    }
  }

  /**
   * The end-of-call report carries the call's outcome: one that could not be recorded (the database
   * is away) is sent again, with growing pauses, until it is, the simulator closes or
   * END_REPORT_MAX_ATTEMPTS are spent, as a provider that retries its webhooks would. Ending an
   * ended call changes nothing, so a repeat is harmless. (Statuses and transcript turns are not
   * repeated: the end report carries what they did.) The first failure and the last are told.
   */
  async function emitEnd(event: Extract<CallEvent, { type: 'ended' }>): Promise<void> {
    let pauseMs = END_REPORT_RETRY_MS;
    for (let attempt = 1; !closed; attempt++) {
      try {
        await onEvent(event);
        finish(event.callId);
        return;
      } catch (error) {
        if (attempt === 1 || attempt === END_REPORT_MAX_ATTEMPTS) onError?.(error, event.callId);
        if (attempt === END_REPORT_MAX_ATTEMPTS) return;
      }
      await sleep(pauseMs);
      pauseMs = Math.min(pauseMs * 2, END_REPORT_RETRY_MAX_MS);
    }
  }

  /**
   * A scenario that could not be played to its end (a bug of ours) still ends its call, as a provider
   * reports a call its pipeline dropped: FAILED, with the reason `error`, instead of leaving it in
   * progress until the duration sweep.
   */
  async function failed(callId: string, error: unknown): Promise<void> {
    onError?.(error, callId);
    await emitEnd({
      type: 'ended',
      callId,
      at: new Date(),
      outcome: 'FAILED',
      endedReason: 'error',
      collectedData: {},
      durationSeconds: 0,
    });
  }

  async function play(request: StartCallRequest, answer: Answer): Promise<void> {
    const { callId, variables } = request;
    const scenario: SimulatorScenario = request.agent.simulator ?? {};
    const delayMs = scenario.delayMs ?? 0;
    // A call that lasts no time at all is reported by its end-of-call report alone (it says when
    // the call was answered): statuses nobody could observe would only cost writes.
    const live = delayMs > 0;
    if (live) await emit({ type: 'ringing', callId, at: new Date() });

    if (answer === 'no_answer' || answer === 'busy' || answer === 'voicemail') {
      await sleep(delayMs);
      await emitEnd({
        type: 'ended',
        callId,
        at: new Date(),
        ...UNANSWERED[answer],
        transcript: [],
        collectedData: {},
        durationSeconds: scenario.durationSeconds ?? 0,
      });
      return;
    }

    const callTool = async (name: string, args: Record<string, unknown>): Promise<ToolCallResult> => {
      // Shutting down calls no customer endpoint: the call is abandoned (`close`).
      if (closed) return { result: 'Error: the call was interrupted', error: 'the simulator is shutting down' };
      try {
        return await invokeTool({ callId, name, args });
      } catch (error) {
        onError?.(error, callId);
        return { result: 'Error: the tool could not be run', error: 'internal error' };
      }
    };

    const answeredAt = new Date();
    if (live) await emit({ type: 'answered', callId, at: answeredAt });
    const toolResults = new Map<string, unknown>();
    const fill = (text: string) =>
      fillTemplate(text, (name) => {
        // Own keys only: {{constructor}} must not find Object.prototype's.
        if (!name.startsWith('tool.')) return Object.hasOwn(variables, name) ? variables[name] : undefined;
        return lookupToolResult(toolResults, name.slice('tool.'.length));
      });

    const script: (() => Promise<TranscriptTurn>)[] = [];
    const now = () => new Date().toISOString();
    if (request.agent.firstMessage) {
      const text = request.agent.firstMessage;
      script.push(async () => ({ role: 'agent', text: fill(text), at: now() }));
    }
    for (const turn of scenario.turns ?? []) {
      if ('tool' in turn) {
        script.push(async () => {
          const outcome = await callTool(turn.tool, turn.args ?? {});
          toolResults.set(turn.tool, outcome.error === null ? parseResult(outcome.result) : { error: outcome.result });
          return { role: 'tool', name: turn.tool, text: outcome.result, at: now() };
        });
      } else {
        script.push(async () => ({ role: turn.role, text: fill(turn.text), at: now() }));
      }
    }

    const transcript: TranscriptTurn[] = [];
    const pause = delayMs / (script.length + 1);
    for (const next of script) {
      await sleep(pause);
      const turn = await next();
      transcript.push(turn);
      if (live) await emit({ type: 'transcript', callId, turn });
    }
    await sleep(pause);
    // The scripted summary (optional), filled like the turns: {{name}} and {{tool.<name>.<path>}}.
    const summary = (scenario.outcome as { summary?: unknown } | undefined)?.summary;
    await emitEnd({
      type: 'ended',
      callId,
      at: new Date(),
      answeredAt,
      outcome: scenario.outcome?.status ?? 'COMPLETED',
      endedReason: 'agent_hangup',
      transcript,
      collectedData: scenario.outcome?.collectedData ?? {},
      durationSeconds: scenario.durationSeconds ?? Math.round(delayMs / 1000),
      ...(typeof summary === 'string' && summary !== '' ? { summary: fill(summary) } : {}),
    });
  }

  return {
    name: 'simulator',
    async startCall(request: StartCallRequest): Promise<StartCallResult> {
      if (closed) return { ok: false, message: 'The simulator is shutting down' };
      const answer = await answerOf(request, callNumber);
      if (closed) return { ok: false, message: 'The simulator is shutting down' };
      if (answer === 'fail_to_start') {
        return {
          ok: false,
          message: 'The simulated provider refused to start the call (scenario answer "fail_to_start")',
        };
      }
      // Held before the call starts, so that no call of this process is ever out of its lease's sight.
      const held = lease?.acquire();
      if (held) await held;
      if (closed) {
        lease?.done();
        return { ok: false, message: 'The simulator is shutting down' };
      }
      // The call plays after the start is answered, as a real provider's webhooks arrive later.
      const { callId } = request;
      unfinished.add(callId);
      const run = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => play(request, answer))
        .catch((error) => failed(callId, error))
        .finally(() => {
          running.delete(run);
          // An end that could not be recorded while open is the duration sweep's (END_REPORT_MAX_ATTEMPTS).
          if (!closed) finish(callId);
        });
      running.add(run);
      return { ok: true, providerCallId: `sim_${playerId}_${randomUUID()}` };
    },
    async close() {
      closed = true;
      for (const [timer, wake] of sleepers) {
        clearTimeout(timer);
        wake();
      }
      sleepers.clear();
      await Promise.allSettled([...running]);
      if (unfinished.size > 0) await onAbandoned?.([...unfinished]);
      unfinished.clear();
      await lease?.close();
    },
  };
}

/**
 * A tool's result as `{{tool.<name>.<path>}}` reads it: JSON when it parses, else the text. JSON
 * nested deeper than the API takes anywhere stays text: JSON.parse copes with any depth, but
 * JSON.stringify (a reference to an object) recurses, and a hostile endpoint's 10,000 levels
 * overflowed the stack and stranded the call.
 */
function parseResult(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return jsonProblem(parsed) ? text : parsed;
}

/** `{{tool.<name>.<path>}}`: a dotted path into the named tool's result; objects come back as JSON. */
function lookupToolResult(results: Map<string, unknown>, reference: string): string | undefined {
  const [name, ...path] = reference.split('.');
  if (!name || !results.has(name)) return undefined;
  let value: unknown = results.get(name);
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
