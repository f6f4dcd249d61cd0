import type { AuthService } from '../auth/auth.service.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import type { DeliveriesRepository } from './deliveries.repository.js';
import { deliveriesRoutes } from './deliveries.routes.js';
import { createDeliveriesService } from './deliveries.service.js';
import { RETRY_SCHEDULE_SECONDS } from './delivery-attempt.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { createDueSignal } from './due-signal.js';

export interface DeliveriesModuleDeps {
  auth: AuthService;
  /** Built by the composition root first: the metrics read the queue through it. */
  repository: DeliveriesRepository;
  integrations: IntegrationsService;
}

/**
 * Durable webhook delivery (decision 0015): the queue's API, the "deliveries due" signal every
 * process hears, and, in the worker role, the worker that claims and sends them.
 */
export function createDeliveriesModule(
  { database, secretBox, webhookOutbound, config, metrics, log }: SharedDeps,
  { auth, repository, integrations }: DeliveriesModuleDeps,
) {
  const worker =
    config.role === 'api'
      ? undefined
      : createDeliveryWorker({
          repository,
          outbound: webhookOutbound,
          secretBox,
          retryScheduleSeconds: config.retryScheduleSeconds ?? RETRY_SCHEDULE_SECONDS,
          shutdownGraceMs: config.shutdownGraceMs,
          leaseSeconds: config.deliveryLeaseSeconds,
          onError: (err) => log.error({ err }, 'the webhook delivery worker hit an error'),
          onAttempted: metrics.deliveries.attempted,
        });
  const due = createDueSignal(database.changes, (err) => log.warn({ err }, 'could not announce due deliveries'));
  if (worker) due.subscribe(() => worker.wake());
  const deliveries = createDeliveriesService({
    repository,
    integrationOf: (organizationId, id) => integrations.find(organizationId, id),
    wake: () => due.announce(),
  });
  return {
    deliveries,
    /** Tells every process's worker that deliveries are due (calls that ended queued some). */
    announceDue: () => due.announce(),
    module: {
      managementRoutes: [(app) => deliveriesRoutes(app, { auth, deliveries })],
      start: worker ? () => worker.start() : undefined,
      // Claiming stops; attempts under way finish or go back to the queue, and the other processes'
      // workers, which may be sleeping until their next due delivery (decision 0079), hear of them.
      close: worker
        ? async () => {
            if (await worker.stop()) await due.announceNow();
          }
        : undefined,
    } satisfies DomainModule,
  };
}
