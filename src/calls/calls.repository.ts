import { and, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { calls, type TranscriptTurn } from '../db/schema/index.js';
import type { CallEvent } from '../providers/voice-provider.js';

export type CallRow = typeof calls.$inferSelect;
export type NewCallRow = typeof calls.$inferInsert;

/** How a call ended: what the provider's end-of-call report says, and our own error text if any. */
export type EndCall = Omit<Extract<CallEvent, { type: 'ended' }>, 'type' | 'callId'> & { error?: string };

export function createCallsRepository(db: Db) {
  return {
    async find(organizationId: string, id: string): Promise<CallRow | undefined> {
      const rows = await db
        .select()
        .from(calls)
        .where(and(eq(calls.organizationId, organizationId), eq(calls.id, id)))
        .limit(1);
      return rows[0];
    },

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(
      organizationId: string,
      filter: { agentId?: string; status?: string; beforeId?: string; limit: number },
    ): Promise<CallRow[]> {
      return db
        .select()
        .from(calls)
        .where(
          and(
            eq(calls.organizationId, organizationId),
            filter.agentId ? eq(calls.agentId, filter.agentId) : undefined,
            filter.status ? eq(calls.status, filter.status) : undefined,
            filter.beforeId ? lt(calls.id, filter.beforeId) : undefined,
          ),
        )
        .orderBy(desc(calls.id))
        .limit(filter.limit);
    },

    async setProviderCallId(id: string, providerCallId: string): Promise<void> {
      await db.update(calls).set({ providerCallId }).where(eq(calls.id, id));
    },

    /** Status only moves forward: a late `ringing` never reopens an answered or ended call. */
    async markRinging(id: string): Promise<boolean> {
      const rows = await db
        .update(calls)
        .set({ status: 'ringing' })
        .where(and(eq(calls.id, id), eq(calls.status, 'queued')))
        .returning({ id: calls.id });
      return rows.length > 0;
    },

    async markAnswered(id: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(calls)
        .set({ status: 'in_progress', answeredAt: at })
        .where(and(eq(calls.id, id), inArray(calls.status, ['queued', 'ringing'])))
        .returning({ id: calls.id });
      return rows.length > 0;
    },

    async appendTranscript(id: string, turn: TranscriptTurn): Promise<boolean> {
      const rows = await db
        .update(calls)
        .set({ transcript: sql`${calls.transcript} || ${JSON.stringify([turn])}::jsonb` })
        .where(and(eq(calls.id, id), ne(calls.status, 'ended')))
        .returning({ id: calls.id });
      return rows.length > 0;
    },

    /**
     * Ends a call unless it has ended already, so each call gets exactly one terminal state
     * whoever reports first (the provider, a repeated webhook, or the duration sweep).
     * Ending also releases the call's ctc:007 lock: the unique index covers open calls only.
     */
    async end(id: string, end: EndCall): Promise<CallRow | undefined> {
      const rows = await db
        .update(calls)
        .set({
          status: 'ended',
          outcome: end.outcome,
          endedReason: end.endedReason,
          endedAt: end.at,
          durationSeconds: end.durationSeconds,
          collectedData: end.collectedData,
          ...(end.transcript ? { transcript: end.transcript } : {}),
          ...(end.error ? { error: end.error } : {}),
        })
        .where(and(eq(calls.id, id), ne(calls.status, 'ended')))
        .returning();
      return rows[0];
    },

    /** Closes up to `limit` open calls past their deadline as FAILED / timeout; returns their ids. */
    async closeOverdue(now: Date, limit: number): Promise<string[]> {
      const rows = await db
        .update(calls)
        .set({
          status: 'ended',
          outcome: 'FAILED',
          endedReason: 'timeout',
          endedAt: now,
          durationSeconds: sql`greatest(0, floor(extract(epoch from (${now.toISOString()}::timestamptz - coalesce(${calls.answeredAt}, ${calls.startedAt}, ${calls.createdAt})))))::int`,
        })
        .where(
          inArray(
            calls.id,
            db
              .select({ id: calls.id })
              .from(calls)
              .where(and(ne(calls.status, 'ended'), lt(calls.deadlineAt, now)))
              .limit(limit),
          ),
        )
        .returning({ id: calls.id });
      return rows.map((r) => r.id);
    },
  };
}

export type CallsRepository = ReturnType<typeof createCallsRepository>;
