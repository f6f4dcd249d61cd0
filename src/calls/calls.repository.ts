import { and, asc, count, desc, eq, getTableColumns, gte, like, lt, ne, or, type SQL, sql } from 'drizzle-orm';
import {
  arrayPlaceholder,
  type Db,
  isTransientDatabaseError,
  preparedStatement,
  probeOnly,
  retryOnConflict,
  rowsOf,
} from '../db/client.js';
import { agents, calls, type TranscriptTurn } from '../db/schema/index.js';
import { queueOutcomeDeliveries } from '../deliveries/deliveries.repository.js';
import { createBatcher } from '../lib/batcher.js';
import { type CallEvent, SIMULATED_CALLER_ID } from '../providers/voice-provider.js';
import { suppressEndedCalls } from '../suppressions/suppressions.repository.js';
import type { CallSort } from './calls.schemas.js';

export type CallRow = typeof calls.$inferSelect;

export interface ProviderCallContext {
  id: string;
  provider: string;
  organizationId: string;
  providerCredentialId: string | null;
  outcomes: string[];
  /**
   * What the call's agent declares it collects (`agents.collect`, as stored), read with the rest: an
   * end report's collected data is typed against it without a statement of its own.
   */
  collect: unknown;
}
/** The columns of a `ProviderCallContext`, read from a call joined with its agent. */
export const PROVIDER_CONTEXT_COLUMNS = {
  id: calls.id,
  provider: calls.provider,
  organizationId: calls.organizationId,
  providerCredentialId: agents.providerCredentialId,
  outcomes: agents.outcomes,
  collect: agents.collect,
};

export type NewCallRow = typeof calls.$inferInsert;

/**
 * How a call ended: what the provider's end-of-call report says (its collected data typed, src/calls/end-report.ts),
 * our own error text if any, and what the report said that could not be kept as it was.
 */
export type EndCall = Omit<Extract<CallEvent, { type: 'ended' }>, 'type' | 'callId'> & {
  error?: string;
  warnings?: string[];
};

/**
 * Each id once, sorted: a later duplicate's result is false (the first one did the work), and every
 * statement locks its rows in the same order, so two batches in flight cannot deadlock each other.
 */
function firstOccurrences<T extends { id: string }>(items: T[]): { unique: T[]; isFirst: boolean[] } {
  const seen = new Set<string>();
  const isFirst = items.map((item) => !seen.has(item.id) && Boolean(seen.add(item.id)));
  const unique = items.filter((_, i) => isFirst[i]).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { unique, isFirst };
}

/** Per item, whether its id is among the rows the statement changed. */
function changedIn(items: { id: string }[], isFirst: boolean[], result: unknown): boolean[] {
  const changed = new Set(rowsOf<{ id: string }>(result).map((row) => row.id));
  return items.map((item, i) => Boolean(isFirst[i]) && changed.has(item.id));
}

/** A call this statement ended: what the metrics count it by. */
export interface EndedCall {
  id: string;
  outcome: string;
  provider: string;
  /** How many webhook deliveries its end queued (0 when its agent has no enabled integration). */
  queued: number;
}

/** The calls an ending statement ended, each with the deliveries it queued (its `ended` and `queued` parts). */
const selectEnded = sql`
  select e.id, e.outcome, e.provider, (select count(*) from queued q where q.call_id = e.id)::int as queued
  from ended e`;

/** Per item, the call it ended, or null when its id was not among the rows the statement changed. */
function endedIn(items: { id: string }[], isFirst: boolean[], result: unknown): (EndedCall | null)[] {
  const ended = new Map(rowsOf<EndedCall>(result).map((row) => [row.id, row]));
  return items.map((item, i) => (isFirst[i] && ended.get(item.id)) || null);
}

/** What GET /v1/calls and its CSV export narrow the organization's calls to (all optional). */
export interface CallFilter {
  agentId?: string;
  status?: string;
  outcome?: string;
  direction?: string;
  /** ISO 8601: calls created at or after it. */
  since?: string;
  /** ISO 8601: calls created before it. */
  until?: string;
  /** The start of the number called or calling (`to` or `from`), `+` and digits only. */
  phone?: string;
  /** Only the calls this campaign placed. */
  campaignId?: string;
}

