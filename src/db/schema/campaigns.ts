import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { agents } from './agents.js';
import { organizations } from './organizations.js';

/** When a campaign may call, in a contact's time zone (else the campaign's): days and local times. */
export interface CallingWindow {
  days: ('mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun')[];
  /** "HH:MM", local. */
  start: string;
  /** "HH:MM", local; after `start`. */
  end: string;
}

/** How many more attempts each kind of unanswered call earns, and how long after it ended. */
export interface RetryPolicy {
  noAnswer: number;
  busy: number;
  voicemail: number;
  failed: number;
  delayMinutes: number;
}

/**
 * A list of leads called by one agent within calling hours (issue 19, decision 0048):
 * draft → running ⇄ paused → completed | cancelled.
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    name: text('name').notNull(),
    /** IANA zone of the window for contacts without their own. */
    timezone: text('timezone').notNull(),
    window: jsonb('window').$type<CallingWindow>().notNull(),
    concurrency: integer('concurrency').notNull(),
    callsPerMinute: integer('calls_per_minute').notNull(),
    retry: jsonb('retry').$type<RetryPolicy>().notNull(),
    /** Outcomes that put the called number on the organization's do-not-call list. */
    doNotCallOutcomes: jsonb('do_not_call_outcomes').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** No call before this instant (null: as soon as started). */
    startAt: timestamp('start_at', { withTimezone: true }),
    /** draft, running, paused, completed, cancelled. */
    state: text('state').notNull().default('draft'),
    /**
     * callsPerMinute, shared by every worker: the earliest instant the next call may start; each
     * call placed moves it on by 60 s / callsPerMinute (from now, when it lies in the past).
     */
    paceAt: timestamp('pace_at', { withTimezone: true }),
    /** The earliest instant a contact of a running campaign is due: the scheduler skips it until then. */
    nextDueAt: timestamp('next_due_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    index('campaigns_org_idx').on(t.organizationId, t.id).where(sql`${t.deletedAt} is null`),
    // The scheduler's scan: running campaigns by when they are next due.
    index('campaigns_running_idx').on(t.nextDueAt).where(sql`${t.state} = 'running' and ${t.deletedAt} is null`),
  ],
);

/** One number to call in a campaign, with its variables; a number is in a campaign once. */
export const campaignContacts = pgTable(
  'campaign_contacts',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** E.164. */
    phone: text('phone').notNull(),
    variables: jsonb('variables').$type<Record<string, string>>().notNull(),
    /** IANA zone of this contact's calling window; null: the campaign's. */
    timezone: text('timezone'),
    /** pending, calling, retrying, done, skipped, failed. */
    state: text('state').notNull().default('pending'),
    /** Attempts whose call started (an attempt whose call never started is not counted). */
    attempts: integer('attempts').notNull().default(0),
    /** When the contact is next due (pending or retrying); null in the other states. */
    dueAt: timestamp('due_at', { withTimezone: true }),
    /** The last attempt's call outcome. */
    lastOutcome: text('last_outcome'),
    /** Why the contact was skipped or failed, in words. */
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('campaign_contacts_phone_uq').on(t.campaignId, t.phone),
    index('campaign_contacts_list_idx').on(t.campaignId, t.id),
    index('campaign_contacts_state_idx').on(t.campaignId, t.state, t.id),
    // The scheduler's claim: a campaign's due contacts, oldest due first.
    index('campaign_contacts_due_idx').on(t.campaignId, t.dueAt).where(sql`${t.state} in ('pending', 'retrying')`),
  ],
);

/**
 * One try at calling a contact, recorded with its call in one transaction before the provider is
 * asked: `placing` (the provider is being asked), `placed` (it took the call), `ended` (the call
 * ended), or `not_started` (the provider refused it, or the process died before it answered and the
 * call never started).
 */
export const campaignAttempts = pgTable(
  'campaign_attempts',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    contactId: text('contact_id')
      .notNull()
      .references(() => campaignContacts.id),
    /** 1, 2, …: the contact's attempts in order (not_started ones included). */
    number: integer('number').notNull(),
    callId: text('call_id').notNull(),
    state: text('state').notNull(),
    outcome: text('outcome'),
    /** answered, noAnswer, busy, voicemail or failed, once the call ended (src/stats/call-results.ts). */
    result: text('result'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('campaign_attempts_number_uq').on(t.contactId, t.number),
    uniqueIndex('campaign_attempts_call_uq').on(t.callId),
    // Attempts still following their call: settled when it ends, recovered when their process died.
    index('campaign_attempts_open_idx').on(t.campaignId, t.createdAt).where(sql`${t.state} in ('placing', 'placed')`),
  ],
);
