import { AGENT_TOPIC } from '../agents/agent-cache.js';
import type { AgentsService } from '../agents/agents.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { CallsService } from '../calls/calls.service.js';
import { createJsonBodies } from '../lib/json-bodies.js';
import { loggableError } from '../lib/loggable-error.js';
import { PROVIDER_CREDENTIAL_TOPIC } from '../provider-credentials/opened-credentials.js';
import type {
  CredentialChange,
  ProviderCredentialsService,
} from '../provider-credentials/provider-credentials.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { compileAiSchema } from '../tools/tool-definition.js';
import type { ToolsService } from '../tools/tools.service.js';
import { createProviderRegistry, type ProviderHost } from './provider-port.js';
import { createProviderSync } from './provider-sync.js';
import { createProviderSyncRepository } from './provider-sync.repository.js';
import { providerToolsRoutes } from './provider-tools.routes.js';
import { createProviderToolsService } from './provider-tools.service.js';
import { providerVoicesRoutes } from './provider-voices.routes.js';
import { providerWebhooksRoutes } from './provider-webhooks.routes.js';
import { announcePublishDue, onPublishDue } from './publish-due.js';
import { createRetellAdapter } from './retell/retell-adapter.js';
import { createSimulator } from './simulator/simulator.js';
import { createSimulatorRepository } from './simulator/simulator.repository.js';
import { createSimulatorLease } from './simulator/simulator-lease.js';
import { createVapiAdapter } from './vapi/vapi-adapter.js';

/**
 * What other domains tell the providers: the agents using a changed tool publish again, and those
 * using a changed credential when what they publish with it moved (decision 0099).
 */
export interface ProviderChanges {
  credentialChanged(credentialId: string, change: CredentialChange): Promise<void>;
  toolChanged(toolId: string): Promise<void>;
}

export interface ProvidersModuleDeps {
  auth: AuthService;
  agents: AgentsService;
  calls: CallsService;
  inboundCalls: ProviderHost['inboundCalls'];
  tools: ToolsService;
  providerCredentials: ProviderCredentialsService;
  /**
   * This process alone uses its database (`AppDeps.soleProcess`): its simulated calls need no lease,
   * since the next start closes what a killed process left open (decisions 0085, 0094).
   */
  soleProcess?: boolean;
}

/**
 * The voice providers (docs/architecture.md, "Providers"): the registry of every provider, the
 * background publishing of agents, the provider tools API and the providers' webhooks. A new
 * provider is one folder under src/providers/ and one line in the registry below.
 */
