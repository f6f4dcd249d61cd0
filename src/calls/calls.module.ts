import type { AuthService } from '../auth/auth.service.js';
import type { DeliveriesService } from '../deliveries/deliveries.service.js';
import { loggableError } from '../lib/loggable-error.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import type { ToolsService } from '../tools/tools.service.js';
import type { CallsRepository } from './calls.repository.js';
import { callsRoutes } from './calls.routes.js';
import { createCallsService } from './calls.service.js';
import { createInboundCalls } from './inbound-calls.js';
import { createInboundCallsRepository } from './inbound-calls.repository.js';

export interface CallsModuleDeps {
  auth: AuthService;
  /** Built by the composition root first: the metrics count open calls through it. */
  repository: CallsRepository;
  tools: ToolsService;
  deliveries: DeliveriesService;
  /** Calls ended and queued their deliveries. */
  onCallsEnded: () => void;
  /**
   * This process alone uses its database (`AppDeps.soleProcess`): at start, the simulated calls a
   * stopped process left open are closed at once rather than at their deadline (decision 0085).
   */
  soleProcess?: boolean;
}

/** Call records, their lifecycle from provider events, the duration sweep and the calls API. */
export function createCallsModule(
  { db, config, metrics, log }: SharedDeps,
  { auth, repository, tools, deliveries, onCallsEnded, soleProcess = false }: CallsModuleDeps,
) {
  // Calls placed before this instant were placed by another process (decision 0085).
  const startedAt = new Date();
  const calls = createCallsService({
    repository,
    onError: (err, callId) => log.error({ err: loggableError(err), callId }, 'could not record the provider call id'),
    onEndRefused: (err, callId) =>
      log.error(
        { err: loggableError(err), callId },
        'the database refused the call\'s end: ended as FAILED, endedReason "record_failed"',
      ),
    toolInvocationsOf: (organizationId, callIds) => tools.invocationsOf(organizationId, callIds),
    toolCalls: tools,
    deliveriesOf: (organizationId, callIds) => deliveries.ofCalls(organizationId, callIds),
    onCallsEnded,
    onCallEnded: metrics.calls.ended,
  });
  // Incoming calls: recorded from the providers' webhooks and the simulator (decision 0038).
  const inboundCalls = createInboundCalls({
    repository: createInboundCallsRepository(db),
    reportGraceSeconds: config.providerReportGraceSeconds,
  });
  return {
    calls,
    inboundCalls,
    module: {
      managementRoutes: [(app) => callsRoutes(app, { auth, calls })],
      jobs: [
        {
          name: 'the duration sweep',
          intervalMs: config.sweepIntervalMs,
          run: async () => {
            const closed = await calls.closeOverdueCalls();
            if (closed > 0) log.info({ closed }, 'closed calls past their maximum duration');
          },
        },
      ],
      start: soleProcess
        ? () => {
            calls.closeOrphanedSimulatedCalls(startedAt).then(
              (closed) => {
                if (closed > 0) log.info({ closed }, 'closed the simulated calls a stopped process left open');
              },
              (err: unknown) => log.error({ err: loggableError(err) }, 'could not close the simulated calls left open'),
            );
          }
        : undefined,
      // Call ends still batched are written (and their deliveries queued) before the database closes.
      close: () => calls.drain(),
    } satisfies DomainModule,
  };
}
