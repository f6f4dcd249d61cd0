import { sql } from 'drizzle-orm';
import {
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { agents } from './agents.js';

export interface TranscriptTurn {
  role: 'agent' | 'user' | 'tool';
  text: string;
  at: string;
  name?: string;
}

export const calls = pgTable(
  'calls',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    /** With `organizationId`, a foreign key to the agent in that organization (below). */
    agentId: text('agent_id').notNull(),
    provider: text('provider').notNull(),
    /** `outbound` (click to call, the API) or `inbound` (a caller rang one of our numbers). */
    direction: text('direction').notNull().default('outbound'),
    providerCallId: text('provider_call_id'),
    fromNumber: text('from_number'),
    toNumber: text('to_number').notNull(),
    /** queued → ringing → in_progress → ended; only ever moves forward. */
    status: text('status').notNull(),
    outcome: text('outcome'),
    endedReason: text('ended_reason'),
    variables: jsonb('variables').$type<Record<string, string>>().notNull(),
    collectedData: jsonb('collected_data').$type<Record<string, unknown>>().notNull(),
    transcript: jsonb('transcript').$type<TranscriptTurn[]>().notNull(),
    /** Why the provider failed or refused the call, as it said it. */
    error: text('error'),
    /** The provider's summary of the call (Vapi `analysis.summary`, Retell `call_summary`). */
    summary: text('summary'),
    recordingUrl: text('recording_url'),
    /** What the end-of-call report said that we could not keep as declared (an ill-typed value). */
    warnings: jsonb('warnings').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    durationSeconds: integer('duration_seconds'),
    /**
     * An end reported before the provider's analysis (Retell's `call_ended` before `call_analyzed`):
     * the call ends with the analysis, or with this when the sweep finds it overdue.
     */
    provisionalEnd: jsonb('provisional_end').$type<Record<string, unknown>>(),
    /** When the duration sweep closes the call if it has not ended: created + maxCallDurationSeconds. */
    deadlineAt: timestamp('deadline_at', { withTimezone: true }).notNull(),
    /** The campaign and contact a campaign's call was placed for (issue 19); null otherwise. */
    campaignId: text('campaign_id'),
    contactId: text('contact_id'),
  },
  (t) => [
    // The call's agent, in the call's organization: one foreign key, checked once per inserted row,
    // where one to the organization and one to the agent were two checks and let the two disagree
    // (decision 0073). The agent's own foreign key holds its organization.
    foreignKey({
      name: 'calls_agent_fk',
      columns: [t.organizationId, t.agentId],
      foreignColumns: [agents.organizationId, agents.id],
    }),
    // The ctc:007 guard: one open call per agent and number, enforced by the database for every process.
    // Its predicate also serves counting an agent's open calls (maxConcurrentCalls).
    // Incoming calls are left out: many callers may ring one number at once.
    uniqueIndex('calls_open_number_uq')
      .on(t.agentId, t.toNumber)
      .where(sql`${t.status} <> 'ended' and ${t.direction} = 'outbound'`),
    // An incoming call is recorded once, however many of its webhooks arrive together; a provider's
    // webhook finds its call here. Simulated calls are left out (decision 0112): their ids are unique
    // by construction (`sim_<player>_<uuid>`), nothing looks one up by it, and the entry was about a
    // tenth of PostgreSQL's CPU per accepted call.
    uniqueIndex('calls_provider_call_uq')
      .on(t.provider, t.providerCallId)
      .where(sql`${t.providerCallId} is not null and ${t.provider} <> 'simulator'`),
    index('calls_open_deadline_idx').on(t.deadlineAt).where(sql`${t.status} <> 'ended'`),
    // GET /v1/stats and the calls list, newest first: an organization's calls by creation time, the
    // id breaking ties as the list's keyset does, so a cursor is a bound on the index however deep
    // the page. `status` last: a status filter and the capped total are read from the index alone
    // (decision 0053).
    index('calls_org_created_idx').on(t.organizationId, t.createdAt, t.id, t.status),
    // The calls list filtered by agent (and status), newest first, at any depth (decision 0053).
    index('calls_org_agent_created_idx').on(t.organizationId, t.agentId, t.createdAt, t.id, t.status),
    // The stats rollup job: every organization's calls of a quarter hour (decision 0040).
    index('calls_created_idx').on(t.createdAt),
    // The calls list filtered by campaign.
    index('calls_campaign_idx').on(t.campaignId, t.id).where(sql`${t.campaignId} is not null`),
  ],
);

/** Responses of click-to-call requests sent with an `Idempotency-Key`, kept 24 h. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    /** `in_progress` while the first request runs; `completed` once its response is stored. */
    state: text('state').notNull(),
    callId: text('call_id'),
    response: jsonb('response').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.key] }), index('idempotency_keys_expires_idx').on(t.expiresAt)],
);

/** Click-to-call requests counted per agent per minute window, shared by every process. */
export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    agentId: text('agent_id').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.windowStart] }), index('rate_limit_windows_start_idx').on(t.windowStart)],
);
