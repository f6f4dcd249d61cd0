import { Readable } from 'node:stream';
import type { AgentView } from '../agents/agents.schemas.js';
import { csvRecord } from '../calls/calls-csv.js';
import { ApiError, type FieldProblem, notFound, validationError } from '../errors.js';
import { formatCount } from '../lib/format-count.js';
import { newId } from '../lib/ids.js';
import { decodeCursor, toPage } from '../lib/pagination.js';
import { isValidTimeZone, windowProblems } from './calling-window.js';
import type {
  AttemptRecord,
  CampaignRow,
  CampaignsRepository,
  ContactRecord,
  NewContact,
} from './campaigns.repository.js';
import {
  type CampaignListQuery,
  type CampaignState,
  type CampaignView,
  CONTACT_STATES,
  type ContactListQuery,
  type ContactView,
  type CreateCampaignInput,
  DEFAULT_RETRY,
  DEFAULT_WINDOW,
  type ImportResult,
  MAX_CAMPAIGNS_PER_ORGANIZATION,
  MAX_CONTACTS_PER_CAMPAIGN,
  MAX_IMPORT_ERRORS,
  type UpdateCampaignInput,
} from './campaigns.schemas.js';
import { type ContactRow, type ImportItem, readCsvContacts, readJsonContacts } from './contacts-import.js';

/** The campaign's agent, as the agents service shows it. */
export type CampaignAgent = Pick<AgentView, 'id' | 'type' | 'allowedCountries'>;

export interface CampaignsServiceDeps {
  repository: CampaignsRepository;
  now: () => Date;
  /** The organization's agent; throws `api:not_found` (the agents service's `get`) when it has none. */
  agentOf: (organizationId: string, agentId: string) => Promise<CampaignAgent>;
  /** Contacts were added to a running campaign, or it started or resumed: the scheduler may look now. */
  onDue?: () => void;
}

/** Contacts written to the database at once by an import. */
const IMPORT_BATCH = 1000;
/** Contacts results.csv reads at once. */
const RESULTS_BATCH = 1000;
/** Valid contacts a dry run shows. */
const PREVIEW_SIZE = 10;

export const RESULTS_HEADER = [
  'contact_id',
  'phone',
  'state',
  'attempts',
  'last_outcome',
  'last_call_id',
  'reason',
  'variables',
] as const;

/** `is completed: a completed campaign …`: why the state refuses the change. */
function wrongState(state: string, what: string): ApiError {
  return new ApiError('conflict', `The campaign is ${state}: ${what}`, [
    { path: '$.state', message: `is ${state}: ${what}` },
  ]);
}

const DIALLING_TYPES = new Set(['outbound', 'click_to_call']);

/** The settings a create or update gives, with what the service itself checks. */
function settingsProblems(input: UpdateCampaignInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) {
    problems.push({
      path: '$.timezone',
      message: 'must be an IANA time zone name such as America/New_York or UTC (not an offset such as +02:00)',
    });
  }
  if (input.window !== undefined) problems.push(...windowProblems(input.window));
  if (input.startAt !== undefined && input.startAt !== null && Number.isNaN(Date.parse(input.startAt))) {
    problems.push({ path: '$.startAt', message: 'must be a date-time such as 2026-03-01T09:00:00Z' });
  }
  return problems;
}

/**
 * The campaigns API (docs/interface.md#campaigns, decision 0048): campaigns and their settings,
 * the state changes, contacts imported from JSON or a streamed CSV, the contacts list and the
 * results export. The scheduler (scheduler.ts) places the calls.
 */
