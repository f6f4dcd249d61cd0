import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AgentRow } from '../agents/agents.repository.js';
import { type Db, retryOnConflict, rowsOf } from '../db/client.js';
import { agents, type CallingWindow } from '../db/schema/index.js';
import { newId } from '../lib/ids.js';
import { callResultSql } from '../stats/call-results.js';
import { numberIsListed } from '../suppressions/suppressions.repository.js';

/** A running campaign, locked by the scheduler while it places its calls. */
export interface LockedCampaign {
  id: string;
  organizationId: string;
  agentId: string;
  timezone: string;
  window: CallingWindow;
  concurrency: number;
  callsPerMinute: number;
  paceAt: Date | null;
}

/** A due contact claimed for placing, with what decides whether it is called. */
export interface ClaimedContact {
  id: string;
  phone: string;
  variables: Record<string, string>;
  timezone: string | null;
  attempts: number;
  /** The highest attempt number so far (0: none). */
  lastNumber: number;
  suppressed: boolean;
}

/** A contact that is not called now: due again later, or final (skipped / failed) with a reason. */
export type ContactChange =
  | { id: string; kind: 'due'; dueAt: Date }
  | { id: string; kind: 'final'; state: 'skipped' | 'failed'; reason: string };

/** An attempt whose call the provider took, with the provider's id for it. */
export interface PlacedCall {
  attemptId: string;
  callId: string;
  providerCallId: string;
}

/** An attempt whose provider refused to start its call (the call already ended as failed_to_start). */
export interface RefusedStart {
  attemptId: string;
  message: string;
}

const iso = (date: Date) => date.toISOString();
const toDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(String(value));

/** Provider refusals of one contact after which it fails rather than waits another minute. */
export const MAX_REFUSED_STARTS = 3;

/** Why a contact failed after its last attempt, in words. */
const FAILED_REASON_SQL = sql`case n.result
    when 'noAnswer' then 'no answer'
    when 'busy' then 'busy'
    when 'voicemail' then 'voicemail'
    else 'call failed' end || ' after ' || n.n || case when n.n = 1 then ' attempt' else ' attempts' end`;

/**
 * The scheduler's SQL (decision 0049). Scheduling instants (`now`) are the scheduler's clock, which
 * tests replace; the lease of an attempt being placed is measured by the database's own clock, as
 * its `created_at` is, so every process agrees on it.
 */
