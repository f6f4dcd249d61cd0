import type { AuthService } from '../auth/auth.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createStatsRepository } from './stats.repository.js';
import { statsRoutes } from './stats.routes.js';
import { createStatsService } from './stats.service.js';

/** How often the rollup job looks for quarter hours to roll up (decision 0040). */
const ROLLUP_INTERVAL_MS = 10_000;

/** GET /v1/stats, and the job that rolls finished quarter hours up so it stays fast. */
export function createStatsModule({ db }: SharedDeps, { auth }: { auth: AuthService }) {
  const stats = createStatsService({ repository: createStatsRepository(db) });
  return {
    stats,
    module: {
      managementRoutes: [(app) => statsRoutes(app, { auth, stats })],
      jobs: [{ name: 'the stats rollup', intervalMs: ROLLUP_INTERVAL_MS, run: () => stats.rollUp() }],
    } satisfies DomainModule,
  };
}
