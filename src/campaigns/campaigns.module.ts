import type { FastifyInstance } from 'fastify';
import type { AgentsService } from '../agents/agents.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { CallsService } from '../calls/calls.service.js';
import type { ClickToCallService } from '../click-to-call/click-to-call.service.js';
import type { PeriodicJob } from '../jobs/catalog.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createCampaignsRepository } from './campaigns.repository.js';
import { campaignsRoutes } from './campaigns.routes.js';
import { createCampaignsService } from './campaigns.service.js';
import { CAMPAIGNS_DUE_TOPIC, createCampaignScheduler } from './scheduler.js';
import { createSchedulerRepository } from './scheduler.repository.js';

export interface CampaignsModuleDeps {
  auth: AuthService;
  /** The campaign's agent: its organization, type and allowed countries. */
  agents: Pick<AgentsService, 'get'>;
  /** The clock (tests give a fake one); default the system's. */
  now?: () => Date;
  /** The scheduler places each campaign call through click to call's checks (decision 0049). */
  clickToCall: Pick<ClickToCallService, 'acceptCampaignCalls' | 'startCampaignCall'>;
  /** Ends calls whose process died before the provider answered. */
  calls: Pick<CallsService, 'failStart'>;
}

/**
 * The campaigns domain (docs/interface.md#campaigns, decisions 0048 and 0049): the campaigns API
 * (`campaigns.service.ts`: CRUD, state changes, contacts import, results) and the scheduler's job
 * (`scheduler.ts`), which places the calls in the worker role. `module` is a `DomainModule`.
 */
export function createCampaignsModule(
  shared: Pick<SharedDeps, 'db' | 'database' | 'config' | 'log'>,
  { auth, agents, now = () => new Date(), clickToCall, calls }: CampaignsModuleDeps,
) {
  const repository = createCampaignsRepository(shared.db);
  // Contacts became due (a start, a resume, contacts added to a running campaign): the scheduler
  // may look at once rather than at its next tick. Set by the scheduler's wiring below.
  let onDue: () => void = () => {};
  const service = createCampaignsService({
    repository,
    now,
    agentOf: (organizationId, agentId) => agents.get(organizationId, agentId),
    onDue: () => onDue(),
  });
  const routes = async (app: FastifyInstance) => campaignsRoutes(app, { auth, campaigns: service });
  const jobs: PeriodicJob[] = [];
  // The scheduler runs in the worker role, on its own loop so that a wake-up starts a pass at once.
  const scheduler =
    shared.config.role === 'api'
      ? undefined
      : createCampaignScheduler({
          repository: createSchedulerRepository(shared.db),
          clickToCall,
          calls,
          now,
          intervalMs: shared.config.campaignIntervalMs,
          leaseSeconds: shared.config.campaignLeaseSeconds,
          changes: shared.database.changes,
          onError: (err) => shared.log.error({ err }, 'the campaign scheduler hit an error'),
          onIdle: (campaignId, cause) =>
            shared.log.warn({ campaignId }, `campaign ${campaignId} places no calls: ${cause}`),
        });
  const module: DomainModule = {
    managementRoutes: [routes],
    jobs,
    start: scheduler && (() => scheduler.start()),
    close: scheduler && (() => scheduler.stop()),
  };
  /** Tells every process's scheduler to look now: a campaign started or resumed, contacts were added. */
  const announceDue = () => {
    scheduler?.wake();
    shared.database.changes.publish(CAMPAIGNS_DUE_TOPIC, '').catch(() => {});
  };
  onDue = announceDue;
  return { service, repository, module, scheduler, announceDue };
}

export type CampaignsModule = ReturnType<typeof createCampaignsModule>;
