import type { AuthService } from '../auth/auth.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createIntegrationsRepository } from './integrations.repository.js';
import { integrationsRoutes } from './integrations.routes.js';
import { createIntegrationsService } from './integrations.service.js';

export interface IntegrationsModuleDeps {
  auth: AuthService;
  agentNameOf: (organizationId: string, agentId: string) => Promise<string | undefined>;
}

/** Webhook integrations per agent, their secrets, trigger conditions and "Send test". */
export function createIntegrationsModule(
  { db, secretBox, webhookOutbound, config, resolveHost }: SharedDeps,
  { auth, agentNameOf }: IntegrationsModuleDeps,
) {
  const integrations = createIntegrationsService({
    repository: createIntegrationsRepository(db),
    secretBox,
    agentNameOf,
    outbound: webhookOutbound,
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolve: resolveHost,
  });
  return {
    integrations,
    module: { managementRoutes: [(app) => integrationsRoutes(app, { auth, integrations })] } satisfies DomainModule,
  };
}
