import { Readable } from 'node:stream';
import { isTransientDatabaseError } from '../db/client.js';
import type { DeliveryView } from '../deliveries/deliveries.schemas.js';
import { notFound, validationError } from '../errors.js';
import { toStorableJson } from '../lib/json-guard.js';
import { cappedTotal, type Page, TOTAL_CAP } from '../lib/pagination.js';
import { type CallEvent, SIMULATED_CALLER_ID } from '../providers/voice-provider.js';
import type { ToolInvocationView } from '../tools/tools.schemas.js';
import { decodeCallCursor, encodeCallCursor } from './call-cursor.js';
import { boundCallEvent, boundErrorText, CALL_RECORD_BUDGET } from './call-record-budget.js';
import type {
  CallFilter,
  CallKey,
  CallRow,
  CallsRepository,
  EndCall,
  ProviderCallContext,
} from './calls.repository.js';
import type { CallSort, CallView } from './calls.schemas.js';
import { csvColumns, csvRecord } from './calls-csv.js';
import { type EndedEvent, endReportOf } from './end-report.js';

export { CALL_STATUSES } from './calls.schemas.js';

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

/** A call as the API shows it. */
export function toCallView(
  row: CallRow,
  toolInvocations: ToolInvocationView[] = [],
  deliveries: DeliveryView[] = [],
): CallView {
  return {
    id: row.id,
    agentId: row.agentId,
    provider: row.provider as CallView['provider'],
    providerCallId: row.providerCallId,
    // Simulator calls recorded before decision 0032 have no number: they show the simulated one.
    from: row.fromNumber ?? SIMULATED_CALLER_ID,
    to: row.toNumber,
    direction: row.direction as CallView['direction'],
    status: row.status as CallView['status'],
    outcome: row.outcome,
    endedReason: row.endedReason,
    error: row.error,
    variables: row.variables,
    collectedData: row.collectedData,
    summary: row.summary,
    recordingUrl: row.recordingUrl,
    warnings: row.warnings,
    transcript: row.transcript,
    toolInvocations,
    deliveries,
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    answeredAt: iso(row.answeredAt),
    endedAt: iso(row.endedAt),
    durationSeconds: row.durationSeconds,
    campaignId: row.campaignId ?? null,
    contactId: row.contactId ?? null,
  };
}

/** GET /v1/calls's query: the filter, the sort, and the page. */
export interface CallListQuery extends CallFilter {
  sort?: CallSort;
  cursor?: string;
  limit?: number;
}

/** How many calls the CSV export reads per statement. */
export const EXPORT_BATCH = 1000;

/**
 * An ISO 8601 time to the microsecond, as the database keeps times: [milliseconds since the epoch,
 * the microseconds beyond them] (a JavaScript date stops at the millisecond).
 */
function instant(iso: string): [number, number] {
  const fraction = /T[^.]*\.(\d+)/.exec(iso)?.[1] ?? '';
  return [Date.parse(iso), Number(fraction.slice(3, 6).padEnd(3, '0'))];
}

const notAfter = ([ms, micros]: [number, number], [ms2, micros2]: [number, number]) =>
  ms < ms2 || (ms === ms2 && micros <= micros2);

/** The query's filter; 422 naming `query.until` when the period it names is empty or backwards. */
function filterOf(query: CallFilter): CallFilter {
  const { agentId, status, outcome, direction, since, until, phone, campaignId } = query;
  if (since !== undefined && until !== undefined && notAfter(instant(until), instant(since)))
    throw validationError([{ path: 'query.until', message: 'must be later than since' }]);
  // A prefix without its `+` is read as one with it: every number is stored in E.164, e.g. +14155550123.
  const prefix = phone === undefined || phone.startsWith('+') ? phone : `+${phone}`;
  return { agentId, status, outcome, direction, since, until, phone: prefix, campaignId };
}

/** What a caller has read already of an ending call's agent (with `providerContext`). */
export type KnownAgent = Pick<ProviderCallContext, 'collect'>;

