import type { AuthService } from '../auth/auth.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createSuppressionsRepository } from './suppressions.repository.js';
import { suppressionsRoutes } from './suppressions.routes.js';
import { createSuppressionsService } from './suppressions.service.js';

/**
 * The do-not-call list (docs/interface.md#do-not-call-list, decision 0047): its service, which
 * whose condition click to call and the campaigns test in the statements that decide a call (`numberIsListed`), and its routes. Numbers
 * listed by call outcomes are listed by the statement that ends the call (`suppressEndedCalls`).
 */
export function createSuppressionsModule({ db }: Pick<SharedDeps, 'db'>, { auth }: { auth: AuthService }) {
  const suppressions = createSuppressionsService({ repository: createSuppressionsRepository(db) });
  return {
    suppressions,
    module: {
      managementRoutes: [(app) => suppressionsRoutes(app, { auth, suppressions })],
    } satisfies DomainModule,
  };
}

export type SuppressionsModule = ReturnType<typeof createSuppressionsModule>;
