import { TokenLookupsBusyError } from '../agents/agent-cache.js';
import type { AgentsService } from '../agents/agents.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { CallsService } from '../calls/calls.service.js';
import { isDatabaseUnreachable } from '../db/client.js';
import { pruneInBatches } from '../jobs/prune.js';
import { createLogThrottle } from '../lib/log-throttle.js';
import { loggableError } from '../lib/loggable-error.js';
import type { RefusalPacer } from '../lib/refusal-pacer.js';
import type { ProviderRegistry } from '../providers/voice-provider.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createClickToCallRepository } from './click-to-call.repository.js';
import { clickToCallRoutes } from './click-to-call.routes.js';
import { createClickToCallService } from './click-to-call.service.js';
import { testCallRoutes } from './test-call.routes.js';

export interface ClickToCallModuleDeps {
  auth: AuthService;
  agents: AgentsService;
  calls: CallsService;
  /** Every provider that can place a call, by name. */
  providers: ProviderRegistry;
  /** Refusals for credentials answered late (decision 0029). */
  refusals: RefusalPacer;
}

/** The trigger endpoint, the dashboard's test call, and the expiry of idempotency keys and rate-limit windows. */
export function createClickToCallModule(
  { db, config, metrics, log }: SharedDeps,
  { auth, agents, calls, providers, refusals }: ClickToCallModuleDeps,
) {
  const logRepeatedFailure = createLogThrottle();
  const repository = createClickToCallRepository(db);
  const clickToCall = createClickToCallService({
    agents,
    calls,
    repository,
    providers,
    reportGraceSeconds: config.providerReportGraceSeconds,
    onError: (err, context) => {
      // A failure that repeats on every request (the database away or saturated, above all) is
      // logged once per 10 s and kind, with the count left out, not a stack per request.
      const database = isDatabaseUnreachable(err) || err instanceof TokenLookupsBusyError;
      const kind = database ? 'database' : String((err as { code?: unknown })?.code ?? (err as Error)?.name);
      logRepeatedFailure(`click-to-call ${context} ${kind}`, (suppressed) =>
        log.error(
          { err: loggableError(err), suppressed },
          `click-to-call: failed ${context}${database ? ': the database is unreachable or saturated' : ''} (logged once per 10 s)`,
        ),
      );
    },
    onAnswered: metrics.clickToCall.answered,
  });
  return {
    clickToCall,
    module: {
      managementRoutes: [(app) => testCallRoutes(app, { auth, clickToCall })],
      publicRoutes: [(app) => clickToCallRoutes(app, { clickToCall, refusals })],
      jobs: [
        {
          name: 'prune expired idempotency keys and rate-limit windows',
          intervalMs: config.pruneIntervalMs,
          run: async (signal) => {
            const now = new Date();
            await pruneInBatches((limit) => repository.pruneRateLimitWindows(now, limit), signal);
            await pruneInBatches((limit) => repository.pruneIdempotencyKeys(now, limit), signal);
          },
        },
      ],
    } satisfies DomainModule,
  };
}