export interface CallsServiceDeps {
  repository: CallsRepository;
  now?: () => Date;
  /** A write done in the background failed (it is not retried: provider webhooks carry our call id too). */
  onError?: (error: unknown, callId: string) => void;
  /** The tool invocations recorded on these calls of the organization, by call id. */
  toolInvocationsOf: (organizationId: string, callIds: string[]) => Promise<Map<string, ToolInvocationView[]>>;
  /** The calls' tool runs: an ending call waits for their records, so an ended call shows every one. */
  toolCalls?: { settled(callId: string): Promise<void>; callEnded(callId: string): void };
  /** The webhook deliveries of these calls of the organization, by call id. */
  deliveriesOf?: (organizationId: string, callIds: string[]) => Promise<Map<string, DeliveryView[]>>;
  /** Calls ended and their outcomes were queued for delivery: workers may look now. */
  onCallsEnded?: () => void;
  /** One call reached its terminal state (the metrics count them by outcome and provider). */
  onCallEnded?: (outcome: string, provider: string) => void;
  /**
   * A call's end the database refused for good (not a passing fault): the call was ended as FAILED,
   * `endedReason` "record_failed", without what the report carried. Told once per such call.
   */
  onEndRefused?: (error: unknown, callId: string) => void;
}

const validDate = (date: Date | undefined): Date | undefined =>
  date instanceof Date && !Number.isNaN(date.getTime()) ? date : undefined;

/** The error text of a call whose end could not be recorded: the database's own message. */
function refusedEndError(error: unknown): string {
  // The database's own error is the innermost cause (a driver wraps it in one naming the whole statement).
  let cause = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  return boundErrorText(
    `The call's end could not be recorded (${typeof code === 'string' ? `${code}: ` : ''}${message}); it was ended without its report`,
  );
}

