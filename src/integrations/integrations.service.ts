import { type FieldProblem, notFound, validationError } from '../errors.js';
import { SECRET_MASK, type SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { outboundUrlProblems } from '../lib/outbound-url.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import type { IntegrationRow, IntegrationsRepository } from './integrations.repository.js';
import type { CreateIntegrationInput, UpdateIntegrationInput } from './integrations.schemas.js';
import { checkTriggerConditions } from './trigger-conditions.js';
import { newSigningSecret } from './webhook-signature.js';

/** How long a rotated-out signing secret keeps signing alongside the new one (CONTRACT §5). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface IntegrationsServiceDeps {
  repository: IntegrationsRepository;
  secretBox: SecretBox;
  /** Whether the agent exists in the organization (integrations hang off agents). */
  agentExists: (organizationId: string, agentId: string) => Promise<boolean>;
  /** `SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`: whether URLs may reach private addresses. */
  allowPrivateNetworks: boolean;
  /** How a URL's hostname resolves when it is saved; default: not resolved. */
  resolve?: (hostname: string) => Promise<string[]>;
  now?: () => Date;
}

export function createIntegrationsService({
  repository,
  secretBox,
  agentExists,
  allowPrivateNetworks,
  resolve,
  now = () => new Date(),
}: IntegrationsServiceDeps) {
  const toView = (row: IntegrationRow) => {
    const previousActive =
      row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now();
    return {
      id: row.id,
      agentId: row.agentId,
      type: row.type,
      url: row.url,
      enabled: row.enabled,
      authorization: row.authorizationSealed ? SECRET_MASK : null,
      signing: row.signing,
      signingSecret: secretBox.decrypt(row.signingSecretSealed, row.id),
      previousSigningSecretExpiresAt: previousActive ? row.previousSecretExpiresAt?.toISOString() : null,
      triggerConditions: row.triggerConditions ?? null,
      disabledReason: row.disabledReason,
      failingSince: row.failingSince?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  };

  async function check(input: { url?: string; triggerConditions?: CreateIntegrationInput['triggerConditions'] }) {
    const problems: FieldProblem[] = [];
    if (input.url !== undefined) {
      for (const message of await outboundUrlProblems(input.url, { allowPrivateNetworks, resolve })) {
        problems.push({ path: '$.url', message });
      }
    }
    if (input.triggerConditions) problems.push(...checkTriggerConditions(input.triggerConditions));
    if (problems.length > 0) throw validationError(problems);
  }

  async function findOrThrow(organizationId: string, id: string): Promise<IntegrationRow> {
    const row = await repository.find(organizationId, id);
    if (!row) throw notFound('Integration');
    return row;
  }

  /** A bearer token as stored: sealed, or null to remove it; the mask written back keeps the old one. */
  const sealedToken = (id: string, token: string | null | undefined, current: string | null) =>
    token === undefined || token === SECRET_MASK ? current : token === null ? null : secretBox.encrypt(token, id);

  return {
    async create(organizationId: string, agentId: string, input: CreateIntegrationInput) {
      if (!(await agentExists(organizationId, agentId))) throw notFound('Agent');
      await check(input);
      const id = newId('intg');
      const row = await repository.insert({
        id,
        organizationId,
        agentId,
        type: input.type ?? 'webhook',
        url: input.url,
        enabled: input.enabled ?? true,
        authorizationSealed: sealedToken(id, input.authorization, null),
        signing: input.signing ?? true,
        signingSecretSealed: secretBox.encrypt(newSigningSecret(), id),
        triggerConditions: input.triggerConditions ?? null,
      });
      return toView(row);
    },

    async list(
      organizationId: string,
      agentId: string,
      query: { cursor?: string; limit?: number },
    ): Promise<Page<ReturnType<typeof toView>>> {
      if (!(await agentExists(organizationId, agentId))) throw notFound('Agent');
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      return toPage(
        await repository.listByAgent(organizationId, agentId, { beforeId, limit: limit + 1 }),
        limit,
        toView,
      );
    },

    /** The integration's state, or undefined when the organization has no such integration. */
    async find(organizationId: string, id: string) {
      const row = await repository.find(organizationId, id);
      return row ? { enabled: row.enabled, disabledReason: row.disabledReason } : undefined;
    },

    async get(organizationId: string, id: string) {
      return toView(await findOrThrow(organizationId, id));
    },

    async update(organizationId: string, id: string, patch: UpdateIntegrationInput) {
      const current = await findOrThrow(organizationId, id);
      await check(patch);
      const updated = await repository.update(organizationId, id, {
        ...(patch.type !== undefined ? { type: patch.type } : {}),
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled, disabledReason: null, failingSince: null } : {}),
        ...(patch.signing !== undefined ? { signing: patch.signing } : {}),
        ...(patch.triggerConditions !== undefined ? { triggerConditions: patch.triggerConditions } : {}),
        authorizationSealed: sealedToken(id, patch.authorization, current.authorizationSealed),
      });
      if (!updated) throw notFound('Integration');
      return toView(updated);
    },

    async remove(organizationId: string, id: string): Promise<void> {
      if (!(await repository.remove(organizationId, id))) throw notFound('Integration');
    },

    /** A new signing secret; the old one keeps signing alongside it for 24 h. */
    async rotateSecret(organizationId: string, id: string) {
      const current = await findOrThrow(organizationId, id);
      const updated = await repository.update(organizationId, id, {
        signingSecretSealed: secretBox.encrypt(newSigningSecret(), id),
        previousSecretSealed: current.signingSecretSealed,
        previousSecretExpiresAt: new Date(now().getTime() + ROTATION_OVERLAP_MS),
      });
      if (!updated) throw notFound('Integration');
      return toView(updated);
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