export function createCampaignsService({ repository, now, agentOf, onDue }: CampaignsServiceDeps) {
  async function findOrThrow(organizationId: string, id: string): Promise<CampaignRow> {
    const row = await repository.find(organizationId, id);
    if (!row) throw notFound('Campaign');
    return row;
  }

  /** The agent a campaign may call with, or the problem with `agentId`. */
  async function agentProblem(organizationId: string, agentId: string): Promise<FieldProblem | undefined> {
    let agent: CampaignAgent;
    try {
      agent = await agentOf(organizationId, agentId);
    } catch (error) {
      if (error instanceof ApiError && (error.kind === 'not_found' || error.kind === 'validation')) {
        return { path: '$.agentId', message: 'no such agent' };
      }
      throw error;
    }
    if (!DIALLING_TYPES.has(agent.type)) {
      return {
        path: '$.agentId',
        message: `is an ${agent.type} agent; a campaign calls with an outbound or click_to_call agent`,
      };
    }
    return undefined;
  }

  async function views(rows: CampaignRow[]): Promise<CampaignView[]> {
    const counts = await repository.stateCounts(rows.map((row) => row.id));
    return rows.map((row) => {
      const of = counts.get(row.id) ?? {};
      const byState = Object.fromEntries(CONTACT_STATES.map((state) => [state, of[state] ?? 0])) as Record<
        (typeof CONTACT_STATES)[number],
        number
      >;
      const total = Object.values(byState).reduce((sum, n) => sum + n, 0);
      return {
        id: row.id,
        name: row.name,
        agentId: row.agentId,
        timezone: row.timezone,
        window: row.window,
        concurrency: row.concurrency,
        callsPerMinute: row.callsPerMinute,
        retry: row.retry,
        doNotCallOutcomes: row.doNotCallOutcomes,
        startAt: row.startAt?.toISOString() ?? null,
        state: row.state as CampaignState,
        counts: { total, ...byState },
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        startedAt: row.startedAt?.toISOString() ?? null,
        endedAt: row.endedAt?.toISOString() ?? null,
      };
    });
  }
  const view = async (row: CampaignRow) => (await views([row]))[0] as CampaignView;

  function contactView(row: ContactRecord, attempts: AttemptRecord[]): ContactView {
    return {
      id: row.id,
      campaignId: row.campaignId,
      phone: row.phone,
      variables: row.variables,
      timezone: row.timezone,
      state: row.state as ContactView['state'],
      attempts: attempts.map((a) => ({
        number: a.number,
        callId: a.callId,
        state: a.state as ContactView['attempts'][number]['state'],
        outcome: a.outcome,
        result: a.result as ContactView['attempts'][number]['result'],
        createdAt: a.createdAt.toISOString(),
        endedAt: a.endedAt?.toISOString() ?? null,
      })),
      dueAt: row.dueAt?.toISOString() ?? null,
      lastOutcome: row.lastOutcome,
      reason: row.reason,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** A state change refused: why, from the state the campaign is in now. */
  async function refusal(organizationId: string, id: string, what: (state: string) => string): Promise<never> {
    const row = await findOrThrow(organizationId, id);
    throw wrongState(row.state, what(row.state));
  }

  /**
   * Stores the checked rows in batches (or, for a dry run, only looks up which numbers the campaign
   * holds), merging a number repeated in the upload; the answer counts and lists what happened.
   */
  async function importItems(
    organizationId: string,
    campaign: CampaignRow,
    items: AsyncIterable<ImportItem> | Iterable<ImportItem>,
    dryRun: boolean,
  ): Promise<ImportResult> {
    const result: ImportResult = { received: 0, added: 0, merged: 0, errors: [] };
    let omitted = 0;
    const preview: NonNullable<ImportResult['preview']> = [];
    const seen = new Set<string>();
    const existing = await repository.contactCount(campaign.id);
    const at = now();

    const run = async (store: (batch: NewContact[]) => Promise<{ added: number; merged: number }>) => {
      let batch: NewContact[] = [];
      // One batch is written while the next is read and checked: on PostgreSQL the two overlap.
      let writing: Promise<void> = Promise.resolve();
      let failure: { error: unknown } | undefined;
      const settle = async () => {
        await writing;
        if (failure) throw failure.error;
        if (existing + result.added > MAX_CONTACTS_PER_CAMPAIGN) {
          throw validationError([
            {
              path: '$',
              message: `A campaign holds at most ${formatCount(MAX_CONTACTS_PER_CAMPAIGN)} contacts; it holds ${formatCount(existing)}. Nothing was imported`,
            },
          ]);
        }
      };
      const flush = async () => {
        await settle();
        if (batch.length === 0) return;
        writing = store(batch).then(
          (stored) => {
            result.added += stored.added;
            result.merged += stored.merged;
          },
          (error: unknown) => {
            failure = { error };
          },
        );
        batch = [];
      };
      try {
        for await (const item of items) {
          result.received += 1;
          if ('error' in item) {
            if (result.errors.length < MAX_IMPORT_ERRORS) result.errors.push(item.error);
            else omitted += 1;
            continue;
          }
          const row: ContactRow = item.row;
          if (seen.has(row.phone)) {
            result.merged += 1;
            continue;
          }
          seen.add(row.phone);
          if (dryRun && preview.length < PREVIEW_SIZE) {
            preview.push({
              ...(row.line !== undefined ? { line: row.line } : { index: row.index as number }),
              phone: row.phone,
              variables: row.variables,
              timezone: row.timezone,
            });
          }
          batch.push({ id: newId('cct'), phone: row.phone, variables: row.variables, timezone: row.timezone });
          if (batch.length >= IMPORT_BATCH) await flush();
        }
        await flush();
      } finally {
        // Whatever ended the reading, the batch being written finishes before the transaction does.
        await writing;
      }
      await settle();
    };

    if (dryRun) {
      await run(async (batch) => {
        const held = await repository.existingPhones(
          campaign.id,
          batch.map((c) => c.phone),
        );
        return { added: batch.length - held.size, merged: held.size };
      });
    } else {
      await repository.importContacts(organizationId, campaign.id, at, run);
      if (result.added > 0 && campaign.state === 'running') onDue?.();
    }
    if (omitted > 0) result.errorsOmitted = omitted;
    if (dryRun) result.preview = preview;
    return result;
  }

  /** The campaign contacts may be added to, with its agent's countries. */
  async function importTarget(organizationId: string, id: string) {
    const campaign = await findOrThrow(organizationId, id);
    if (!['draft', 'running', 'paused'].includes(campaign.state)) {
      throw wrongState(campaign.state, 'contacts are added to a draft, running or paused campaign');
    }
    let allowedCountries: readonly string[] | null = null;
    try {
      allowedCountries = (await agentOf(organizationId, campaign.agentId)).allowedCountries ?? null;
    } catch (error) {
      if (!(error instanceof ApiError && error.kind === 'not_found')) throw error;
    }
    return { campaign, allowedCountries };
  }

  return {
    async create(organizationId: string, input: CreateCampaignInput): Promise<CampaignView> {
      const problems = settingsProblems(input);
      const agent = await agentProblem(organizationId, input.agentId);
      if (agent) problems.push(agent);
      if (problems.length > 0) throw validationError(problems);
      const at = now();
      const row = await repository.insert(
        {
          id: newId('cmp'),
          organizationId,
          agentId: input.agentId,
          name: input.name.trim(),
          timezone: input.timezone ?? 'UTC',
          window: (input.window ?? DEFAULT_WINDOW) as CampaignRow['window'],
          concurrency: input.concurrency ?? 1,
          callsPerMinute: input.callsPerMinute ?? 10,
          retry: input.retry ?? DEFAULT_RETRY,
          doNotCallOutcomes: input.doNotCallOutcomes ?? [],
          startAt: input.startAt ? new Date(input.startAt) : null,
          state: 'draft',
          createdAt: at,
          updatedAt: at,
        },
        MAX_CAMPAIGNS_PER_ORGANIZATION,
      );
      if (!row) {
        throw new ApiError(
          'conflict',
          `The organization has ${formatCount(MAX_CAMPAIGNS_PER_ORGANIZATION)} campaigns, the most it may have: delete one first`,
        );
      }
      return view(row);
    },

    async list(organizationId: string, query: CampaignListQuery) {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor ? decodeCursor(query.cursor) : undefined;
      const [rows, total] = await Promise.all([
        repository.list(organizationId, { state: query.state, beforeId, limit: limit + 1 }),
        repository.count(organizationId, query.state),
      ]);
      const page = toPage(rows, limit, (row) => row);
      return { data: await views(page.data), nextCursor: page.nextCursor, total };
    },

    async get(organizationId: string, id: string): Promise<CampaignView> {
      return view(await findOrThrow(organizationId, id));
    },

    async update(organizationId: string, id: string, input: UpdateCampaignInput): Promise<CampaignView> {
      const current = await findOrThrow(organizationId, id);
      if (current.state === 'completed' || current.state === 'cancelled') {
        throw wrongState(current.state, 'a completed or cancelled campaign cannot be changed');
      }
      const problems = settingsProblems(input);
      if (input.agentId !== undefined && input.agentId !== current.agentId) {
        if (current.state !== 'draft') {
          throw wrongState(current.state, 'the agent can only be changed while the campaign is a draft');
        }
        const agent = await agentProblem(organizationId, input.agentId);
        if (agent) problems.push(agent);
      }
      if (problems.length > 0) throw validationError(problems);
      const { startAt, name, ...rest } = input;
      const changes = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      const states: CampaignState[] =
        input.agentId !== undefined && input.agentId !== current.agentId ? ['draft'] : ['draft', 'running', 'paused'];
      const row = await repository.update(
        organizationId,
        id,
        states,
        {
          ...changes,
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(startAt !== undefined ? { startAt: startAt === null ? null : new Date(startAt) } : {}),
          // The scheduler looks again at once: the window or pace may let calls start now.
          ...(current.state === 'running' ? { nextDueAt: now() } : {}),
        } as Partial<CampaignRow>,
        now(),
      );
      if (!row) return refusal(organizationId, id, () => 'it changed state meanwhile; try again');
      if (row.state === 'running') onDue?.();
      return view(row);
    },

    async remove(organizationId: string, id: string): Promise<void> {
      if (await repository.softDelete(organizationId, id, ['draft', 'completed', 'cancelled'], now())) return;
      await refusal(organizationId, id, () => 'cancel it first');
    },

    async start(organizationId: string, id: string): Promise<CampaignView> {
      const row = await repository.start(organizationId, id, now());
      if (!row) {
        const current = await findOrThrow(organizationId, id);
        if (current.state === 'draft') {
          throw new ApiError('conflict', 'The campaign has no contacts: add some before starting it', [
            { path: '$.contacts', message: 'has no contacts; add some before starting it' },
          ]);
        }
        throw wrongState(current.state, 'only a draft campaign can be started');
      }
      onDue?.();
      return view(row);
    },

    async pause(organizationId: string, id: string): Promise<CampaignView> {
      const row = await repository.update(organizationId, id, ['running'], { state: 'paused' }, now());
      return row ? view(row) : refusal(organizationId, id, () => 'only a running campaign can be paused');
    },

    async resume(organizationId: string, id: string): Promise<CampaignView> {
      const at = now();
      const row = await repository.update(organizationId, id, ['paused'], { state: 'running', nextDueAt: at }, at);
      if (!row) return refusal(organizationId, id, () => 'only a paused campaign can be resumed');
      onDue?.();
      return view(row);
    },

    async cancel(organizationId: string, id: string): Promise<CampaignView> {
      const row = await repository.cancel(organizationId, id, now());
      return row
        ? view(row)
        : refusal(organizationId, id, () => 'only a draft, running or paused campaign can be cancelled');
    },

    /** `POST /v1/campaigns/:id/contacts` with JSON: a bare list or `{contacts}`. */
    async importJson(
      organizationId: string,
      id: string,
      body: unknown[] | { contacts: unknown[] },
      dryRun: boolean,
    ): Promise<ImportResult> {
      const { campaign, allowedCountries } = await importTarget(organizationId, id);
      const items = Array.isArray(body) ? body : body.contacts;
      return importItems(organizationId, campaign, readJsonContacts(items, allowedCountries), dryRun);
    },

    /** `POST /v1/campaigns/:id/contacts` with `text/csv`: read as it arrives, stored in batches, in one transaction. */
    async importCsv(organizationId: string, id: string, stream: Readable, dryRun: boolean): Promise<ImportResult> {
      const { campaign, allowedCountries } = await importTarget(organizationId, id);
      return importItems(organizationId, campaign, readCsvContacts(stream, allowedCountries), dryRun);
    },

    async listContacts(organizationId: string, id: string, query: ContactListQuery) {
      const campaign = await findOrThrow(organizationId, id);
      const limit = query.limit ?? 50;
      const afterId = query.cursor ? decodeCursor(query.cursor) : undefined;
      const [rows, total] = await Promise.all([
        repository.listContacts(campaign.id, { state: query.state, afterId, limit: limit + 1 }),
        repository.contactCount(campaign.id, query.state),
      ]);
      const page = toPage(rows, limit, (row) => row);
      const attempts = await repository.attemptsOf(page.data.map((row) => row.id));
      const byContact = new Map<string, AttemptRecord[]>();
      for (const attempt of attempts)
        byContact.set(attempt.contactId, [...(byContact.get(attempt.contactId) ?? []), attempt]);
      return {
        data: page.data.map((row) => contactView(row, byContact.get(row.id) ?? [])),
        nextCursor: page.nextCursor,
        total,
      };
    },

    /** results.csv: every contact, read a batch at a time as the reply drains. */
    async resultsCsv(organizationId: string, id: string): Promise<{ filename: string; body: Readable }> {
      const campaign = await findOrThrow(organizationId, id);
      async function* records(): AsyncGenerator<string> {
        yield csvRecord([...RESULTS_HEADER]);
        let after: string | undefined;
        for (;;) {
          const rows = await repository.resultBatch(campaign.id, after, RESULTS_BATCH);
          if (rows.length > 0) {
            yield rows
              .map((row) =>
                csvRecord([
                  row.id,
                  row.phone,
                  row.state,
                  String(row.attempts),
                  row.lastOutcome ?? '',
                  row.lastCallId ?? '',
                  row.reason ?? '',
                  JSON.stringify(row.variables),
                ]),
              )
              .join('');
          }
          const last = rows[rows.length - 1];
          if (rows.length < RESULTS_BATCH || !last) return;
          after = last.id;
        }
      }
      return { filename: `campaign-${campaign.id}-results.csv`, body: Readable.from(records(), { highWaterMark: 1 }) };
    },
  };
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
