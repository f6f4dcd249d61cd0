import { and, count, eq, isNull, lt, ne, sql } from 'drizzle-orm';
import type { AgentRow } from '../agents/agents.repository.js';
import type { NewCallRow } from '../calls/calls.repository.js';
import {
  arrayPlaceholder,
  type Db,
  deleteBatchBefore,
  isDatabaseUnreachable,
  preparedStatement,
  retryOnConflict,
  rowsOf,
} from '../db/client.js';
import { agents, calls, idempotencyKeys, rateLimitWindows } from '../db/schema/index.js';
import { createBatcher } from '../lib/batcher.js';
import { numberIsListed } from '../suppressions/suppressions.repository.js';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

type AcceptRefusal = 'suppressed' | 'number_busy' | 'at_capacity' | 'idempotency_taken';
export type AcceptResult = { ok: true } | { ok: false; reason: AcceptRefusal };

class Refusal {
  constructor(readonly reason: AcceptRefusal) {}
}

type InsertOutcome = 'inserted' | 'suppressed' | 'number_busy';

export function createClickToCallRepository(db: Db) {
  // Raw unnest rather than Drizzle's multi-row insert: building that costs more than the insert.
  // Prepared (decision 0058): parsing and planning it was about a third of PostgreSQL's time per
  // accepted call; the plan is the same whatever the rows (an index probe per row), and is kept
  // because no plan knows the arrays' length (`arrayPlaceholder`). Built once (decision 0070).
  const acceptCalls = preparedStatement(
    db,
    'accept_calls',
    sql`
      with v as (select * from unnest(
        ${arrayPlaceholder('ids', 'text')},
        ${arrayPlaceholder('organizationIds', 'text')},
        ${arrayPlaceholder('agentIds', 'text')},
        ${arrayPlaceholder('providers', 'text')},
        ${arrayPlaceholder('fromNumbers', 'text')},
        ${arrayPlaceholder('toNumbers', 'text')},
        ${arrayPlaceholder('variables', 'text')},
        ${arrayPlaceholder('startedAt', 'timestamptz')},
        ${arrayPlaceholder('deadlineAt', 'timestamptz')}
      ) as v(id, organization_id, agent_id, provider, from_number, to_number, variables, started_at, deadline_at)),
      listed as (select v.id from v where ${numberIsListed(sql`v.organization_id`, sql`v.to_number`)}),
      inserted as (
        insert into calls (id, organization_id, agent_id, provider, from_number, to_number, status,
                           variables, collected_data, transcript, started_at, deadline_at)
        select v.id, v.organization_id, v.agent_id, v.provider, v.from_number, v.to_number, 'queued',
               v.variables::jsonb, '{}'::jsonb, '[]'::jsonb, v.started_at, v.deadline_at
        from v where v.id not in (select id from listed)
        on conflict (agent_id, to_number) where status <> 'ended' and direction = 'outbound' do nothing
        returning id)
      select id, true as listed from listed
      union all
      select id, false as listed from inserted`,
  );
  /**
   * Calls accepted at the same moment are inserted together: one multi-row INSERT in which the
   * partial unique index still refuses, row by row, a second open call to a number (the later row
   * of two for one number in the same statement conflicts with the earlier and is skipped). A number
   * on its organization's do-not-call list is left out of the insert by the same statement and said
   * so (decision 0056): the list is read where the call is written, with no statement of its own.
   */
  const inserts = createBatcher(
    async (batch: NewCallRow[]): Promise<InsertOutcome[]> => {
      // Sorted by the unique key, so that two processes' batches wait for each other's rows in the
      // same order and cannot deadlock.
      const key = (row: NewCallRow) => `${row.agentId}\u0000${row.toNumber}`;
      const rows = [...batch].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      const column = <T>(pick: (row: NewCallRow) => T) => rows.map(pick);
      const result = await retryOnConflict(() =>
        acceptCalls({
          ids: column((r) => r.id),
          organizationIds: column((r) => r.organizationId),
          agentIds: column((r) => r.agentId),
          providers: column((r) => r.provider),
          fromNumbers: column((r) => r.fromNumber ?? null),
          toNumbers: column((r) => r.toNumber),
          variables: column((r) => JSON.stringify(r.variables)),
          startedAt: column((r) => r.startedAt?.toISOString() ?? null),
          deadlineAt: column((r) => r.deadlineAt.toISOString()),
        }),
      );
      const outcomes = new Map(
        rowsOf<{ id: string; listed: boolean }>(result).map((row): [string, InsertOutcome] => [
          row.id,
          row.listed ? 'suppressed' : 'inserted',
        ]),
      );
      return batch.map((row) => outcomes.get(row.id) ?? 'number_busy');
    },
    // A request waiting behind a batch the database never answered is refused with it: waiting
    // for an answer of its own would double the time to ctc:008 (decision 0023).
    { failsTheRest: isDatabaseUnreachable },
  );

  return {
    /** The organization's live agent with this id, for `POST /v1/calls`; undefined when it has none. */
    async findAgent(organizationId: string, id: string): Promise<AgentRow | undefined> {
      const rows = await db
        .select()
        .from(agents)
        .where(and(eq(agents.organizationId, organizationId), eq(agents.id, id), isNull(agents.deletedAt)))
        .limit(1);
      return rows[0];
    },

    /**
     * Adds `requests` to the agent's counter for the minute and returns the counter after it, in one
     * statement, so every process shares the same counter (a rate-limit lease, decision 0051).
     */
    async countRequests(agentId: string, windowStart: Date, requests: number): Promise<number> {
      const [row] = await db
        .insert(rateLimitWindows)
        .values({ agentId, windowStart, count: requests })
        .onConflictDoUpdate({
          target: [rateLimitWindows.agentId, rateLimitWindows.windowStart],
          set: { count: sql`${rateLimitWindows.count} + ${requests}` },
        })
        .returning({ count: rateLimitWindows.count });
      return row?.count ?? requests;
    },

    async findIdempotencyKey(agentId: string, key: string): Promise<IdempotencyRow | undefined> {
      const rows = await db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key)))
        .limit(1);
      return rows[0];
    },

    /** Removes a key whose 24 h are over, so that it can be used again. */
    async deleteIdempotencyKeyIfExpired(agentId: string, key: string, now: Date): Promise<void> {
      await db
        .delete(idempotencyKeys)
        .where(
          and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key), lt(idempotencyKeys.expiresAt, now)),
        );
    },

    async completeIdempotencyKey(agentId: string, key: string, response: Record<string, unknown>): Promise<void> {
      await db
        .update(idempotencyKeys)
        .set({ state: 'completed', response })
        .where(and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key)));
    },

    async releaseIdempotencyKey(agentId: string, key: string): Promise<void> {
      await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key)));
    },

    /**
     * Records an accepted call, atomically with the checks that must hold across processes:
     * the idempotency key is claimed, the agent is under `maxConcurrentCalls` (its row locked while
     * counting), and no open call to the same number exists (the partial unique index decides).
     * Either all of it is written or none of it.
     */
    async acceptCall(input: {
      call: NewCallRow;
      maxConcurrentCalls: number | null;
      idempotency?: { key: string; requestHash: string; expiresAt: Date };
      /**
       * The transaction to run in (as a savepoint of it), when the caller holds one: the campaign
       * scheduler's, which locks its campaign while it places the campaign's calls (decision 0049).
       */
      within?: Db;
      /** More statements that commit with the call or not at all, run after its insert (a campaign's attempt). */
      alongside?: (tx: Db) => Promise<void>;
    }): Promise<AcceptResult> {
      const { call } = input;
      if (!input.idempotency && input.maxConcurrentCalls === null && !input.within && !input.alongside) {
        // Nothing else to decide together: the insert alone is atomic.
        const outcome = await inserts.add(call);
        return outcome === 'inserted' ? { ok: true } : { ok: false, reason: outcome };
      }
      try {
        await (input.within ?? db).transaction(async (tx) => {
          if (input.idempotency) {
            const claimed = await tx
              .insert(idempotencyKeys)
              .values({
                agentId: call.agentId,
                key: input.idempotency.key,
                requestHash: input.idempotency.requestHash,
                state: 'in_progress',
                callId: call.id,
                expiresAt: input.idempotency.expiresAt,
              })
              .onConflictDoNothing()
              .returning({ key: idempotencyKeys.key });
            if (claimed.length === 0) throw new Refusal('idempotency_taken');
          }
          // The do-not-call list first: a listed number is refused whatever else holds (ctc:013 before ctc:007).
          const listed = await tx.execute(
            sql`select ${numberIsListed(sql`${call.organizationId}`, sql`${call.toNumber}`)} as listed`,
          );
          if (rowsOf<{ listed: boolean }>(listed)[0]?.listed) throw new Refusal('suppressed');
          if (input.maxConcurrentCalls !== null) {
            // FOR NO KEY UPDATE, not FOR UPDATE: the idempotency key inserted just above holds a FOR KEY
            // SHARE lock on this row through its foreign key, and FOR UPDATE conflicts with KEY SHARE, so
            // two accepts with keys each waited for the other's: a deadlock, answered as ctc:008 (found
            // by test/concurrency.test.ts). NO KEY UPDATE still queues the accepts of one agent one
            // behind the other, and does not conflict with KEY SHARE.
            await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, call.agentId)).for('no key update');
            const [open] = await tx
              .select({ n: count() })
              .from(calls)
              .where(and(eq(calls.agentId, call.agentId), ne(calls.status, 'ended')));
            if ((open?.n ?? 0) >= input.maxConcurrentCalls) throw new Refusal('at_capacity');
          }
          const inserted = await tx
            .insert(calls)
            .values(call)
            .onConflictDoNothing({
              target: [calls.agentId, calls.toNumber],
              where: sql.raw(`status <> 'ended' and direction = 'outbound'`),
            })
            .returning({ id: calls.id });
          if (inserted.length === 0) throw new Refusal('number_busy');
          await input.alongside?.(tx);
        });
        return { ok: true };
      } catch (error) {
        if (error instanceof Refusal) return { ok: false, reason: error.reason };
        throw error;
      }
    },

    /**
     * Records a campaign pass's calls together (decision 0049), in the caller's transaction: the
     * agent's row locked once and its open calls counted once (click to call's included), so only
     * the first `maxConcurrentCalls − open` calls are tried (the rest are `at_capacity`); those are
     * inserted in one statement in which the partial unique index refuses, row by row, a number that
     * has an open call (`number_busy`); then `alongside` with the indexes of the recorded calls.
     * Answers one result per call, in order.
     */
    async acceptCalls(input: {
      calls: NewCallRow[];
      maxConcurrentCalls: number | null;
      within: Db;
      alongside: (tx: Db, recorded: number[]) => Promise<void>;
    }): Promise<AcceptResult[]> {
      const tx = input.within;
      let room = input.calls.length;
      const agentId = input.calls[0]?.agentId;
      if (input.maxConcurrentCalls !== null && agentId !== undefined) {
        // As acceptCall: the agent's row locked (FOR NO KEY UPDATE) while its open calls are counted.
        await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId)).for('no key update');
        const [open] = await tx
          .select({ n: count() })
          .from(calls)
          .where(and(eq(calls.agentId, agentId), ne(calls.status, 'ended')));
        room = Math.max(0, Math.min(room, input.maxConcurrentCalls - (open?.n ?? 0)));
      }
      const tried = input.calls.slice(0, room);
      let ids = new Set<string>();
      if (tried.length > 0) {
        // Sorted by the unique key, as the batcher's inserts are, so concurrent inserts cannot deadlock.
        const key = (row: NewCallRow) => `${row.agentId}\u0000${row.toNumber}`;
        const rows = [...tried].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
        const inserted = await tx
          .insert(calls)
          .values(rows)
          .onConflictDoNothing({
            target: [calls.agentId, calls.toNumber],
            where: sql.raw(`status <> 'ended' and direction = 'outbound'`),
          })
          .returning({ id: calls.id });
        ids = new Set(inserted.map((row) => row.id));
      }
      const recorded = tried.flatMap((row, index) => (ids.has(row.id as string) ? [index] : []));
      if (recorded.length > 0) await input.alongside(tx, recorded);
      return input.calls.map(
        (row, index): AcceptResult =>
          index >= room
            ? { ok: false, reason: 'at_capacity' }
            : ids.has(row.id as string)
              ? { ok: true }
              : { ok: false, reason: 'number_busy' },
      );
    },

    /**
     * Drops up to `limit` rate-limit windows no count reads any more (started two minutes or more
     * before `now`); returns how many.
     */
    pruneRateLimitWindows(now: Date, limit: number): Promise<number> {
      return deleteBatchBefore(
        db,
        rateLimitWindows,
        rateLimitWindows.windowStart,
        new Date(now.getTime() - 120_000),
        limit,
      );
    },

    /** Drops up to `limit` idempotency keys expired at `now`; returns how many. */
    pruneIdempotencyKeys(now: Date, limit: number): Promise<number> {
      return deleteBatchBefore(db, idempotencyKeys, idempotencyKeys.expiresAt, now, limit);
    },
  };
}

export type ClickToCallRepository = ReturnType<typeof createClickToCallRepository>;
