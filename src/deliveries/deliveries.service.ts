import { ApiError, notFound } from '../errors.js';
import { groupBy } from '../lib/group-by.js';
import { cappedTotal, decodeCursor, type Page, TOTAL_CAP, toPage } from '../lib/pagination.js';
import type { AttemptRow, DeliveriesRepository, DeliveryRow } from './deliveries.repository.js';
import type { DeliveryView } from './deliveries.schemas.js';

/** How long after its call a delivery can still be retried by hand (docs/interface.md#deliveries). */
export const MANUAL_RETRY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** A delivery as the API shows it, with its attempt log oldest first. */
export function toDeliveryView(row: DeliveryRow, attempts: AttemptRow[]): DeliveryView {
  return {
    id: row.id,
    integrationId: row.integrationId,
    callId: row.callId,
    webhookId: row.webhookId,
    state: row.state,
    attempts: attempts.map((a) => ({
      at: a.at.toISOString(),
      status: a.status,
      latencyMs: a.latencyMs,
      error: a.error,
      errorCode: a.errorCode,
      responseExcerpt: a.responseExcerpt,
    })),
    attemptCount: row.attemptCount,
    nextAttemptAt: row.state === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    failureReason: row.failureReason,
    payloadTruncated: row.payloadTruncated,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface DeliveriesServiceDeps {
  repository: DeliveriesRepository;
  /** The integration a delivery goes to, if it still exists in the organization. */
  integrationOf: (
    organizationId: string,
    integrationId: string,
  ) => Promise<{ enabled: boolean; disabledReason: string | null } | undefined>;
  /** Tells the worker something is due now. */
  wake: () => void;
  now?: () => Date;
}

export function createDeliveriesService({
  repository,
  integrationOf,
  wake,
  now = () => new Date(),
}: DeliveriesServiceDeps) {
  const viewsOf = (rows: DeliveryRow[], attempts: AttemptRow[]): DeliveryView[] => {
    const byDelivery = groupBy(attempts, (a) => a.deliveryId);
    return rows.map((row) => toDeliveryView(row, byDelivery.get(row.id) ?? []));
  };
  const withAttempts = async (rows: DeliveryRow[]): Promise<DeliveryView[]> =>
    viewsOf(rows, await repository.attemptsOf(rows.map((row) => row.id)));

  return {
    async list(
      organizationId: string,
      query: { integrationId?: string; callId?: string; state?: string; cursor?: string; limit?: number },
    ): Promise<Page<DeliveryView> & { total: number; totalCapped: boolean }> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      // Counted up to 10,001 (decision 0053): an organization's deliveries grow with its calls.
      const [counted, { data, nextCursor }] = await Promise.all([
        repository.count(organizationId, query, TOTAL_CAP + 1),
        (async () => {
          const rows = await repository.list(organizationId, { ...query, beforeId, limit: limit + 1 });
          const page = toPage(rows, limit, (row) => row);
          return { data: await withAttempts(page.data), nextCursor: page.nextCursor };
        })(),
      ]);
      return { data, nextCursor, ...cappedTotal(counted) };
    },

    async get(organizationId: string, id: string): Promise<DeliveryView> {
      const row = await repository.find(organizationId, id);
      if (!row) throw notFound('Delivery');
      return (await withAttempts([row]))[0] as DeliveryView;
    },

    /**
     * Sends a delivery again now, with the same `webhook-id`: a pending one skips its wait, a
     * delivered or failed one gets one more attempt. Only within 30 days, to an enabled integration.
     */
    async retry(organizationId: string, id: string): Promise<DeliveryView> {
      const row = await repository.find(organizationId, id);
      if (!row) throw notFound('Delivery');
      if (now().getTime() - row.createdAt.getTime() > MANUAL_RETRY_WINDOW_MS) {
        throw new ApiError('conflict', 'Deliveries can be retried for 30 days; this one is older');
      }
      const integration = await integrationOf(organizationId, row.integrationId);
      if (!integration) throw notFound('Integration');
      if (!integration.enabled) {
        const why = integration.disabledReason ? ` (${integration.disabledReason})` : '';
        throw new ApiError('conflict', `The integration is disabled${why}: enable it, then retry`);
      }
      const updated = await repository.retryNow(organizationId, id);
      if (!updated) throw notFound('Delivery');
      wake();
      return (await withAttempts([updated]))[0] as DeliveryView;
    },

    /** The deliveries of these calls of the organization, by call id (for the calls API). */
    async ofCalls(organizationId: string, callIds: string[]): Promise<Map<string, DeliveryView[]>> {
      const views = (await repository.ofCalls(organizationId, callIds)).map(({ row, attempts }) =>
        toDeliveryView(row, attempts),
      );
      return groupBy(views, (view) => view.callId);
    },
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
