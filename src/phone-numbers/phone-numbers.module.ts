import type { FastifyInstance } from 'fastify';
import { AGENT_TOPIC } from '../agents/agent-cache.js';
import type { AuthService } from '../auth/auth.service.js';
import type { PeriodicJob } from '../jobs/catalog.js';
import type { ProviderRegistryService } from '../providers/provider-port.js';
import { announcePublishDue, onPublishDue } from '../providers/publish-due.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';

/** The longest the bindings go without being compared with their agents (the safety net below). */
const COMPARE_EVERY_MS = 60_000;

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
    onDue: () => announcePublishDue(database.changes),
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
  let comparedAt = 0;
  const jobs: PeriodicJob[] = [
    {
      name: 'binding phone numbers at their providers',
      // Woken when a number falls due now or an agent changes (a number may wait for its agent's
      // publication); otherwise asleep until the next retry falls due, or `publishIntervalMs` at the
      // most (decision 0086).
      intervalMs: config.publishIntervalMs,
      wakeOn: (wake) => {
        onPublishDue(changes, wake);
        const agentChanged = () => {
          agentsChanged = true;
          wake();
        };
        changes.subscribe(AGENT_TOPIC, agentChanged, agentChanged);
      },
      run: async () => {
        if (agentsChanged || performance.now() - comparedAt >= COMPARE_EVERY_MS) {
          agentsChanged = false;
          comparedAt = performance.now();
          await service.markDrifted();
        }
        const dueInMs = await service.syncDue();
        const untilCompare = COMPARE_EVERY_MS - (performance.now() - comparedAt);
        return Math.min(dueInMs ?? untilCompare, untilCompare);
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
