import type { AuthService } from '../auth/auth.service.js';
import type { DomainModule, SharedDeps } from '../shared-deps.js';
import { createProviderCredentialsRepository } from './provider-credentials.repository.js';
import { providerCredentialsRoutes } from './provider-credentials.routes.js';
import {
  type CredentialChange,
  createProviderCredentialsService,
  type ProviderCredentialsServiceDeps,
} from './provider-credentials.service.js';

export interface ProviderCredentialsModuleDeps {
  auth: AuthService;
  /** What a credential of the provider needs besides its key (from the provider registry). */
  rulesOf: ProviderCredentialsServiceDeps['rulesOf'];
  /** The credential changed or was removed: every process forgets it, and the agents using it publish again if asked. */
  onChanged: (credentialId: string, change: CredentialChange) => Promise<void>;
  /** The clock a changed webhook secret's 24 hours are counted by (tests move it). */
  now?: () => Date;
}

/** Organizations' provider accounts, their secrets sealed and opened only for the adapters. */
export function createProviderCredentialsModule(
  { database, db, secretBox, config, resolveHost }: SharedDeps,
  { auth, rulesOf, onChanged, now }: ProviderCredentialsModuleDeps,
) {
  const providerCredentials = createProviderCredentialsService({
    repository: createProviderCredentialsRepository(db),
    secretBox,
    allowPrivateNetworks: config.allowPrivateNetworks,
    resolve: resolveHost,
    rulesOf,
    onChanged,
    changes: database.changes,
    now,
  });
  return {
    providerCredentials,
    module: {
      managementRoutes: [(app) => providerCredentialsRoutes(app, { auth, credentials: providerCredentials })],
    } satisfies DomainModule,
  };
}
