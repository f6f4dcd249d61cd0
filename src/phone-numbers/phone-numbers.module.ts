import type { FastifyInstance } from 'fastify';
import { AGENT_TOPIC } from '../agents/agent-cache.js';
import type { AuthService } from '../auth/auth.service.js';
import type { PeriodicJob } from '../jobs/catalog.js';
import type { ProviderRegistryService } from '../providers/provider-port.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';

/** The provider that plays an agent's scenario (src/providers/simulator/). */
const SIMULATOR = 'simulator';

import { createPhoneNumbersRepository } from './phone-numbers.repository.js';
import { phoneNumbersRoutes } from './phone-numbers.routes.js';
import { createPhoneNumbersService, type PhoneNumbersServiceDeps } from './phone-numbers.service.js';

export interface PhoneNumbersModuleDeps
  extends Pick<PhoneNumbersServiceDeps, 'agentOf' | 'credentialOf' | 'inboundCalls' | 'calls'> {
  auth: AuthService;
  /** The providers: each real one lists and binds its account's numbers; the simulator plays simulated calls. */
  registry: Pick<ProviderRegistryService, 'real' | 'get'>;
}

/**
 * The phone-numbers domain (docs/interface.md#phone-numbers, decision 0038): its service, its
 * routes (a plugin for the management API's scope, registered with `{ auth }`), and its one job,
 * which tells the providers what each number answers with. `module` is the same as a `DomainModule`.
 */
export function createPhoneNumbersModule(
  { db, database, config, log }: Pick<SharedDeps, 'db' | 'database' | 'config' | 'log'>,
  { auth, registry, ...deps }: PhoneNumbersModuleDeps,
) {
  const service = createPhoneNumbersService({
    repository: createPhoneNumbersRepository(db),
    ...deps,
    numbers: (provider) => {
      const adapter = registry.real(provider);
      return (
        adapter && {
          list: (credential) => adapter.listPhoneNumbers(credential),
          bind: (credential, numberId, agentId) => adapter.bindPhoneNumber(credential, numberId, agentId),
        }
      );
    },
    simulator: {
      // The built-in provider that plays scenarios; a process without it refuses the start.
      name: SIMULATOR,
      startCall: async (request) => {
        const simulator = registry.get(SIMULATOR);
        return simulator
          ? simulator.startCall(request)
          : { ok: false, message: 'The simulator is not available in this process' };
      },
    },
    onFailed: ({ phoneNumberId, provider, error, retryInSeconds }) =>
      log.warn({ phoneNumberId, provider, error, retryInSeconds }, `could not bind a phone number at ${provider}`),
  });
  const { changes } = database;
  const routes = async (app: FastifyInstance, { auth }: { auth: AuthService }) =>
    phoneNumbersRoutes(app, { auth, phoneNumbers: service });
  // Whether an agent changed or was published since the bindings were last compared with what the
  // providers were told: comparing scans every live number, so it runs when the change feed says an
  // agent changed (in any process), and otherwise once a minute as a safety net.
  let agentsChanged = true;
  let runsSinceCompare = 0;
  const compareEveryRuns = Math.max(1, Math.round(60_000 / config.publishIntervalMs));
  changes.subscribe(
    AGENT_TOPIC,
    () => {
      agentsChanged = true;
    },
    () => {
      agentsChanged = true;
    },
  );
  const jobs: PeriodicJob[] = [
    {
      name: 'binding phone numbers at their providers',
      // As often as agents are published: a number waits for its agent's publication.
      intervalMs: config.publishIntervalMs,
      run: async () => {
        runsSinceCompare += 1;
        if (agentsChanged || runsSinceCompare >= compareEveryRuns) {
          agentsChanged = false;
          runsSinceCompare = 0;
          await service.markDrifted();
        }
        while ((await service.syncDue()) > 0) {}
      },
    },
  ];
  return {
    service,
    routes,
    jobs,
    module: { managementRoutes: [(app) => routes(app, { auth })], jobs } satisfies DomainModule,
  };
}

export type PhoneNumbersModule = ReturnType<typeof createPhoneNumbersModule>;
