import type { ChangeFeed } from '../db/change-feed.js';
import { ApiError, type FieldProblem, notFound, validationError } from '../errors.js';
import { randomToken, SECRET_MASK, type SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { outboundUrlProblems } from '../lib/outbound-url.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import { isMask, originMoved, writeOnlyProblem } from '../lib/write-only.js';
import type { CredentialRules } from '../providers/provider-port.js';
import { createOpenedCredentials } from './opened-credentials.js';
import {
  CredentialNameTakenError,
  type NewProviderCredentialRow,
  type ProviderCredentialRow,
  type ProviderCredentialsRepository,
} from './provider-credentials.repository.js';
import type {
  CreateProviderCredentialInput,
  CredentialProvider,
  ProviderCredentialView,
  UpdateProviderCredentialInput,
} from './provider-credentials.schemas.js';
import { opensWebhook, previousSecretExpiresAt, type WebhookSecrets } from './webhook-secret.js';

/** What a change to a credential asks of the agents using it. */
export interface CredentialChange {
  /** Whether they publish again: what they publish with it (key, webhook secret, base URL) moved. */
  republish: boolean;
}

export interface ProviderCredentialsServiceDeps {
  repository: ProviderCredentialsRepository;
  secretBox: SecretBox;
  /** `SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`: whether a base URL may name a private address. */
  allowPrivateNetworks: boolean;
  /** How a base URL's hostname resolves when it is saved; default: not resolved. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** What a credential of the provider needs besides its key (the provider port's `credentialRules`). */
  rulesOf: (provider: string) => CredentialRules;
  /**
   * The credential changed or was removed: every process forgets it (announced on
   * `PROVIDER_CREDENTIAL_TOPIC`), and, when `republish`, the agents using it publish again (their
   * webhook secret, key or base URL moved).
   */
  onChanged?: (credentialId: string, change: CredentialChange) => Promise<void>;
  /** Where those announcements are heard: `open` then keeps credentials opened in memory. */
  changes?: ChangeFeed;
  now?: () => Date;
}

/** A credential opened for an adapter: the plain secrets, never shown through the API. */
export interface OpenedProviderCredential extends WebhookSecrets {
  id: string;
  provider: CredentialProvider;
  apiKey: string;
  baseUrl: string | null;
}

function toView(row: ProviderCredentialRow, now: Date): ProviderCredentialView {
  const previousExpiresAt = row.previousWebhookSecretSealed
    ? previousSecretExpiresAt(row.webhookSecretChangedAt, now)
    : null;
  return {
    id: row.id,
    provider: row.provider as CredentialProvider,
    name: row.name,
    apiKey: SECRET_MASK,
    apiKeyLast4: row.apiKeyLast4,
    webhookSecret: row.webhookSecretSealed ? SECRET_MASK : null,
    previousWebhookSecretExpiresAt: previousExpiresAt?.toISOString() ?? null,
    baseUrl: row.baseUrl,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** 422 for a webhook secret given too short (the mask and null, which keep or make one, pass). */
function checkWebhookSecretLength(rules: CredentialRules, given: string | null | undefined): void {
  const minLength = rules.webhookSecret?.minLength;
  if (minLength === undefined || typeof given !== 'string' || given === SECRET_MASK) return;
  if (given.length >= minLength) return;
  throw validationError([
    {
      path: '$.webhookSecret',
      message: `must be at least ${minLength} characters (leave it out to have one generated)`,
    },
  ]);
}

const nameConflict = () =>
  new ApiError('conflict', 'A provider credential with this name exists', [
    { path: '$.name', message: 'is taken in the organization' },
  ]);

/**
 * Provider credentials (docs/interface.md#provider-credentials): the API key and webhook secret are sealed at rest with the
 * credential's id as associated data and read back as the mask; writing the mask back keeps them.
 */
export function createProviderCredentialsService({
  repository,
  secretBox,
  allowPrivateNetworks,
  resolve,
  rulesOf,
  onChanged = async () => {},
  changes,
  now = () => new Date(),
}: ProviderCredentialsServiceDeps) {
  const view = (row: ProviderCredentialRow) => toView(row, now());
  const opened = (row: ProviderCredentialRow): OpenedProviderCredential => ({
    id: row.id,
    provider: row.provider as CredentialProvider,
    apiKey: secretBox.decrypt(row.apiKeySealed, row.id),
    webhookSecret: row.webhookSecretSealed ? secretBox.decrypt(row.webhookSecretSealed, row.id) : null,
    // Kept whatever its age: `opensWebhook` asks the clock when a webhook comes.
    previousWebhookSecret:
      row.previousWebhookSecretSealed && row.webhookSecretChangedAt
        ? { secret: secretBox.decrypt(row.previousWebhookSecretSealed, row.id), changedAt: row.webhookSecretChangedAt }
        : null,
    baseUrl: row.baseUrl,
  });
  const openedById =
    changes &&
    createOpenedCredentials({
      feed: changes,
      load: async (id) => {
        const row = await repository.findAnyOrganization(id);
        return row && { organizationId: row.organizationId, credential: opened(row) };
      },
    });

  /**
   * The base URL's problems, and the secrets' (src/lib/write-only.ts): the mask, or leaving a secret
   * out, keeps the stored one only while the base URL keeps its origin. Both secrets go there: the
   * API key with every request, the webhook secret published with Vapi's assistants for Vapi to send
   * back, so a new host that got it could sign webhooks as the provider.
   */
  async function check(
    input: { baseUrl?: string | null; apiKey?: string; webhookSecret?: string | null },
    current?: ProviderCredentialRow,
  ): Promise<void> {
    const problems: FieldProblem[] = [];
    if (input.baseUrl !== undefined && input.baseUrl !== null) {
      for (const message of await outboundUrlProblems(input.baseUrl, { allowPrivateNetworks, resolve })) {
        problems.push({ path: '$.baseUrl', message });
      }
    }
    const moved = current !== undefined && originMoved(current.baseUrl, input.baseUrl);
    const secrets = [
      ['$.apiKey', input.apiKey, current !== undefined],
      ['$.webhookSecret', input.webhookSecret, Boolean(current?.webhookSecretSealed)],
    ] as const;
    for (const [path, given, stored] of secrets) {
      const message = writeOnlyProblem(given, stored, moved);
      if (message) problems.push({ path, message });
    }
    if (problems.length > 0) throw validationError(problems);
  }

  async function findOrThrow(organizationId: string, id: string): Promise<ProviderCredentialRow> {
    const row = await repository.find(organizationId, id);
    if (!row) throw notFound('Provider credential');
    return row;
  }

  const sealed = (id: string, value: string) => secretBox.encrypt(value, id);
  // A provider that sends back the secret we publish (Vapi): when none is given, we make one, so its
  // webhooks are always authenticated. (Retell signs with the API key.)
  const webhookSecretFor = (provider: string, given: string | null | undefined) =>
    given ?? (rulesOf(provider).webhookSecret ? randomToken() : null);

  async function openSaved(organizationId: string, id: string): Promise<OpenedProviderCredential | undefined> {
    const row = await repository.find(organizationId, id);
    return row && opened(row);
  }

  async function open(organizationId: string, id: string): Promise<OpenedProviderCredential | undefined> {
    return openedById ? openedById.open(organizationId, id) : openSaved(organizationId, id);
  }

  /**
   * Whether a change reaches what the agents publish with the credential: its key, its webhook
   * secret or its base URL. A new name, or a previous secret revoked, is ours alone (decision 0099).
   */
  function changesWhatIsPublished(current: ProviderCredentialRow, changes: Partial<NewProviderCredentialRow>): boolean {
    return (
      changes.apiKeySealed !== undefined ||
      changes.webhookSecretSealed !== undefined ||
      (changes.baseUrl !== undefined && changes.baseUrl !== current.baseUrl)
    );
  }

  /**
   * The columns a new webhook secret writes (`given` null: one is made where the provider needs one).
   * A secret that differs from the stored one keeps that one as the previous, for 24 hours from now
   * (decision 0096); giving the same secret again changes nothing.
   */
  function changedWebhookSecret(
    current: ProviderCredentialRow,
    given: string | null,
  ): Partial<NewProviderCredentialRow> {
    const secret = webhookSecretFor(current.provider, given);
    const stored = current.webhookSecretSealed;
    if (stored && secret !== null && secretBox.decrypt(stored, current.id) === secret) return {};
    return {
      webhookSecretSealed: secret ? sealed(current.id, secret) : null,
      previousWebhookSecretSealed: stored,
      webhookSecretChangedAt: stored ? now() : null,
    };
  }

  return {
    async create(organizationId: string, input: CreateProviderCredentialInput): Promise<ProviderCredentialView> {
      await check(input);
      checkWebhookSecretLength(rulesOf(input.provider), input.webhookSecret);
      const id = newId('pcr');
      try {
        return view(
          await repository.insert({
            id,
            organizationId,
            provider: input.provider,
            name: input.name.trim(),
            apiKeySealed: sealed(id, input.apiKey),
            apiKeyLast4: input.apiKey.slice(-4),
            webhookSecretSealed: (() => {
              const secret = webhookSecretFor(input.provider, input.webhookSecret);
              return secret ? sealed(id, secret) : null;
            })(),
            baseUrl: input.baseUrl ? input.baseUrl.replace(/\/+$/, '') : null,
          }),
        );
      } catch (error) {
        throw error instanceof CredentialNameTakenError ? nameConflict() : error;
      }
    },

    async list(
      organizationId: string,
      query: { cursor?: string; limit?: number },
    ): Promise<Page<ProviderCredentialView>> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      return toPage(await repository.list(organizationId, { beforeId, limit: limit + 1 }), limit, view);
    },

    async get(organizationId: string, id: string): Promise<ProviderCredentialView> {
      return view(await findOrThrow(organizationId, id));
    },

    async update(
      organizationId: string,
      id: string,
      patch: UpdateProviderCredentialInput,
    ): Promise<ProviderCredentialView> {
      const current = await findOrThrow(organizationId, id);
      await check(patch, current);
      checkWebhookSecretLength(rulesOf(current.provider), patch.webhookSecret);
      const apiKey = patch.apiKey === undefined || isMask(patch.apiKey) ? undefined : patch.apiKey;
      const webhookSecret = isMask(patch.webhookSecret) ? undefined : patch.webhookSecret;
      const changes: Partial<NewProviderCredentialRow> = {
        ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
        ...(apiKey !== undefined ? { apiKeySealed: sealed(id, apiKey), apiKeyLast4: apiKey.slice(-4) } : {}),
        ...(webhookSecret !== undefined ? changedWebhookSecret(current, webhookSecret) : {}),
        // Revoked: the previous secret stops opening webhooks now, whether or not the secret changed too.
        ...(patch.previousWebhookSecretExpiresAt === null ? { previousWebhookSecretSealed: null } : {}),
        ...(patch.baseUrl !== undefined ? { baseUrl: patch.baseUrl ? patch.baseUrl.replace(/\/+$/, '') : null } : {}),
      };
      try {
        const updated = await repository.update(organizationId, id, changes);
        if (!updated) throw notFound('Provider credential');
        await onChanged(id, { republish: changesWhatIsPublished(current, changes) });
        return view(updated);
      } catch (error) {
        throw error instanceof CredentialNameTakenError ? nameConflict() : error;
      }
    },

    /** Refused (409) while a live agent uses it. */
    async remove(organizationId: string, id: string): Promise<void> {
      const outcome = await repository.removeUnused(organizationId, id);
      if (outcome === 'not_found') throw notFound('Provider credential');
      if (outcome === 'in_use') {
        throw new ApiError(
          'conflict',
          'The credential is used by an agent or a phone number: move the agent to another credential, or delete the phone number, first',
        );
      }
      // A call placed before its agent moved to another credential may still report: every process
      // forgets the removed one, so its secrets stop opening at once.
      await onChanged(id, { republish: true });
    },

    /** The credential's provider, or undefined when the organization has no such credential. */
    async providerOf(organizationId: string, id: string): Promise<CredentialProvider | undefined> {
      return (await repository.find(organizationId, id))?.provider as CredentialProvider | undefined;
    },

    /** The providers some organization has a credential of: those this process may call. */
    providersInUse: (): Promise<string[]> => repository.providersInUse(),

    /**
     * Every webhook secret of the provider's credentials, opened: what its webhooks may present (a
     * previous secret while it counts).
     */
    async webhookSecrets(provider: CredentialProvider): Promise<string[]> {
      const at = now();
      return (await repository.sealedWebhookSecrets(provider)).flatMap((row) => [
        ...(row.current ? [secretBox.decrypt(row.current, row.id)] : []),
        ...(row.previous && previousSecretExpiresAt(row.changedAt, at)
          ? [secretBox.decrypt(row.previous, row.id)]
          : []),
      ]);
    },

    /**
     * Whether `secret` opens the webhooks of the organization's credential: its webhook secret, or the
     * one it replaced within 24 hours of the change (decision 0096).
     */
    async opensWebhook(organizationId: string, id: string, secret: string): Promise<boolean> {
      const credential = await open(organizationId, id);
      return credential !== undefined && opensWebhook(credential, secret, now());
    },

    /**
     * The API key of the credential with this id, whatever its organization, if its provider signs
     * webhooks with it (Retell): what its webhooks are signed with.
     */
    async signingApiKey(id: string): Promise<string | undefined> {
      const row = await repository.findAnyOrganization(id);
      return row && rulesOf(row.provider).signsWithApiKey ? secretBox.decrypt(row.apiKeySealed, row.id) : undefined;
    },

    /** The credential with its secrets opened, for a provider adapter. */
    open,

    /**
     * The same, read from the database now, not from memory: for publishing an agent, which must
     * send what was saved last. A change republishes the credential's agents at once, and the
     * publisher could open the copy in memory before the change feed had told this process to
     * forget it, and publish the replaced webhook secret (seen in CI on PostgreSQL, 2026-12-05).
     */
    openSaved,
  };
}

export type ProviderCredentialsService = ReturnType<typeof createProviderCredentialsService>;
