import {
  judgeAttempt,
  RESPONSE_EXCERPT_BYTES,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_USER_AGENT,
} from '../deliveries/delivery-attempt.js';
import { type FieldProblem, notFound, validationError } from '../errors.js';
import { SECRET_MASK, type SecretBox } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { OutboundClient } from '../lib/outbound-http.js';
import { outboundUrlProblems } from '../lib/outbound-url.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import { isMask, originMoved, writeOnlyProblem } from '../lib/write-only.js';
import type { IntegrationRow, IntegrationsRepository } from './integrations.repository.js';
import type { CreateIntegrationInput, IntegrationView, UpdateIntegrationInput } from './integrations.schemas.js';
import { buildOutcomePayload, type EndedCall } from './outcome-payload.js';
import { checkTriggerConditions } from './trigger-conditions.js';
import { newSigningSecret, webhookHeaders } from './webhook-signature.js';

/** How long a rotated-out signing secret keeps signing alongside the new one (docs/interface.md#integrations). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The call a test delivery describes: shaped like a real one, visibly made up. */
function sampleCall(agentId: string, at: Date): EndedCall {
  const started = new Date(at.getTime() - 42_000);
  return {
    id: 'call_test',
    agentId,
    from: '+14155550100',
    to: '+14155550123',
    outcome: 'COMPLETED',
    endedReason: 'customer_hangup',
    transcript: [
      { role: 'agent', text: 'Hi Ada, this is a test call from Switchboard.', at: started.toISOString() },
      { role: 'user', text: 'Thanks, the webhook works.', at: new Date(started.getTime() + 5000).toISOString() },
    ],
    collectedData: { name: 'Ada' },
    variables: { name: 'Ada' },
    startedAt: started.toISOString(),
    endedAt: at.toISOString(),
    durationSeconds: 42,
  };
}

export interface IntegrationsServiceDeps {
  repository: IntegrationsRepository;
  secretBox: SecretBox;
  /** The agent's name, or undefined when the organization has no such agent (integrations hang off agents). */
  agentNameOf: (organizationId: string, agentId: string) => Promise<string | undefined>;
  /** The client webhooks are sent with (address-guarded, 5 s to connect): "Send test" uses it too. */
  outbound: OutboundClient;
  /** `SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`: whether URLs may reach private addresses. */
  allowPrivateNetworks: boolean;
  /** How a URL's hostname resolves when it is saved; default: not resolved. */
  resolve?: (hostname: string) => Promise<string[]>;
  now?: () => Date;
}

export function createIntegrationsService({
  repository,
  secretBox,
  agentNameOf,
  outbound,
  allowPrivateNetworks,
  resolve,
  now = () => new Date(),
}: IntegrationsServiceDeps) {
  const agentExists = async (organizationId: string, agentId: string) =>
    (await agentNameOf(organizationId, agentId)) !== undefined;

  /** Lists leave the signing secret out (masked): it is read from one integration at a time. */
  const toView = (row: IntegrationRow, { listed = false } = {}): IntegrationView => {
    const previousActive =
      row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now();
    return {
      id: row.id,
      agentId: row.agentId,
      type: row.type as IntegrationView['type'],
      url: row.url,
      enabled: row.enabled,
      authorization: row.authorizationSealed ? SECRET_MASK : null,
      signing: row.signing,
      signingSecret: listed ? SECRET_MASK : secretBox.decrypt(row.signingSecretSealed, row.id),
      previousSigningSecretExpiresAt: previousActive ? (row.previousSecretExpiresAt?.toISOString() ?? null) : null,
      triggerConditions: row.triggerConditions ?? null,
      disabledReason: row.disabledReason,
      failingSince: row.failingSince?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  };

  /**
   * `authorization` as written (src/lib/write-only.ts): the mask, or leaving it out, keeps the stored
   * token, and only while the URL keeps its origin. The signing secret is not tied to the URL: it is
   * ours, readable by the organization, and only signatures made with it are sent.
   */
  const tokenProblems = (given: string | null | undefined, stored: boolean, urlMoved: boolean): FieldProblem[] => {
    const message = writeOnlyProblem(given, stored, urlMoved);
    return message ? [{ path: '$.authorization', message }] : [];
  };

  async function check(
    input: { url?: string; triggerConditions?: CreateIntegrationInput['triggerConditions'] },
    extra: FieldProblem[],
  ) {
    const problems: FieldProblem[] = [...extra];
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
    token === undefined || isMask(token) ? current : token === null ? null : secretBox.encrypt(token, id);

  return {
    async create(organizationId: string, agentId: string, input: CreateIntegrationInput) {
      if (!(await agentExists(organizationId, agentId))) throw notFound('Agent');
      await check(input, tokenProblems(input.authorization, false, false));
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
        (row) => toView(row, { listed: true }),
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
      const urlMoved = originMoved(current.url, patch.url);
      await check(patch, tokenProblems(patch.authorization, current.authorizationSealed !== null, urlMoved));
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

    /**
     * "Send test": a sample `call.completed` (marked `"test": true`) sent to the integration now,
     * with the headers and signatures a real delivery has, so a receiver can be checked before any
     * call. Nothing is recorded and the integration's health is untouched: a receiver being fixed
     * can be tested while the integration is disabled, and a test's 410 does not disable it.
     */
    async sendTest(organizationId: string, id: string) {
      const row = await findOrThrow(organizationId, id);
      const at = now();
      const { body } = buildOutcomePayload(
        sampleCall(row.agentId, at),
        (await agentNameOf(organizationId, row.agentId)) ?? '',
        {
          test: true,
        },
      );
      const previousActive =
        row.previousSecretSealed && row.previousSecretExpiresAt && row.previousSecretExpiresAt > at;
      const headers = webhookHeaders({
        body,
        webhookId: newId('msg'),
        timestamp: Math.floor(at.getTime() / 1000),
        userAgent: WEBHOOK_USER_AGENT,
        bearerToken: row.authorizationSealed ? secretBox.decrypt(row.authorizationSealed, row.id) : undefined,
        secrets: row.signing
          ? [
              secretBox.decrypt(row.signingSecretSealed, row.id),
              ...(previousActive && row.previousSecretSealed
                ? [secretBox.decrypt(row.previousSecretSealed, row.id)]
                : []),
            ]
          : undefined,
      });
      const result = await outbound.send({
        method: 'POST',
        url: row.url,
        headers,
        body,
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: RESPONSE_EXCERPT_BYTES,
      });
      const { attempt, next } = judgeAttempt(result, {
        schedule: [],
        retriesUsed: 0,
        finalAttempt: true,
        random: Math.random,
        now: now(),
      });
      return {
        delivered: next.state === 'delivered',
        request: {
          method: 'POST',
          url: row.url,
          headers: headers.authorization ? { ...headers, authorization: `Bearer ${SECRET_MASK}` } : headers,
          body: body.toString('utf8'),
        },
        attempt: { at: at.toISOString(), ...attempt },
      };
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
