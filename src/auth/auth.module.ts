import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createAuthRepository } from './auth.repository.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService } from './auth.service.js';

/** Sign-up, sessions and API keys; `auth` is the principal guard every other /v1 route uses. */
export function createAuthModule({ db, database, config }: SharedDeps) {
  const auth = createAuthService({
    repository: createAuthRepository(db),
    signup: config.signup,
    signupLimitPerHour: config.signupLimitPerHour,
    changes: database.changes,
  });
  return {
    auth,
    module: {
      managementRoutes: [(app) => authRoutes(app, { auth })],
      jobs: [
        {
          name: 'prune login failures',
          intervalMs: config.pruneIntervalMs,
          run: async (signal) => {
            await auth.pruneLoginFailures(signal);
          },
        },
      ],
    } satisfies DomainModule,
  };
}