/** The last row of a page, as its cursor carries it: its sort key (as `sortKeyOf` reads it) and its id. */
export interface CallKey {
  key: string | null;
  id: string;
}

const filterCondition = (organizationId: string, filter: CallFilter) => {
  // Only `+` and digits reach here (the route's pattern): no LIKE wildcard to escape.
  const phone = filter.phone === undefined ? undefined : `${filter.phone}%`;
  return and(
    eq(calls.organizationId, organizationId),
    filter.agentId ? eq(calls.agentId, filter.agentId) : undefined,
    filter.status ? eq(calls.status, filter.status) : undefined,
    filter.outcome ? eq(calls.outcome, filter.outcome) : undefined,
    filter.direction ? eq(calls.direction, filter.direction) : undefined,
    filter.campaignId ? eq(calls.campaignId, filter.campaignId) : undefined,
    // Compared in SQL as timestamps: the text is parsed by the database, to the microsecond.
    filter.since ? gte(calls.createdAt, sql`${filter.since}::timestamptz`) : undefined,
    filter.until ? lt(calls.createdAt, sql`${filter.until}::timestamptz`) : undefined,
    phone
      ? or(
          like(calls.toNumber, phone),
          // As the API shows it: a simulator call recorded before decision 0032 is from the simulated caller id.
          like(sql`coalesce(${calls.fromNumber}, ${SIMULATED_CALLER_ID})`, phone),
        )
      : undefined,
  );
};

/**
 * Each sort's key as text: the creation time in UTC to the microsecond (a JavaScript date keeps
 * only milliseconds, and two calls may share one), or the duration; null for a call not ended.
 */
