import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';
import { providerCredentials } from './provider-credentials.js';

export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    type: text('type').notNull(),
    enabled: boolean('enabled').notNull(),
    provider: text('provider').notNull(),
    // Deleting a credential in use by a live agent is refused; soft-deleted agents simply lose it.
    providerCredentialId: text('provider_credential_id').references(() => providerCredentials.id, {
      onDelete: 'set null',
    }),
    prompt: text('prompt').notNull(),
    firstMessage: text('first_message').notNull(),
    fromNumber: text('from_number'),
    disableSignatureVerification: boolean('disable_signature_verification').notNull(),
    maxConcurrentCalls: integer('max_concurrent_calls'),
    rateLimitPerMinute: integer('rate_limit_per_minute'),
    maxCallDurationSeconds: integer('max_call_duration_seconds').notNull(),
    toolIds: jsonb('tool_ids').$type<string[]>().notNull(),
    outcomes: jsonb('outcomes').$type<string[]>().notNull(),
    simulator: jsonb('simulator').$type<unknown>(),
    /** ISO 3166 alpha-2 codes click to call may dial; null: every country (decision 0031). */
    allowedCountries: jsonb('allowed_countries').$type<string[]>(),
    /** Outcomes that put the called number on the organization's do-not-call list (issue 19). */
    doNotCallOutcomes: jsonb('do_not_call_outcomes').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** Click to call refuses a request without `signature-timestamp` (decision 0031). */
    requireSignatureTimestamp: boolean('require_signature_timestamp').notNull().default(false),
    /** What the agent collects in a call (`collect`, issue 17): `[{name, type, description, choices?, required}]`. */
    collect: jsonb('collect').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
    /** `{provider, voiceId}`; null: the provider's default we publish (decision 0036). */
    voice: jsonb('voice').$type<unknown>(),
    /** `{provider, name, temperature}`; null: the default model. */
    model: jsonb('model').$type<unknown>(),
    /** BCP-47 tag (`en-US`); null: the provider's default. */
    language: text('language'),
    /** `{action: "hang_up" | "leave_message", message}`; null: the provider's default (no detection). */
    voicemail: jsonb('voicemail').$type<unknown>(),
    /** Merged last into what is published to the provider (validated against its schema at save). */
    providerSettings: jsonb('provider_settings').$type<Record<string, unknown>>(),
    /**
     * Click-to-call credentials. The token is never stored: it is derived from the master key and
     * `apiTokenNonce` when shown, and looked up by its SHA-256 (`apiTokenHash`). The secret is
     * AES-256-GCM ciphertext bound to the agent id.
     */
    apiTokenHash: text('api_token_hash'),
    apiTokenNonce: text('api_token_nonce'),
    apiSecretSealed: text('api_secret_sealed'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** The agent's id at its provider (Vapi assistant, Retell agent), once published. */
    providerAgentId: text('provider_agent_id'),
    /** Retell keeps the prompt and tools in an LLM of their own: its id, once published. */
    providerLlmId: text('provider_llm_id'),
    /**
     * Publishing to the provider: `pending` (due at `providerSyncDueAt`), `synced`, or `failed`
     * with the provider's error; retried in the background.
     */
    providerSyncState: text('provider_sync_state').notNull().default('synced'),
    providerSyncError: text('provider_sync_error'),
    providerSyncAttempts: integer('provider_sync_attempts').notNull().default(0),
    providerSyncDueAt: timestamp('provider_sync_due_at', { withTimezone: true }),
    providerSyncedAt: timestamp('provider_synced_at', { withTimezone: true }),
    /** Soft delete: calls keep pointing at the agent that made them. */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('agents_api_token_hash_uq').on(t.apiTokenHash),
    // An organization's agents, in id order (its live ones are most of them), and the key of the calls'
    // foreign key (organization_id, agent_id): a call belongs to its agent's organization (decision 0073).
    uniqueIndex('agents_org_id_uq').on(t.organizationId, t.id),
    index('agents_provider_credential_idx').on(t.providerCredentialId),
    // An incoming call names the provider's agent (Vapi assistant, Retell agent): ours is found by it.
    index('agents_provider_agent_idx').on(t.providerAgentId).where(sql`${t.providerAgentId} is not null`),
    index('agents_provider_sync_due_idx').on(t.providerSyncDueAt).where(sql`${t.providerSyncState} = 'pending'`),
  ],
);
