import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createRetentionRepository } from './retention.repository.js';
import { createRetentionService } from './retention.service.js';

/**
 * Retention (decision 0052): with `SWITCHBOARD_RETENTION_DAYS` set, a worker job removes ended
 * calls older than that, with their tool invocations, deliveries and delivery attempts. Unset,
 * the module contributes nothing and every call is kept.
 */
export function createRetentionModule({ db, config, log }: Pick<SharedDeps, 'db' | 'config' | 'log'>) {
  const days = config.retentionDays;
  if (days === undefined) return { module: {} satisfies DomainModule };
  const retention = createRetentionService({ repository: createRetentionRepository(db), days });
  return {
    module: {
      jobs: [
        {
          name: 'the retention job',
          intervalMs: config.retentionIntervalMs,
          run: async (signal) => {
            const removed = await retention.removeExpired(signal);
            if (removed.calls > 0) log.info({ days, removed }, 'removed calls past the retention period');
          },
        },
      ],
    } satisfies DomainModule,
  };
}
