import { notFound } from '../errors.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import type { CallEvent } from '../providers/voice-provider.js';
import type { CallRow, CallsRepository } from './calls.repository.js';

export const CALL_STATUSES = ['queued', 'ringing', 'in_progress', 'ended'] as const;

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

/** A call as the API shows it. */
export function toCallView(row: CallRow) {
  return {
    id: row.id,
    agentId: row.agentId,
    provider: row.provider,
    providerCallId: row.providerCallId,
    from: row.fromNumber,
    to: row.toNumber,
    status: row.status,
    outcome: row.outcome,
    endedReason: row.endedReason,
    error: row.error,
    variables: row.variables,
    collectedData: row.collectedData,
    transcript: row.transcript,
    // Tool invocations and webhook deliveries are recorded once tools and integrations exist.
    toolInvocations: [] as unknown[],
    deliveries: [] as unknown[],
    createdAt: row.createdAt.toISOString(),
    startedAt: iso(row.startedAt),
    answeredAt: iso(row.answeredAt),
    endedAt: iso(row.endedAt),
    durationSeconds: row.durationSeconds,
  };
}

export type CallView = ReturnType<typeof toCallView>;

export interface CallsServiceDeps {
  repository: CallsRepository;
  now?: () => Date;
}

export function createCallsService({ repository, now = () => new Date() }: CallsServiceDeps) {
  return {
    async list(
      organizationId: string,
      query: { agentId?: string; status?: string; cursor?: string; limit?: number },
    ): Promise<Page<CallView>> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const rows = await repository.list(organizationId, {
        agentId: query.agentId,
        status: query.status,
        beforeId,
        limit: limit + 1,
      });
      return toPage(rows, limit, toCallView);
    },

    async get(organizationId: string, id: string): Promise<CallView> {
      const row = await repository.find(organizationId, id);
      if (!row) throw notFound('Call');
      return toCallView(row);
    },

    /** Applies what a provider reports. Events for calls that have ended already change nothing. */
    async applyEvent(event: CallEvent): Promise<void> {
      switch (event.type) {
        case 'ringing':
          await repository.markRinging(event.callId);
          return;
        case 'answered':
          await repository.markAnswered(event.callId, event.at);
          return;
        case 'transcript':
          await repository.appendTranscript(event.callId, event.turn);
          return;
        case 'ended':
          await repository.end(event.callId, event);
          return;
      }
    },

    /** Ends a call whose start the provider refused, releasing its number at once. */
    async failStart(callId: string, message: string): Promise<void> {
      await repository.end(callId, {
        at: now(),
        outcome: 'FAILED',
        endedReason: 'failed_to_start',
        collectedData: {},
        durationSeconds: 0,
        error: message,
      });
    },

    async setProviderCallId(callId: string, providerCallId: string): Promise<void> {
      await repository.setProviderCallId(callId, providerCallId);
    },

    /** The duration sweep: closes calls open past `maxCallDurationSeconds`. Returns how many. */
    async closeOverdueCalls(batchSize = 500): Promise<number> {
      let closed = 0;
      for (;;) {
        const ids = await repository.closeOverdue(now(), batchSize);
        closed += ids.length;
        if (ids.length < batchSize) return closed;
      }
    },
  };
}

export type CallsService = ReturnType<typeof createCallsService>;