export function createCallsService({
  repository,
  now = () => new Date(),
  onError = () => {},
  toolInvocationsOf,
  toolCalls = { settled: async () => {}, callEnded: () => {} },
  deliveriesOf = async () => new Map(),
  onCallsEnded = () => {},
  onCallEnded = () => {},
  onEndRefused = () => {},
}: CallsServiceDeps) {
  /**
   * The report as the call records it: its collected data typed against the agent's `collect`, and
   * what could not be kept listed in its warnings. Nothing reported, nothing to read; a `collect` the
   * caller read already (a provider's webhook, with the call's context) is not read again.
   */
  const reportOf = async (event: EndedEvent, agent?: KnownAgent): Promise<EndCall> => {
    if (Object.keys(event.collectedData).length === 0) return endReportOf(event, []);
    return endReportOf(event, agent ? agent.collect : await repository.collectOf(event.callId));
  };

  /** Ends a call through the repository; true when this report ended it (its outcome is then queued). */
  const end = async (callId: string, report: EndCall, providerCallId?: string): Promise<boolean> => {
    const ended = await repository.end(callId, report, providerCallId);
    if (!ended) return false;
    onCallEnded(ended.outcome, ended.provider);
    // Waking the workers costs a NOTIFY and a claim in every process: only for deliveries to make.
    if (ended.queued > 0) onCallsEnded();
    return true;
  };
  const relatedOf = async (organizationId: string, callIds: string[]) => {
    const [invocations, deliveries] = await Promise.all([
      toolInvocationsOf(organizationId, callIds),
      deliveriesOf(organizationId, callIds),
    ]);
    return (row: CallRow) => toCallView(row, invocations.get(row.id), deliveries.get(row.id));
  };

  // Provider call ids are written after the click-to-call answer, which does not wait for them.
  // An id waits one turn of the event loop: if the call's first status event comes meanwhile (the
  // simulator's do), the event's own statement writes it; otherwise it is written alone. A status
  // event whose call's id is being written waits for that, so an ended call always has its id.
  const queuedIds = new Map<string, string>();
  const idWrites = new Map<string, Promise<void>>();

  const writeProviderCallId = (callId: string, providerCallId: string): void => {
    const write: Promise<void> = repository
      .setProviderCallId(callId, providerCallId)
      .then(
        () => {},
        (error: unknown) => onError(error, callId),
      )
      .finally(() => {
        if (idWrites.get(callId) === write) idWrites.delete(callId);
      });
    idWrites.set(callId, write);
  };

  const writeQueuedId = (callId: string): void => {
    const providerCallId = queuedIds.get(callId);
    if (providerCallId === undefined) return;
    queuedIds.delete(callId);
    writeProviderCallId(callId, providerCallId);
  };

  /** The call's provider id if no statement has taken it yet (the caller's statement writes it). */
  const takeQueuedId = async (callId: string): Promise<string | undefined> => {
    const providerCallId = queuedIds.get(callId);
    if (providerCallId === undefined) {
      await idWrites.get(callId);
      return undefined;
    }
    queuedIds.delete(callId);
    return providerCallId;
  };

  /** After a status event that carried the id changed nothing (the call had moved on): the id alone. */
  const keepId = (callId: string, providerCallId: string | undefined, written: boolean): void => {
    if (providerCallId !== undefined && !written) writeProviderCallId(callId, providerCallId);
  };

  /** The duration sweep: closes calls open past their deadline, in batches. Returns how many. */
  const closeOverdueCalls = async (batchSize = 500): Promise<number> => {
    let closed = 0;
    for (;;) {
      const ended = await repository.closeOverdue(now(), batchSize);
      for (const call of ended) {
        toolCalls.callEnded(call.id);
        onCallEnded(call.outcome, call.provider);
      }
      if (ended.some((call) => call.queued > 0)) onCallsEnded();
      closed += ended.length;
      if (ended.length < batchSize) return closed;
    }
  };

  /** After simulated calls were brought due (`expired` of them): the sweep closes them now. Returns `expired`. */
  const closeExpired = async (expired: number): Promise<number> => {
    if (expired > 0) await closeOverdueCalls();
    return expired;
  };

  return {
    /** A page of the calls the query's filter keeps, in its sort, with how many it keeps in all. */
    async list(
      organizationId: string,
      query: CallListQuery,
    ): Promise<Page<CallView> & { total: number; totalCapped: boolean }> {
      const limit = query.limit ?? 20;
      const sort = query.sort ?? '-createdAt';
      const filter = filterOf(query);
      const after = query.cursor === undefined ? undefined : decodeCallCursor(query.cursor, sort);
      // The count (an index range of up to 10,001 entries, the request's longest statement) runs
      // beside the whole page: the rows, then their tool runs and deliveries.
      const [total, { rows, page, view }] = await Promise.all([
        repository.count(organizationId, filter, TOTAL_CAP + 1),
        (async () => {
          const rows = await repository.list(organizationId, filter, sort, after, limit + 1);
          const page = rows.slice(0, limit);
          const view = await relatedOf(
            organizationId,
            page.map((row) => row.id),
          );
          return { rows, page, view };
        })(),
      ]);
      const last = page[page.length - 1];
      return {
        data: page.map(view),
        nextCursor: rows.length > limit && last ? encodeCallCursor(sort, { key: last.sortKey, id: last.id }) : null,
        ...cappedTotal(total),
      };
    },

    /**
     * The CSV export of the calls the query keeps, in its sort (decision 0041): a stream that reads
     * `EXPORT_BATCH` calls at a time by keyset, and reads the next batch only once the reply has
     * taken the previous one, so the file's size never sits in memory. Checked before the first byte:
     * a bad filter is a 422, not a broken file.
     */
    async exportCsv(
      organizationId: string,
      query: Omit<CallListQuery, 'cursor' | 'limit'>,
    ): Promise<{ filename: string; body: Readable }> {
      const sort = query.sort ?? '-createdAt';
      const filter = filterOf(query);
      const collect = filter.agentId ? await repository.agentCollect(organizationId, filter.agentId) : undefined;
      const columns = csvColumns(collect);
      async function* records(): AsyncGenerator<string> {
        yield csvRecord(columns.header);
        let after: CallKey | undefined;
        for (;;) {
          const rows = await repository.exportBatch(organizationId, filter, sort, after, EXPORT_BATCH);
          if (rows.length > 0) yield rows.map((row) => csvRecord(columns.fields(row))).join('');
          const last = rows[rows.length - 1];
          if (rows.length < EXPORT_BATCH || !last) return;
          after = { key: last.sortKey, id: last.id };
        }
      }
      return {
        filename: `calls-${now().toISOString().slice(0, 10)}.csv`,
        // One batch's text waits at most: the next is read when the reply drains it.
        body: Readable.from(records(), { highWaterMark: 1 }),
      };
    },

    async get(organizationId: string, id: string): Promise<CallView> {
      // The call first, then what relates to it (decision 0098): a call's tool runs are written before
      // its end and its deliveries with it, so rows read after the call hold all that its status
      // says happened. Read at once (0066), a related read could take its snapshot before the end
      // and the call's after: an ended call without its tool runs or deliveries.
      const row = await repository.find(organizationId, id);
      if (!row) throw notFound('Call');
      return (await relatedOf(organizationId, [id]))(row);
    },

    /** The call a provider's webhook names, with what is needed to authenticate and map it. */
    providerContext: (callId: string) => repository.providerContext(callId),

    /**
     * Applies what a provider reports. Events for calls that have ended already change nothing.
     * `agent`: what the caller read of the call's agent with the call (`providerContext`).
     */
    async applyEvent(event: CallEvent, agent?: KnownAgent): Promise<void> {
      // A NUL or lone surrogate in a transcript or collected data would fail the write (json-guard.ts).
      // Whatever the provider reported, the call's record stays within its budget (call-record-budget.ts;
      // an end's, once its collected data is typed: end-report.ts).
      event = toStorableJson(event);
      const { callId } = event;
      if (event.type === 'transcript') {
        const { turn } = boundCallEvent(event) as typeof event;
        await repository.appendTranscript(callId, turn, CALL_RECORD_BUDGET.transcriptBytes);
        return;
      }
      const providerCallId = await takeQueuedId(callId);
      switch (event.type) {
        case 'ringing':
          keepId(callId, providerCallId, await repository.markRinging(callId, providerCallId));
          return;
        case 'answered':
          keepId(callId, providerCallId, await repository.markAnswered(callId, event.at, providerCallId));
          return;
        case 'ended': {
          await toolCalls.settled(callId);
          let ended: boolean;
          try {
            ended = await end(callId, await reportOf(event, agent), providerCallId);
          } catch (error) {
            // A passing fault is the reporter's to retry; a report the database refuses would be
            // refused again for ever, so the call ends without it (and its number is free again).
            if (isTransientDatabaseError(error)) throw error;
            onEndRefused(error, callId);
            ended = await end(
              callId,
              {
                // Its times may be what was refused (an invalid date): kept only when they are valid.
                at: validDate(event.at) ?? now(),
                ...(validDate(event.answeredAt) ? { answeredAt: event.answeredAt } : {}),
                outcome: 'FAILED',
                endedReason: 'record_failed',
                collectedData: {},
                durationSeconds: 0,
                error: refusedEndError(error),
              },
              providerCallId,
            );
          }
          keepId(callId, providerCallId, ended);
          toolCalls.callEnded(callId);
          return;
        }
      }
    },

    /**
     * An end reported before the provider's analysis (Retell's `call_ended`): kept on the call, which
     * ends with the analysis (`applyEvent`) or, `graceSeconds` later, with this.
     */
    async provisionalEnd(event: EndedEvent, graceSeconds: number, agent?: KnownAgent): Promise<void> {
      const storable = toStorableJson(event);
      await repository.provisionalEnd(storable.callId, await reportOf(storable, agent), graceSeconds);
    },

    /**
     * Ends a call whose start the provider refused, releasing its number at once; `endedReason`
     * `not_started` for a campaign's call whose process died before the provider answered (decision 0049).
     */
    async failStart(callId: string, message: string, endedReason = 'failed_to_start'): Promise<void> {
      await end(callId, {
        at: now(),
        outcome: 'FAILED',
        endedReason,
        collectedData: {},
        durationSeconds: 0,
        error: boundErrorText(message),
      });
    },

    /** Records the provider's id for the call in the background; `drain` waits for it. */
    recordProviderCallId(callId: string, providerCallId: string): void {
      queuedIds.set(callId, providerCallId);
      setImmediate(() => writeQueuedId(callId));
    },

    /** Writes what is still queued and waits for the background writes (before the database closes). */
    async drain(): Promise<void> {
      for (const callId of [...queuedIds.keys()]) writeQueuedId(callId);
      await Promise.all(idWrites.values());
    },

    /**
     * At the start of a process that alone uses its database (the embedded one, decision 0085): the
     * simulated calls placed before `startedAt` were played by a process that is gone (a stopped
     * process plays nothing further), so they are closed now, as the duration sweep closes a call
     * that never reports its end, rather than at their deadline. Returns how many.
     */
    closeOrphanedSimulatedCalls: async (startedAt: Date): Promise<number> =>
      closeExpired(await repository.expireSimulatedCallsBefore(startedAt)),

    /**
     * When the simulator stops (decision 0091): the calls it was playing will never report their
     * end, so they are closed now, as the duration sweep closes such a call, rather than at their
     * deadline. Returns how many were still open.
     */
    closeAbandonedSimulatedCalls: async (callIds: string[]): Promise<number> =>
      closeExpired(await repository.expireSimulatedCalls(callIds, now())),

    /**
     * On a shared PostgreSQL (decision 0094): the simulated calls of a process whose lease lapsed
     * (killed outright: it renews while it plays) are closed now, as the duration sweep closes a
     * call that never reports its end, rather than at their deadline. Returns how many. It reads
     * every open call: the simulator's job asks first whether some lease lapsed.
     */
    closeCallsOfLapsedSimulatorLeases: async (): Promise<number> =>
      closeExpired(await repository.expireSimulatedCallsOfLapsedLeases(now())),

    /** The duration sweep: closes calls open past `maxCallDurationSeconds`. Returns how many. */
    closeOverdueCalls,
  };
}

export type CallsService = ReturnType<typeof createCallsService>;
