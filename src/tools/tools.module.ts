import type { AuthService } from '../auth/auth.service.js';
import { loggableError } from '../lib/loggable-error.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createToolCallCache } from './tool-call-cache.js';
import { createToolsRepository } from './tools.repository.js';
import { toolsRoutes } from './tools.routes.js';
import { createToolsService } from './tools.service.js';

export interface ToolsModuleDeps {
  auth: AuthService;
  /** A tool changed or was deleted: the agents using it publish again. */
  onToolChanged: (toolId: string) => Promise<void>;
}

/** Tools, their runs during calls and their records. */
export function createToolsModule(
  { db, database, secretBox, outbound, config, metrics, log }: SharedDeps,
  { auth, onToolChanged }: ToolsModuleDeps,
) {
  const tools = createToolsService({
    repository: createToolsRepository(db),
    secretBox,
    outbound,
    allowPrivateNetworks: config.allowPrivateNetworks,
    changes: database.changes,
    cache: createToolCallCache({ feed: database.changes }),
    onError: (err, callId) => log.error({ err: loggableError(err), callId }, 'could not record a tool invocation'),
    onToolChanged,
    onToolRun: metrics.tools.ran,
  });
  return {
    tools,
    module: {
      managementRoutes: [(app) => toolsRoutes(app, { auth, tools })],
      // Records of tool runs still batched are written before the database closes.
      close: () => tools.drain(),
    } satisfies DomainModule,
  };
}