export function createSchedulerRepository(db: Db) {
  return {
    /**
     * What a tick has to look at: `campaigns`, a running campaign (calls to place, a campaign to
     * complete); `attempts`, an attempt placing or placed (a call to settle, an abandoned placing to
     * recover). One statement, each half a probe of the partial index kept for exactly that set: a
     * worker with no campaign under way asks the database this alone each tick (decision 0078).
     */
    async work(): Promise<{ campaigns: boolean; attempts: boolean }> {
      const result = await db.execute(sql`
        select exists (select 1 from campaigns where state = 'running' and deleted_at is null) as campaigns,
               exists (select 1 from campaign_attempts where state in ('placing', 'placed')) as attempts`);
      const [row] = rowsOf<{ campaigns: boolean; attempts: boolean }>(result);
      return { campaigns: row?.campaigns === true, attempts: row?.attempts === true };
    },

    /**
     * Settles up to `limit` attempts whose call ended (not those whose start was refused or
     * abandoned: their placer or the recovery settles them) in one statement: the attempt gets the
     * call's outcome and result, the contact is done (answered), retrying (due `delayMinutes` from
     * now, when `retry[result]` allows another attempt), skipped (the campaign was cancelled
     * meanwhile) or failed. Returns the campaigns touched.
     */
    async settle(now: Date, limit: number): Promise<string[]> {
      const result = await retryOnConflict(() =>
        db.execute(sql`
        with ended as (
          select a.id, a.contact_id, a.campaign_id, c.outcome, coalesce(c.ended_at, ${iso(now)}::timestamptz) as ended_at,
                 ${callResultSql()} as result
          from campaign_attempts a
          join calls c on c.id = a.call_id
          -- Only calls that started: the provider took them (the attempt is placed, or its call has
          -- the provider's id). A call still placing when its process died, ended by the duration
          -- sweep before the recovery saw it, never rang: the recovery retries it.
          where (a.state = 'placed' or (a.state = 'placing' and c.provider_call_id is not null))
            and c.status = 'ended'
            and coalesce(c.ended_reason, '') not in ('failed_to_start', 'not_started')
          order by a.created_at
          limit ${limit}
          for update of a skip locked
        ), settled as (
          update campaign_attempts a set state = 'ended', outcome = e.outcome, result = e.result, ended_at = e.ended_at
          from ended e where a.id = e.id
          returning a.id
        ), n as (
          select e.contact_id, e.outcome, e.result, k.attempts + 1 as n, m.state as campaign_state,
                 coalesce((m.retry ->> e.result)::int, 0) as allowed,
                 coalesce((m.retry ->> 'delayMinutes')::int, 60) as delay
          from ended e
          join campaign_contacts k on k.id = e.contact_id
          join campaigns m on m.id = e.campaign_id
          where k.state = 'calling'
        )
        update campaign_contacts k set
          attempts = n.n,
          last_outcome = n.outcome,
          state = case
            when n.result = 'answered' then 'done'
            when n.n <= n.allowed and n.campaign_state = 'cancelled' then 'skipped'
            when n.n <= n.allowed then 'retrying'
            else 'failed' end,
          due_at = case
            when n.result <> 'answered' and n.n <= n.allowed and n.campaign_state <> 'cancelled'
              then ${iso(now)}::timestamptz + make_interval(mins => n.delay)
            else null end,
          reason = case
            when n.result = 'answered' then null
            when n.n <= n.allowed and n.campaign_state = 'cancelled' then 'campaign cancelled'
            when n.n <= n.allowed then null
            else ${FAILED_REASON_SQL} end,
          updated_at = ${iso(now)}::timestamptz
        from n where k.id = n.contact_id
        returning k.campaign_id`),
      );
      const campaignIds = [...new Set(rowsOf<{ campaign_id: string }>(result).map((row) => row.campaign_id))];
      // A call ended: room for another, and maybe a re-dial due. The campaign is looked at now.
      if (campaignIds.length > 0) await this.lookAgain(campaignIds, now);
      return campaignIds;
    },

    /** The campaigns are due now (or sooner than they were): the next tick looks at them. */
    async lookAgain(campaignIds: string[], now: Date): Promise<void> {
      await db.execute(sql`
        update campaigns set next_due_at = least(next_due_at, ${iso(now)}::timestamptz)
        where id = any(${sql.param(campaignIds)}::text[]) and state = 'running'`);
    },

    /**
     * Attempts still `placing` after the lease whose call the provider took (it has the provider's
     * id): `placed`. Those whose call ended without starting (refused, or abandoned by `abandoned`):
     * `not_started`, and the contact is due again now. Returns the campaigns touched.
     */
    async recover(leaseSeconds: number, now: Date): Promise<string[]> {
      await db.execute(sql`
        update campaign_attempts a set state = 'placed'
        from calls c
        where c.id = a.call_id and a.state = 'placing' and c.provider_call_id is not null
          and c.ended_reason is distinct from 'failed_to_start' and c.ended_reason is distinct from 'not_started'
          and a.created_at < now() - make_interval(secs => ${leaseSeconds})`);
      const result = await retryOnConflict(() =>
        db.execute(sql`
        with stale as (
          select a.id, a.contact_id
          from campaign_attempts a join calls c on c.id = a.call_id
          where a.state = 'placing' and c.status = 'ended'
            and (c.ended_reason in ('failed_to_start', 'not_started') or c.provider_call_id is null)
            and a.created_at < now() - make_interval(secs => ${leaseSeconds})
          for update of a skip locked
        ), marked as (
          update campaign_attempts a set state = 'not_started', ended_at = now()
          from stale s where a.id = s.id
          returning a.id
        )
        update campaign_contacts k set
          state = case when k.attempts > 0 then 'retrying' else 'pending' end,
          due_at = ${iso(now)}::timestamptz, updated_at = ${iso(now)}::timestamptz
        from stale s where k.id = s.contact_id and k.state = 'calling'
        returning k.campaign_id`),
      );
      const campaignIds = [...new Set(rowsOf<{ campaign_id: string }>(result).map((row) => row.campaign_id))];
      if (campaignIds.length > 0) await this.lookAgain(campaignIds, now);
      return campaignIds;
    },

    /** Calls of attempts still `placing` after the lease that never started (queued, no provider id). */
    async abandonedCalls(leaseSeconds: number, limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        select c.id from campaign_attempts a join calls c on c.id = a.call_id
        where a.state = 'placing' and c.status = 'queued' and c.provider_call_id is null
          and a.created_at < now() - make_interval(secs => ${leaseSeconds})
        order by a.created_at limit ${limit}`);
      return rowsOf<{ id: string }>(result).map((row) => row.id);
    },

    /** Running campaigns with contacts due by `now`, soonest first. */
    async dueCampaigns(now: Date, limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        select id from campaigns
        where state = 'running' and deleted_at is null and next_due_at <= ${iso(now)}::timestamptz
          and (start_at is null or start_at <= ${iso(now)}::timestamptz)
        order by next_due_at limit ${limit}`);
      return rowsOf<{ id: string }>(result).map((row) => row.id);
    },

    /**
     * Runs `work` in a transaction holding the campaign's row (FOR UPDATE SKIP LOCKED: a campaign
     * another worker is scheduling is skipped), when it is still running and due; else undefined.
     */
    async withCampaign<T>(
      id: string,
      now: Date,
      work: (tx: Db, campaign: LockedCampaign) => Promise<T>,
    ): Promise<T | undefined> {
      return db.transaction(async (tx) => {
        const result = await tx.execute(sql`
          select id, organization_id, agent_id, timezone, "window", concurrency, calls_per_minute, pace_at
          from campaigns
          where id = ${id} and state = 'running' and deleted_at is null and next_due_at <= ${iso(now)}::timestamptz
          for update skip locked`);
        const row = rowsOf<Record<string, unknown>>(result)[0];
        if (!row) return undefined;
        return work(tx as unknown as Db, {
          id: String(row.id),
          organizationId: String(row.organization_id),
          agentId: String(row.agent_id),
          timezone: String(row.timezone),
          window: row.window as CallingWindow,
          concurrency: Number(row.concurrency),
          callsPerMinute: Number(row.calls_per_minute),
          paceAt: toDate(row.pace_at),
        });
      });
    },

    /** The campaign's agent, unless it was deleted. */
    async agentOf(tx: Db, agentId: string): Promise<AgentRow | undefined> {
      const rows = await tx
        .select()
        .from(agents)
        .where(and(eq(agents.id, agentId), isNull(agents.deletedAt)))
        .limit(1);
      return rows[0];
    },

    /** Contacts of the campaign whose call is in progress. */
    async countCalling(tx: Db, campaignId: string): Promise<number> {
      const result = await tx.execute(sql`
        select count(*)::int as n from campaign_contacts where campaign_id = ${campaignId} and state = 'calling'`);
      return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
    },

    /** Claims up to `limit` due contacts, oldest due first, skipping those another transaction holds. */
    async claim(tx: Db, campaignId: string, now: Date, limit: number): Promise<ClaimedContact[]> {
      const result = await tx.execute(sql`
        select k.id, k.phone, k.variables, k.timezone, k.attempts,
          (select coalesce(max(x.number), 0) from campaign_attempts x where x.contact_id = k.id)::int as last_number,
          ${numberIsListed(sql`k.organization_id`, sql`k.phone`)} as suppressed
        from campaign_contacts k
        where k.campaign_id = ${campaignId} and k.state in ('pending', 'retrying') and k.due_at <= ${iso(now)}::timestamptz
        order by k.due_at, k.id
        limit ${limit}
        for update of k skip locked`);
      return rowsOf<Record<string, unknown>>(result).map((row) => ({
        id: String(row.id),
        phone: String(row.phone),
        variables: (row.variables ?? {}) as Record<string, string>,
        timezone: row.timezone === null ? null : String(row.timezone),
        attempts: Number(row.attempts),
        lastNumber: Number(row.last_number),
        suppressed: row.suppressed === true || row.suppressed === 't',
      }));
    },

    /** Contacts not called now: due later, or final with their reason. */
    async changeContacts(tx: Db, changes: ContactChange[], now: Date): Promise<void> {
      const due = changes.filter((c) => c.kind === 'due');
      const final = changes.filter((c) => c.kind === 'final');
      if (due.length > 0) {
        await tx.execute(sql`
          update campaign_contacts k set due_at = v.due_at, updated_at = ${iso(now)}::timestamptz
          from unnest(${sql.param(due.map((c) => c.id))}::text[], ${sql.param(due.map((c) => iso(c.dueAt)))}::timestamptz[])
            as v(id, due_at)
          where k.id = v.id and k.state in ('pending', 'retrying')`);
      }
      if (final.length > 0) {
        await tx.execute(sql`
          update campaign_contacts k set state = v.state, reason = v.reason, due_at = null, updated_at = ${iso(now)}::timestamptz
          from unnest(${sql.param(final.map((c) => c.id))}::text[], ${sql.param(final.map((c) => c.state))}::text[],
                      ${sql.param(final.map((c) => c.reason))}::text[]) as v(id, state, reason)
          where k.id = v.id and k.state in ('pending', 'retrying')`);
      }
    },

    /**
     * The attempts recorded with their calls (in `acceptCalls`'s statements, the scheduler's
     * transaction): `placing`, each numbered after its contact's last, and the contacts `calling`, in
     * one statement each. Returns the attempts' ids, in order.
     */
    async recordAttempts(
      tx: Db,
      campaignId: string,
      attempts: { contactId: string; number: number; callId: string }[],
      now: Date,
    ): Promise<string[]> {
      if (attempts.length === 0) return [];
      const ids = attempts.map(() => newId('att'));
      await tx.execute(sql`
        insert into campaign_attempts (id, campaign_id, contact_id, number, call_id, state)
        select v.id, ${campaignId}, v.contact_id, v.number, v.call_id, 'placing'
        from unnest(${sql.param(ids)}::text[], ${sql.param(attempts.map((a) => a.contactId))}::text[],
                    ${sql.param(attempts.map((a) => a.number))}::int[], ${sql.param(attempts.map((a) => a.callId))}::text[])
          as v(id, contact_id, number, call_id)`);
      await tx.execute(sql`
        update campaign_contacts set state = 'calling', due_at = null, updated_at = ${iso(now)}::timestamptz
        where id = any(${sql.param(attempts.map((a) => a.contactId))}::text[])`);
      return ids;
    },

    /**
     * After placing: the pace moved on, and the campaign due again at its earliest due contact (not
     * before the pace allows another call); null when no contact waits (a call's end looks again).
     */
    async afterPlacing(tx: Db, campaignId: string, paceAt: Date | null, now: Date, retryAt?: Date): Promise<void> {
      const pace = paceAt ? iso(paceAt) : null;
      const retry = retryAt ? iso(retryAt) : null;
      await tx.execute(sql`
        update campaigns set pace_at = ${pace}::timestamptz,
          next_due_at = coalesce(${retry}::timestamptz, greatest(
            (select min(due_at) from campaign_contacts where campaign_id = ${campaignId} and state in ('pending', 'retrying')),
            ${pace}::timestamptz)),
          updated_at = ${iso(now)}::timestamptz
        where id = ${campaignId}`);
    },

    /** The provider took these attempts' calls. */
    async markPlaced(placed: PlacedCall[]): Promise<void> {
      if (placed.length === 0) return;
      // The provider's id is written with the attempt's state, in one statement: a `placed` attempt's
      // call always has it, so settling and recovery agree on which calls started (decision 0049).
      await db.execute(sql`
        with p as (
          select * from unnest(
            ${sql.param(placed.map((call) => call.attemptId))}::text[],
            ${sql.param(placed.map((call) => call.callId))}::text[],
            ${sql.param(placed.map((call) => call.providerCallId))}::text[]
          ) as p(attempt_id, call_id, provider_call_id)
        ), ids as (
          update calls c set provider_call_id = p.provider_call_id
          from p where c.id = p.call_id and c.provider_call_id is null
          returning c.id
        )
        update campaign_attempts a set state = 'placed'
        from p where a.id = p.attempt_id and a.state = 'placing'`);
    },

    /**
     * The provider refused these attempts' calls (already ended as failed_to_start): the attempt is
     * `not_started`; its contact is due again in a minute, or failed with the provider's message
     * after `MAX_REFUSED_STARTS` refusals. Returns the campaigns touched.
     */
    async markRefused(refused: RefusedStart[], now: Date): Promise<string[]> {
      if (refused.length === 0) return [];
      const result = await retryOnConflict(() =>
        db.execute(sql`
        with v as (
          select * from unnest(${sql.param(refused.map((r) => r.attemptId))}::text[],
                               ${sql.param(refused.map((r) => r.message.slice(0, 500)))}::text[]) as v(id, message)
        ), marked as (
          update campaign_attempts a set state = 'not_started', ended_at = now()
          from v where a.id = v.id and a.state = 'placing'
          returning a.id, a.contact_id, v.message
        ), n as (
          select m.contact_id, m.message,
            (select count(*) from campaign_attempts x where x.contact_id = m.contact_id and x.state = 'not_started') + 1 as refusals
          from marked m
        )
        update campaign_contacts k set
          state = case when n.refusals >= ${MAX_REFUSED_STARTS} then 'failed'
                       when k.attempts > 0 then 'retrying' else 'pending' end,
          due_at = case when n.refusals >= ${MAX_REFUSED_STARTS} then null
                        else ${iso(now)}::timestamptz + interval '1 minute' end,
          reason = case when n.refusals >= ${MAX_REFUSED_STARTS}
                        then 'the provider refused the call: ' || n.message else k.reason end,
          updated_at = ${iso(now)}::timestamptz
        from n where k.id = n.contact_id and k.state = 'calling'
        returning k.campaign_id`),
      );
      const campaignIds = [...new Set(rowsOf<{ campaign_id: string }>(result).map((row) => row.campaign_id))];
      if (campaignIds.length > 0) await this.lookAgain(campaignIds, now);
      return campaignIds;
    },

    /** Running campaigns whose every contact is final: completed. Returns their ids. */
    async complete(now: Date): Promise<string[]> {
      const result = await db.execute(sql`
        update campaigns m set state = 'completed', ended_at = ${iso(now)}::timestamptz,
          updated_at = ${iso(now)}::timestamptz, next_due_at = null
        where m.state = 'running' and m.deleted_at is null
          and not exists (select 1 from campaign_contacts k
                          where k.campaign_id = m.id and k.state in ('pending', 'calling', 'retrying'))
        returning m.id`);
      return rowsOf<{ id: string }>(result).map((row) => row.id);
    },
  };
}

export type SchedulerRepository = ReturnType<typeof createSchedulerRepository>;
