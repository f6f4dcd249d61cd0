import type { AuthService } from '../auth/auth.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createAgentCache } from './agent-cache.js';
import { createAgentsRepository } from './agents.repository.js';
import { agentsRoutes } from './agents.routes.js';
import { type AgentsServiceDeps, createAgentsService } from './agents.service.js';

export interface AgentsModuleDeps
  extends Pick<AgentsServiceDeps, 'missingToolIds' | 'credentialProviderOf' | 'agentProblems'> {
  auth: AuthService;
}

/** Agents, their click-to-call credentials and the token cache every process keeps in step. */
export function createAgentsModule(
  { db, database, secretBox, config }: SharedDeps,
  { auth, ...deps }: AgentsModuleDeps,
) {
  const repository = createAgentsRepository(db);
  const agents = createAgentsService({
    repository,
    changes: database.changes,
    // Unknown click-to-call tokens cost no query (decision 0029).
    cache: createAgentCache({
      feed: database.changes,
      loadTokenHashes: () => repository.listTokenHashes(),
      sharedDatabase: database.engine === 'postgres',
    }),
    secretBox,
    publicUrl: config.publicUrl,
    ...deps,
  });
  return {
    agents,
    module: { managementRoutes: [(app) => agentsRoutes(app, { auth, agents })] } satisfies DomainModule,
  };
}