export function createProvidersModule(
  { db, database, config, outbound, metrics, log }: SharedDeps,
  { auth, agents, calls, inboundCalls, tools, providerCredentials, soleProcess = false }: ProvidersModuleDeps,
) {
  const credentialOf = (organizationId: string, id: string) => providerCredentials.open(organizationId, id);
  const repository = createProviderSyncRepository(db);
  const bodies = createJsonBodies();
  // The providers' SDKs send through the guarded client, like every request to an address a customer chose.
  const host: ProviderHost = {
    credentialOf,
    fetch: outbound.fetch,
    send: (request) => outbound.send(request),
    publicUrl: config.publicUrl,
    changes: database.changes,
    calls,
    invokeTool: (call) => tools.invokeDuringCall(call),
    toolNameOf: async (organizationId, toolId) =>
      (await tools.get(organizationId, toolId).catch(() => undefined))?.name,
    webhookSecrets: (provider) => providerCredentials.webhookSecrets(provider as never),
    webhookSecretOpens: (organizationId, id, secret) => providerCredentials.opensWebhook(organizationId, id, secret),
    apiKeyOf: (credentialId) => providerCredentials.signingApiKey(credentialId),
    analysisGraceSeconds: config.analysisGraceSeconds,
    inboundCalls,
    republishAgentOfCall: (callId) =>
      providerSync
        .republishAgentOfCall(callId)
        .catch((err) => log.error({ err, callId }, 'could not mark the agent to publish again')),
    bodies,
  };
  const simulatorRepository = createSimulatorRepository(db);
  // On a shared database a process killed outright cannot close the simulated calls it was playing:
  // its lease lapses, and a worker closes them (decision 0094).
  const simulatorLease = soleProcess
    ? undefined
    : createSimulatorLease({
        repository: simulatorRepository,
        seconds: config.simulatorLeaseSeconds,
        onError: (err) => log.error({ err: loggableError(err) }, "could not renew the simulated calls' lease"),
      });
  const simulator = createSimulator({
    onEvent: (event) => calls.applyEvent(event),
    invokeTool: (call) => tools.invokeDuringCall(call),
    onError: (err, callId) => log.error({ err: loggableError(err), callId }, 'could not record a simulated call event'),
    callNumber: simulatorRepository.callNumber,
    lease: simulatorLease,
    onAbandoned: async (callIds) => {
      try {
        const closed = await calls.closeAbandonedSimulatedCalls(callIds);
        if (closed > 0) log.info({ closed }, 'closed the simulated calls this process stopped playing');
      } catch (err) {
        // The duration sweep closes them at their deadline (or, on the embedded database, the next start).
        log.error({ err: loggableError(err), calls: callIds.length }, 'could not close the simulated calls left open');
      }
    },
  });
  const registry = createProviderRegistry([simulator, createVapiAdapter(host), createRetellAdapter(host)]);

  const providerSync = createProviderSync({
    repository,
    // What was saved last, never a copy the change feed has not reached yet (`openSaved`).
    credentialOf: (organizationId, id) => providerCredentials.openSaved(organizationId, id),
    providerOf: registry.real,
    aiSchemaOf: (tool) => compileAiSchema(tool.parameters) as Record<string, unknown>,
    onError: (err, agentId) => log.error({ err, agentId }, 'publishing to the provider failed to record'),
    onPublished: (agentId) => database.changes.publish(AGENT_TOPIC, agentId),
    onDue: () => announcePublishDue(database.changes),
    onFailed: ({ agentId, provider, deleted, error, retryInSeconds }) => {
      metrics.providerSync.failed(provider);
      const action = deleted
        ? `could not remove a deleted agent from ${provider}`
        : `could not publish an agent to ${provider}`;
      log.warn({ agentId, provider, error, retryInSeconds }, action);
    },
  });
  const providerTools = createProviderToolsService({
    agentRefs: (organizationId, agentId) => agents.providerRefs(organizationId, agentId),
    credentialOf,
    providerOf: registry.real,
    createTool: (organizationId, input) => tools.create(organizationId, input),
    attachTools: async (organizationId, agentId, toolIds) => {
      await agents.update(organizationId, agentId, { toolIds });
    },
    linkPublished: (credentialId, published) => repository.savePublishedTools(credentialId, published),
  });
  const changes: ProviderChanges = {
    async credentialChanged(credentialId, { republish }) {
      if (republish) await providerSync.credentialChanged(credentialId);
      // Every process forgets the credential's key (the providers' webhook key caches).
      await database.changes.publish(PROVIDER_CREDENTIAL_TOPIC, credentialId);
    },
    toolChanged: (toolId) => providerSync.toolChanged(toolId),
  };
  return {
    registry,
    changes,
    module: {
      managementRoutes: [
        (app) => providerToolsRoutes(app, { auth, providerTools }),
        (app) => providerVoicesRoutes(app, { auth, credentialOf, providerOf: registry.real }),
      ],
      publicRoutes: [(app) => providerWebhooksRoutes(app, { providers: registry.realProviders() })],
      // The first call on Vapi or Retell after a start waited for undici and the provider's SDK to
      // load (110–180 ms); where some organization has a credential of theirs, they load ahead.
      // A process with no provider account keeps the memory they take (decision 0093).
      warm: async () => {
        const providers = (await providerCredentials.providersInUse()).flatMap((name) => registry.real(name) ?? []);
        if (providers.length === 0) return;
        await Promise.all([outbound.warm(), ...providers.map((provider) => provider.warm())]);
        log.debug(
          { providers: providers.map((provider) => provider.name) },
          'loaded ahead what calls to providers need',
        );
      },
      jobs: [
        {
          name: 'publishing agents to their providers',
          // Woken when an agent falls due now; otherwise asleep until the next one (a retry) falls
          // due, or `publishIntervalMs` at the most (decision 0086).
          intervalMs: config.publishIntervalMs,
          wakeOn: (wake) => onPublishDue(database.changes, wake),
          run: () => providerSync.publishDue(),
        },
        ...(soleProcess
          ? []
          : [
              {
                name: 'closing the simulated calls of processes gone',
                intervalMs: Math.ceil((config.simulatorLeaseSeconds * 1000) / 3),
                run: async () => {
                  // A look at the leases first: closing reads every open call.
                  if (!(await simulatorRepository.anyLeaseLapsed())) return;
                  const closed = await calls.closeCallsOfLapsedSimulatorLeases();
                  if (closed > 0)
                    log.info({ closed }, 'closed the simulated calls of a process gone (its lease lapsed)');
                },
              },
            ]),
      ],
      // The simulator's calls stop (their last events recorded) before the calls drain.
      close: async () => {
        await registry.close();
        await bodies.close();
      },
    } satisfies DomainModule,
  };
}