const sortKeyOf = (sort: CallSort) =>
  sort.endsWith('createdAt')
    ? sql<string>`to_char(${calls.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : sql<string | null>`${calls.durationSeconds}::text`;

/** The sort's order; the id breaks ties in the same direction, so every row has one place. */
const orderOf = (sort: CallSort) => {
  const descending = sort.startsWith('-');
  const by = descending ? desc : asc;
  if (sort.endsWith('createdAt')) return [by(calls.createdAt), by(calls.id)];
  // Calls not ended (no duration) come last either way.
  return [sql`${calls.durationSeconds} ${descending ? sql`desc` : sql`asc`} nulls last`, by(calls.id)];
};

/** The rows after `after` in the sort's order (keyset paging: no offset, however deep the page). */
const afterCondition = (sort: CallSort, after: CallKey) => {
  const descending = sort.startsWith('-');
  const beyond = descending ? sql`<` : sql`>`;
  if (sort.endsWith('createdAt'))
    return sql`(${calls.createdAt}, ${calls.id}) ${beyond} (${after.key}::timestamptz, ${after.id})`;
  const duration = calls.durationSeconds;
  // Nulls last: after a null key only nulls with a later id; after a number, the later numbers, then every null.
  if (after.key === null) return sql`(${duration} is null and ${calls.id} ${beyond} ${after.id})`;
  return sql`(${duration} is null or (${duration}, ${calls.id}) ${beyond} (${Number(after.key)}::int, ${after.id}))`;
};

/** The columns a row of the CSV export reads. */
const EXPORT_COLUMNS = {
  id: calls.id,
  createdAt: calls.createdAt,
  direction: calls.direction,
  agentId: calls.agentId,
  fromNumber: calls.fromNumber,
  toNumber: calls.toNumber,
  status: calls.status,
  outcome: calls.outcome,
  endedReason: calls.endedReason,
  durationSeconds: calls.durationSeconds,
  summary: calls.summary,
  collectedData: calls.collectedData,
  variables: calls.variables,
};
export type ExportRow = { [K in keyof typeof EXPORT_COLUMNS]: CallRow[K] } & { sortKey: string | null };

/** A batch's call ids, and the provider's ids it carries (null where none): the arrays its statement binds. */
const ids = (items: { id: string }[]) => items.map((i) => i.id);
const providerCallIds = (items: { providerCallId?: string }[]) => items.map((i) => i.providerCallId ?? null);

/** Longer than any call id of ours (`call_` and 26 characters, src/lib/ids.ts), with room to spare. */
const MAX_CALL_ID_LENGTH = 64;

export function createCallsRepository(db: Db) {
  /**
   * A provider's every message starts here: the call it names, with its agent's credential and
   * outcomes. Under load many arrive at once, so they are read a batch per statement, as the
   * collects of tool calls are: a lookup each had been the one statement per report that no batch
   * shared (1 of 1.7 a report with 50 Vapi reports at a time), a round trip of our process and of
   * the database each (docs/benchmarks.md, 2026-12-05). Alone, a lookup waits one turn of the event loop.
   */
  const providerContextsQuery = preparedStatement(
    db,
    'provider_call_contexts',
    sql`
      select c.id, c.provider, c.organization_id as "organizationId",
        a.provider_credential_id as "providerCredentialId", a.outcomes, a.collect
      from unnest(${arrayPlaceholder('ids', 'text')}) as v(id)
      join calls c on c.id = v.id and ${probeOnly(sql`c.id`)}
      join agents a on a.id = c.agent_id and ${probeOnly(sql`a.id`)}`,
  );
  const providerContexts = createBatcher(async (ids: string[]) => {
    const result = await providerContextsQuery({ ids: [...new Set(ids)] });
    const byId = new Map(rowsOf<ProviderCallContext>(result).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  });
  // Call events arrive many at a time under load: each kind is applied to a batch of calls in one
  // statement (createBatcher), so a busy server writes far fewer statements than calls. A provider's
  // call sends one of each; they are prepared (decision 0058), so that PostgreSQL parses and plans
  // them once per connection, and written for their kept plan to stay probes: arrays whose length
  // no plan knows (`arrayPlaceholder`), `probeOnly` on each lookup, and the status compared through
  // `coalesce` so that the partial index of open calls, whose statistics may say none is open, is
  // never the plan's way to the calls.
  // Each statement is built once (`preparedStatement`); a batch binds its arrays by name.
  const setProviderCallIds = preparedStatement(
    db,
    'set_provider_call_ids',
    sql`
      update calls set provider_call_id = v.provider_call_id
      from unnest(${arrayPlaceholder('ids', 'text')}, ${arrayPlaceholder('providerCallIds', 'text')})
        as v(id, provider_call_id)
      where calls.id = v.id and ${probeOnly(sql`calls.id`)}
      returning calls.id`,
  );
  const providerIds = createBatcher(async (items: { id: string; providerCallId: string }[]) => {
    const { unique, isFirst } = firstOccurrences(items);
    const result = await retryOnConflict(() =>
      setProviderCallIds({ ids: ids(unique), providerCallIds: providerCallIds(unique) }),
    );
    return changedIn(items, isFirst, result);
  });

  // What the agents of ending calls declare they collect (`collect`): one statement for the ends
  // that arrive together. A call whose agent declares nothing, or that is unknown, reads []. A
  // provider's webhook reads it with the call's context instead (`providerContext`): only the ends
  // that come without one (the simulator's) read it here.
  const callCollects = preparedStatement(
    db,
    'call_collects',
    sql`
      select c.id, a.collect from unnest(${arrayPlaceholder('ids', 'text')}) as v(id)
      join calls c on c.id = v.id and ${probeOnly(sql`c.id`)}
      join agents a on a.id = c.agent_id and ${probeOnly(sql`a.id`)}`,
  );
  const collects = createBatcher(async (ids: string[]) => {
    const result = await callCollects({ ids: [...new Set(ids)] });
    const byId = new Map(rowsOf<{ id: string; collect: unknown }>(result).map((row) => [row.id, row.collect]));
    return ids.map((id) => byId.get(id) ?? []);
  });

  const markRinging = preparedStatement(
    db,
    'mark_calls_ringing',
    sql`
      update calls set status = 'ringing', provider_call_id = coalesce(v.provider_call_id, calls.provider_call_id)
      from unnest(${arrayPlaceholder('ids', 'text')}, ${arrayPlaceholder('providerCallIds', 'text')})
        as v(id, provider_call_id)
      where calls.id = v.id and ${probeOnly(sql`calls.id`)} and coalesce(calls.status, '') = 'queued'
      returning calls.id`,
  );
  const ringing = createBatcher(async (items: { id: string; providerCallId?: string }[]) => {
    const { unique, isFirst } = firstOccurrences(items);
    const result = await retryOnConflict(() =>
      markRinging({ ids: ids(unique), providerCallIds: providerCallIds(unique) }),
    );
    return changedIn(items, isFirst, result);
  });

  const markAnswered = preparedStatement(
    db,
    'mark_calls_answered',
    sql`
      update calls set status = 'in_progress', answered_at = v.at,
        provider_call_id = coalesce(v.provider_call_id, calls.provider_call_id)
      from unnest(
        ${arrayPlaceholder('ids', 'text')},
        ${arrayPlaceholder('answeredAt', 'timestamptz')},
        ${arrayPlaceholder('providerCallIds', 'text')}
      ) as v(id, at, provider_call_id)
      where calls.id = v.id and ${probeOnly(sql`calls.id`)} and coalesce(calls.status, '') in ('queued', 'ringing')
      returning calls.id`,
  );
  const answered = createBatcher(async (items: { id: string; at: Date; providerCallId?: string }[]) => {
    const { unique, isFirst } = firstOccurrences(items);
    const result = await retryOnConflict(() =>
      markAnswered({
        ids: ids(unique),
        answeredAt: unique.map((i) => i.at.toISOString()),
        providerCallIds: providerCallIds(unique),
      }),
    );
    return changedIn(items, isFirst, result);
  });

  type Ending = { id: string; end: EndCall; providerCallId?: string };
  /** The element of the JSON array bound under `name` that belongs to the update's row `v` (its `n`, from 1). */
  const nthOfJsonArray = (name: string) => sql`(select ${sql.placeholder(name)}::jsonb) -> (v.n - 1)::int`;
  // Prepared (decision 0058): planning this statement cost PostgreSQL about 0.6 ms a batch. Its
  // kept plan stays probes: each lookup carries `probeOnly`, and the open-call condition is written
  // so that the partial indexes of open calls, whose statistics may say none is open, cannot serve it.
  // The collected data and transcripts go as one JSON array each, the nth element the nth call's
  // (decision 0108): in text arrays, each was escaped a second time into the array's literal, and
  // read back twice by PostgreSQL.
  const endCalls = preparedStatement(
    db,
    'end_calls',
    sql`
      with ended as (
        update calls set
          status = 'ended',
          outcome = v.outcome,
          ended_reason = v.ended_reason,
          ended_at = v.ended_at,
          duration_seconds = v.duration_seconds,
          collected_data = ${nthOfJsonArray('collectedData')},
          transcript = coalesce(nullif(${nthOfJsonArray('transcripts')}, 'null'), calls.transcript),
          error = coalesce(v.error, calls.error),
          summary = v.summary,
          recording_url = v.recording_url,
          warnings = calls.warnings || coalesce(v.warnings::jsonb, '[]'::jsonb),
          answered_at = coalesce(calls.answered_at, v.answered_at),
          provider_call_id = coalesce(v.provider_call_id, calls.provider_call_id)
        from unnest(
          ${arrayPlaceholder('ids', 'text')},
          ${arrayPlaceholder('outcomes', 'text')},
          ${arrayPlaceholder('endedReasons', 'text')},
          ${arrayPlaceholder('endedAt', 'timestamptz')},
          ${arrayPlaceholder('durations', 'int')},
          ${arrayPlaceholder('errors', 'text')},
          ${arrayPlaceholder('summaries', 'text')},
          ${arrayPlaceholder('recordingUrls', 'text')},
          ${arrayPlaceholder('warnings', 'text')},
          ${arrayPlaceholder('answeredAt', 'timestamptz')},
          ${arrayPlaceholder('providerCallIds', 'text')}
        ) with ordinality as v(id, outcome, ended_reason, ended_at, duration_seconds, error, summary,
               recording_url, warnings, answered_at, provider_call_id, n)
        where calls.id = v.id and ${probeOnly(sql`calls.id`)} and coalesce(calls.status, '') <> 'ended'
        returning calls.id, calls.agent_id, calls.organization_id, calls.outcome, calls.provider, calls.direction,
          calls.from_number, calls.to_number, calls.campaign_id
      ),
      queued as (${queueOutcomeDeliveries(sql`ended`)}),
      -- In the same statement, so a crash keeps both or neither (decision 0047).
      listed as (${suppressEndedCalls(sql`ended`)})
      ${selectEnded}`,
  );
  const endBatch = async (items: Ending[]) => {
    const { unique, isFirst } = firstOccurrences(items);
    const column = <T>(pick: (end: EndCall) => T) => unique.map((item) => pick(item.end));
    const result = await retryOnConflict(() =>
      endCalls({
        ids: ids(unique),
        outcomes: column((e) => e.outcome),
        endedReasons: column((e) => e.endedReason),
        endedAt: column((e) => e.at.toISOString()),
        durations: column((e) => e.durationSeconds),
        collectedData: JSON.stringify(column((e) => e.collectedData)),
        transcripts: JSON.stringify(column((e) => e.transcript ?? null)),
        errors: column((e) => e.error ?? null),
        summaries: column((e) => e.summary ?? null),
        recordingUrls: column((e) => e.recordingUrl ?? null),
        warnings: column((e) => (e.warnings?.length ? JSON.stringify(e.warnings) : null)),
        answeredAt: column((e) => e.answeredAt?.toISOString() ?? null),
        providerCallIds: providerCallIds(unique),
      }),
    );
    return endedIn(items, isFirst, result);
  };
  /**
   * Brings the deadline of the open simulated calls `which` selects to `at`, if later; returns how
   * many. `before` goes ahead of the update (a `with` its condition reads).
   */
  const expireOpenSimulatedCalls = async (at: Date, which: SQL, before = sql``): Promise<number> => {
    const result = await db.execute(sql`
      ${before}
      update calls set deadline_at = ${at.toISOString()}::timestamptz
      where provider = 'simulator' and status <> 'ended' and deadline_at > ${at.toISOString()}::timestamptz
        and ${which}
      returning id`);
    return rowsOf(result).length;
  };
  const endings = createBatcher(async (items: Ending[]): Promise<(EndedCall | null | { refused: unknown })[]> => {
    try {
      return await endBatch(items);
    } catch (error) {
      if (items.length === 1 || isTransientDatabaseError(error)) throw error;
      // One report the database refuses (docs/decisions/0027-bounded-call-records.md) must not fail
      // the other calls' ends written with it: each is written alone, and only its own call sees its error.
      const alone: (EndedCall | null | { refused: unknown })[] = [];
      for (const item of items)
        alone.push(
          await endBatch([item]).then(
            ([ended]) => ended ?? null,
            (e) => ({ refused: e }),
          ),
        );
      return alone;
    }
  });

  return {
    /**
     * How many calls are not yet ended, by status, across every organization: for the metrics.
     * Over the partial index of open calls (status <> 'ended'), however many calls have ended.
     */
    async openCounts(): Promise<Record<string, number>> {
      const result = await db.execute(
        sql`select status, count(*) as count from calls where status <> 'ended' group by status`,
      );
      return Object.fromEntries(
        rowsOf<{ status: string; count: string }>(result).map((r) => [r.status, Number(r.count)]),
      );
    },

    async find(organizationId: string, id: string): Promise<CallRow | undefined> {
      const rows = await db
        .select()
        .from(calls)
        .where(and(eq(calls.organizationId, organizationId), eq(calls.id, id)))
        .limit(1);
      return rows[0];
    },

    /** What a provider's webhook about the call needs: the call's provider, organization, and its agent's credential and outcomes. */
    providerContext(id: string): Promise<ProviderCallContext | undefined> {
      // The id comes from the provider's message. One that cannot be ours is none: too long for one
      // of our ids, or holding a NUL, which PostgreSQL's text refuses, failing the batch it was in.
      if (id.length > MAX_CALL_ID_LENGTH || id.includes('\u0000')) return Promise.resolve(undefined);
      return providerContexts.add(id);
    },

    /** One page of the calls the filter keeps, in the sort's order, after the `after` row of the previous page. */
    async list(
      organizationId: string,
      filter: CallFilter,
      sort: CallSort,
      after: CallKey | undefined,
      limit: number,
    ): Promise<(CallRow & { sortKey: string | null })[]> {
      return db
        .select({ ...getTableColumns(calls), sortKey: sortKeyOf(sort) })
        .from(calls)
        .where(and(filterCondition(organizationId, filter), after ? afterCondition(sort, after) : undefined))
        .orderBy(...orderOf(sort))
        .limit(limit);
    },

    /**
     * How many calls the filter keeps, across every page, counting no further than `atMost`: the
     * list's own condition, counted in SQL. An exact count reads every matching row's index entry,
     * 100,000 of them for a large organization; the cap keeps it to a bounded read (decision 0053).
     */
    async count(organizationId: string, filter: CallFilter, atMost: number): Promise<number> {
      const matching = db
        .select({ one: sql`1` })
        .from(calls)
        .where(filterCondition(organizationId, filter))
        .limit(atMost)
        .as('matching');
      const rows = await db.select({ n: count() }).from(matching);
      return rows[0]?.n ?? 0;
    },

    /**
     * A batch of the CSV export: like `list`, with only the columns a row of the file shows (no
     * transcript), so a batch of a thousand calls stays small.
     */
    async exportBatch(
      organizationId: string,
      filter: CallFilter,
      sort: CallSort,
      after: CallKey | undefined,
      limit: number,
    ): Promise<ExportRow[]> {
      return db
        .select({ ...EXPORT_COLUMNS, sortKey: sortKeyOf(sort) })
        .from(calls)
        .where(and(filterCondition(organizationId, filter), after ? afterCondition(sort, after) : undefined))
        .orderBy(...orderOf(sort))
        .limit(limit);
    },

    /** What the organization's agent declares it collects (`agents.collect`), undefined for an agent it does not have. */
    async agentCollect(organizationId: string, agentId: string): Promise<unknown[] | undefined> {
      const rows = await db
        .select({ collect: agents.collect })
        .from(agents)
        .where(and(eq(agents.organizationId, organizationId), eq(agents.id, agentId)))
        .limit(1);
      return rows[0]?.collect;
    },

    /** What the call's agent declares it collects (`agents.collect`, read as stored), [] for an unknown call. */
    collectOf: (id: string): Promise<unknown> => collects.add(id),

    /** Records the provider's id for the call. */
    setProviderCallId: (id: string, providerCallId: string): Promise<boolean> =>
      providerIds.add({ id, providerCallId }),

    /**
     * Status only moves forward: a late `ringing` never reopens an answered or ended call. Each
     * event may carry the provider's call id not yet written (it is written only if the event is).
     */
    markRinging: (id: string, providerCallId?: string): Promise<boolean> => ringing.add({ id, providerCallId }),

    markAnswered: (id: string, at: Date, providerCallId?: string): Promise<boolean> =>
      answered.add({ id, at, providerCallId }),

    /**
     * Appends a live turn while the transcript stays within `maxBytes` (its text as stored); past it
     * the turn is left out (false), and the end report's transcript, cut with a marker, replaces it.
     */
    async appendTranscript(id: string, turn: TranscriptTurn, maxBytes: number): Promise<boolean> {
      const json = JSON.stringify([turn]);
      const rows = await db
        .update(calls)
        .set({ transcript: sql`${calls.transcript} || ${json}::jsonb` })
        .where(
          and(
            eq(calls.id, id),
            ne(calls.status, 'ended'),
            sql`octet_length(${calls.transcript}::text) + ${Buffer.byteLength(json)} <= ${maxBytes}`,
          ),
        )
        .returning({ id: calls.id });
      return rows.length > 0;
    },

    /**
     * Ends a call unless it has ended already, so each call gets exactly one terminal state
     * whoever reports first (the provider, a repeated webhook, or the duration sweep); the call when
     * this report ended it, else null. Ending also releases the call's ctc:007 lock: the unique index covers
     * open calls only.
     */
    async end(id: string, end: EndCall, providerCallId?: string): Promise<EndedCall | null> {
      const ended = await endings.add({ id, end, providerCallId });
      if (ended && 'refused' in ended) throw ended.refused;
      return ended;
    },

    /**
     * Keeps an end the provider reported before its analysis, and brings the call's deadline to
     * `graceSeconds` from now: the analysis ends the call, or the sweep ends it with this.
     */
    async provisionalEnd(id: string, end: EndCall, graceSeconds: number): Promise<boolean> {
      const result = await db.execute(sql`
        update calls set provisional_end = ${JSON.stringify(end)}::jsonb,
          deadline_at = now() + make_interval(secs => ${graceSeconds})
        where id = ${id} and status <> 'ended'
        returning id`);
      return rowsOf(result).length > 0;
    },

    /**
     * Brings the deadline of each of these simulated calls still open to `at`, for the duration sweep
     * to close (decision 0091: the process playing them stops); returns how many.
     */
    expireSimulatedCalls: (ids: string[], at: Date): Promise<number> =>
      expireOpenSimulatedCalls(at, sql`id = any(${sql.param(ids)}::text[])`),

    /**
     * Brings the deadline of every simulated call still open that was placed before `before` to
     * `before`, so that the duration sweep closes it at its next run; returns how many. Only for a
     * process that alone uses its database (decision 0085): there, no other process plays them.
     */
    expireSimulatedCallsBefore: (before: Date): Promise<number> =>
      expireOpenSimulatedCalls(before, sql`created_at < ${before.toISOString()}::timestamptz`),

    /**
     * Removes the simulator leases past their time (their processes are gone: decision 0094) and, in
     * the same statement, brings the deadline of every simulated call still open that one of them
     * was playing (`sim_<player>_<uuid>`) to `at`; returns how many calls. One statement: a lease
     * renewed meanwhile waits for it, so a call started under the renewed lease is never taken.
     * It reads every open call: ask the simulator repository's `anyLeaseLapsed` first.
     */
    expireSimulatedCallsOfLapsedLeases: (at: Date): Promise<number> =>
      expireOpenSimulatedCalls(
        at,
        sql`split_part(provider_call_id, '_', 2) in (select player_id from lapsed)`,
        sql`with lapsed as (delete from simulator_leases where expires_at < now() returning player_id)`,
      ),

    /**
     * Closes up to `limit` open calls past their deadline as FAILED / timeout, queueing their
     * outcomes in the same statement; returns them.
     */
    async closeOverdue(now: Date, limit: number): Promise<EndedCall[]> {
      const at = now.toISOString();
      const result = await retryOnConflict(() =>
        db.execute(sql`
        with ended as (
          -- A provisional end (reported before the provider's analysis) is the end; else FAILED / timeout.
          update calls set
            status = 'ended',
            outcome = coalesce(calls.provisional_end->>'outcome', 'FAILED'),
            ended_reason = coalesce(calls.provisional_end->>'endedReason', 'timeout'),
            ended_at = coalesce((calls.provisional_end->>'at')::timestamptz, ${at}::timestamptz),
            duration_seconds = coalesce((calls.provisional_end->>'durationSeconds')::int,
              greatest(0, floor(extract(epoch from (${at}::timestamptz
                - coalesce(calls.answered_at, calls.started_at, calls.created_at)))))::int),
            collected_data = coalesce(calls.provisional_end->'collectedData', calls.collected_data),
            transcript = coalesce(calls.provisional_end->'transcript', calls.transcript),
            summary = coalesce(calls.provisional_end->>'summary', calls.summary),
            recording_url = coalesce(calls.provisional_end->>'recordingUrl', calls.recording_url),
            warnings = calls.warnings || coalesce(calls.provisional_end->'warnings', '[]'::jsonb),
            answered_at = coalesce(calls.answered_at, (calls.provisional_end->>'answeredAt')::timestamptz)
          where calls.id in (
            -- Soonest deadline first, as the partial index of open calls holds them, and \`probeOnly\`
            -- so that no plan reads calls that index does not give: with statistics that said many
            -- calls were open, the plan walked the primary key through every call, in the order of
            -- ids, to find none (decision 0113).
            select id from calls
            where status <> 'ended' and deadline_at < ${at}::timestamptz and ${probeOnly(sql`id`)}
            order by deadline_at limit ${limit}
          )
            -- Checked again on the row being updated: a call that ended between the subquery and
            -- the update (PostgreSQL re-reads a concurrently changed row) keeps the end it has.
            and calls.status <> 'ended'
          returning calls.id, calls.agent_id, calls.organization_id, calls.outcome, calls.provider, calls.direction,
          calls.from_number, calls.to_number, calls.campaign_id
        ),
        queued as (${queueOutcomeDeliveries(sql`ended`)}),
        listed as (${suppressEndedCalls(sql`ended`)})
        ${selectEnded}`),
      );
      return rowsOf<EndedCall>(result);
    },
  };
}

export type CallsRepository = ReturnType<typeof createCallsRepository>;
