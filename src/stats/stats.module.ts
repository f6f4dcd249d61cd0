import type { AuthService } from '../auth/auth.service.js';
import { createLogThrottle } from '../lib/log-throttle.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createStatsRepository } from './stats.repository.js';
import { statsRoutes } from './stats.routes.js';
import { createStatsService } from './stats.service.js';

/** How often the rollup job looks for quarter hours to roll up (decision 0040). */
const ROLLUP_INTERVAL_MS = 10_000;

/** How far behind the rollup must be for the job to say so: a history it is meeting for the first time. */
const BEHIND_TO_SAY_MS = 24 * 60 * 60 * 1000;
/** How often it says so while it stays behind. */
const BEHIND_SAID_EVERY_MS = 10 * 60 * 1000;

/** GET /v1/stats, and the job that rolls finished quarter hours up so it stays fast. */
export function createStatsModule({ db, log }: SharedDeps, { auth }: { auth: AuthService }) {
  const stats = createStatsService({ repository: createStatsRepository(db) });
  const sayBehind = createLogThrottle({ intervalMs: BEHIND_SAID_EVERY_MS });
  return {
    stats,
    module: {
      managementRoutes: [(app) => statsRoutes(app, { auth, stats })],
      jobs: [
        {
          name: 'the stats rollup',
          intervalMs: ROLLUP_INTERVAL_MS,
          run: async () => {
            const state = await stats.rollUp();
            if (state.behindMs < BEHIND_TO_SAY_MS) return;
            // Said every 10 minutes while it lasts: GET /v1/stats reads the days after that point
            // call by call, and may answer 503 over long periods (decisions 0102 and 0103).
            sayBehind('behind', () =>
              log.warn(
                { rolledUntil: state.rolledUntil, behindDays: Math.floor(state.behindMs / BEHIND_TO_SAY_MS) },
                state.stillStepping
                  ? `the stats rollup has reached ${state.rolledUntil} and is catching up a large history; GET /v1/stats may answer 503 over the days after it meanwhile, and \`switchboard stats rollup\` rolls them up at once`
                  : `the stats rollup waits at ${state.rolledUntil}, where a call is still open; GET /v1/stats reads the days after it call by call until that call ends`,
              ),
            );
          },
        },
      ],
    } satisfies DomainModule,
  };
}
