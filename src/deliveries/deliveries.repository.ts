import { type SQL, sql } from 'drizzle-orm';
import { arrayParam, type Db, executePrepared, probeOnly, retryOnConflict, rowsOf } from '../db/client.js';
import type { TranscriptTurn } from '../db/schema/index.js';
import type { EndedCall } from '../integrations/outcome-payload.js';
import type { TriggerConditions } from '../integrations/trigger-conditions.js';
import { createBatcher } from '../lib/batcher.js';
import { SIMULATED_CALLER_ID } from '../providers/voice-provider.js';

/**
 * The statement part that queues a call's outcome for each enabled integration of its agent. It
 * runs inside the statement that ends the calls (`ended` names a CTE of the calls just ended, with
 * `id`, `agent_id`, `organization_id`), so the end of a call and its deliveries commit together.
 * That statement is prepared (`end_calls`, decision 0058): its lookup carries `probeOnly`.
 */
export function queueOutcomeDeliveries(ended: SQL): SQL {
  return sql`
    insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
    select switchboard_new_id('dlv'), e.organization_id, i.id, e.id, switchboard_new_id('msg'), 'pending', now()
    from ${ended} e join integrations i on i.agent_id = e.agent_id and ${probeOnly(sql`i.agent_id`)} and i.enabled
    returning call_id`;
}

export interface DeliveryRow {
  id: string;
  organizationId: string;
  integrationId: string;
  callId: string;
  webhookId: string;
  state: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: Date | null;
  attemptCount: number;
  payloadTruncated: boolean;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A delivery and its attempts, oldest first, as one statement read them. */
export interface DeliveryWithAttempts {
  row: DeliveryRow;
  attempts: AttemptRow[];
}

export interface AttemptRow {
  deliveryId: string;
  at: Date;
  status: number | null;
  latencyMs: number;
  error: string | null;
  errorCode: string | null;
  responseExcerpt: string | null;
}

/** The call a first attempt builds its payload from (later attempts send the stored payload). */
export type ClaimedCall = Omit<EndedCall, 'startedAt' | 'endedAt'> & {
  agentName: string;
  startedAt: Date | null;
  endedAt: Date | null;
};

/** A delivery a worker holds until `claim` is superseded or its lease lapses, with all it needs to send. */
export interface ClaimedDelivery {
  id: string;
  claim: number;
  callId: string;
  webhookId: string;
  retriesUsed: number;
  finalAttempt: boolean;
  payload: string | null;
  integration: {
    id: string;
    url: string;
    enabled: boolean;
    disabledReason: string | null;
    authorizationSealed: string | null;
    signing: boolean;
    signingSecretSealed: string;
    /** A rotated-out secret still within its overlap. */
    previousSecretSealed: string | null;
    triggerConditions: TriggerConditions | null;
  };
  /** Present while the delivery has no payload yet. */
  call: ClaimedCall | null;
}

/** What became of one claimed delivery. */
export type DeliveryCompletion = {
  id: string;
  claim: number;
  integrationId: string;
} & (
  | {
      /** An attempt was made. */
      kind: 'attempted';
      attempt: Omit<AttemptRow, 'deliveryId'>;
      /** The payload, stored with the first attempt. */
      payload?: { text: string; truncated: boolean };
      next: { state: 'delivered' | 'failed' } | { state: 'pending'; delaySeconds: number; retriesUsed: number };
      /** What the attempt says about the receiver: answered 2xx, failed, or answered 410 Gone. */
      health: 'ok' | 'failing' | 'gone';
    }
  | { kind: 'dropped' }
  | { kind: 'failed_unsent'; reason: string }
);

type Raw = Record<string, unknown>;

const date = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(String(value));

/**
 * The columns `toDeliveryRow` reads: never the payload, which holds the call's whole outcome (its
 * transcript included) and is read only by the worker that sends it. A page of 20 deliveries, or a
 * call's, would otherwise read 20 transcripts to show none of them.
 */
const DELIVERY_COLUMNS = sql.raw(
  'id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at, attempt_count, payload_truncated, failure_reason, created_at, updated_at',
);

function toDeliveryRow(r: Raw): DeliveryRow {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    integrationId: r.integration_id as string,
    callId: r.call_id as string,
    webhookId: r.webhook_id as string,
    state: r.state as DeliveryRow['state'],
    nextAttemptAt: date(r.next_attempt_at),
    attemptCount: Number(r.attempt_count),
    payloadTruncated: Boolean(r.payload_truncated),
    failureReason: (r.failure_reason as string | null) ?? null,
    createdAt: date(r.created_at) as Date,
    updatedAt: date(r.updated_at) as Date,
  };
}

const ATTEMPT_COLUMNS = sql.raw(
  'a.delivery_id, a.at, a.status, a.latency_ms, a.error, a.error_code, a.response_excerpt',
);

function toAttemptRow(r: Raw): AttemptRow {
  return {
    deliveryId: r.delivery_id as string,
    at: date(r.at) as Date,
    status: r.status === null ? null : Number(r.status),
    latencyMs: Number(r.latency_ms),
    error: (r.error as string | null) ?? null,
    errorCode: (r.error_code as string | null) ?? null,
    responseExcerpt: (r.response_excerpt as string | null) ?? null,
  };
}

/** What the delivery log can be narrowed to (GET /v1/deliveries). */
export interface DeliveryFilter {
  integrationId?: string;
  callId?: string;
  state?: string;
}

/** The organization's deliveries the filter keeps: one condition for the list and its count. */
const deliveryFilter = (organizationId: string, filter: DeliveryFilter) => sql`organization_id = ${organizationId}
  ${filter.integrationId ? sql`and integration_id = ${filter.integrationId}` : sql``}
  ${filter.callId ? sql`and call_id = ${filter.callId}` : sql``}
  ${filter.state ? sql`and state = ${filter.state}` : sql``}`;

function toClaimed(r: Raw): ClaimedDelivery {
  return {
    id: r.id as string,
    claim: Number(r.claim),
    callId: r.call_id as string,
    webhookId: r.webhook_id as string,
    retriesUsed: Number(r.retries_used),
    finalAttempt: Boolean(r.final_attempt),
    payload: (r.payload as string | null) ?? null,
    integration: {
      id: r.integration_id as string,
      url: r.url as string,
      enabled: Boolean(r.enabled),
      disabledReason: (r.disabled_reason as string | null) ?? null,
      authorizationSealed: (r.authorization_sealed as string | null) ?? null,
      signing: Boolean(r.signing),
      signingSecretSealed: r.signing_secret_sealed as string,
      previousSecretSealed: (r.previous_secret_sealed as string | null) ?? null,
      triggerConditions: (r.trigger_conditions as TriggerConditions | null) ?? null,
    },
    call:
      r.call_agent_id === null || r.call_agent_id === undefined
        ? null
        : {
            id: r.call_id as string,
            agentId: r.call_agent_id as string,
            agentName: (r.agent_name as string | null) ?? '',
            // As the calls API shows it: simulator calls recorded before decision 0032 have no number.
            from: (r.from_number as string | null) ?? SIMULATED_CALLER_ID,
            to: r.to_number as string,
            outcome: (r.outcome as string | null) ?? null,
            endedReason: (r.ended_reason as string | null) ?? null,
            transcript: r.transcript as TranscriptTurn[],
            collectedData: r.collected_data as Record<string, unknown>,
            variables: r.variables as Record<string, string>,
            startedAt: date(r.started_at),
            endedAt: date(r.ended_at),
            durationSeconds: r.duration_seconds === null ? null : Number(r.duration_seconds),
            direction: (r.direction as string | null) ?? 'outbound',
            summary: (r.summary as string | null) ?? null,
            recordingUrl: (r.recording_url as string | null) ?? null,
            warnings: (r.warnings as string[] | null) ?? [],
            campaignId: (r.campaign_id as string | null) ?? null,
            contactId: (r.contact_id as string | null) ?? null,
          },
  };
}

export interface ClaimOptions {
  /** Deliveries to claim at most. */
  limit: number;
  /** Deliveries of one integration this worker may hold at once. */
  perIntegration: number;
  /** Integrations this worker already holds deliveries of, with how many more it may take. */
  room: Map<string, number>;
  /** How long a claim lasts before another worker may take the delivery. */
  leaseSeconds: number;
  /**
   * How far ahead to look for the next pending delivery (`nextDueInMs`): the worker sleeps no longer
   * than this anyway, and the look stays within as many index entries.
   */
  lookAheadMs: number;
}

export interface DeliveriesRepositoryOptions {
  /** How long an integration may fail every delivery before it is disabled; default five days. */
  disableAfterSeconds?: number;
}

export interface ClaimResult {
  deliveries: ClaimedDelivery[];
  /**
   * Due deliveries the claim looked at of integrations with room (in the head of the queue, up to
   * four times its limit; behind a blocked head, up to 17 of each): more than it claimed means work
   * is waiting for this worker's per-integration room, which a finishing attempt frees.
   */
  dueCount: number;
  /**
   * How long until the soonest pending delivery that was not due falls due (a retry, or a claim whose
   * lease lapses), by the database's clock; null when there is none within `lookAheadMs`. The worker
   * sleeps until then.
   */
  nextDueInMs: number | null;
}

/**
 * What a claim reads at most of one integration's due deliveries behind a blocked head: the worker's
 * room for one integration (16 by default) and one more, which says that work waits for room. A
 * worker allowed more than 16 per integration takes at most 16 at a claim there, and claims again.
 */
const READ_BEHIND_PER_INTEGRATION = 17;

export function createDeliveriesRepository(
  db: Db,
  { disableAfterSeconds = 5 * 24 * 3600 }: DeliveriesRepositoryOptions = {},
) {
  // Completions arrive one by one as receivers answer: gathered for a few ms, one statement records
  // a batch of attempts, moves their deliveries on and updates their integrations' health.
  const completions = createBatcher(
    async (items: DeliveryCompletion[]) => {
      // The payloads go as they are, in an array of their own, each record naming its payload's place
      // (from 1, as PostgreSQL counts): inside the records' JSON each was escaped here and parsed again
      // by PostgreSQL (decision 0108).
      const payloads: string[] = [];
      const records = items.map((c) => ({
        id: c.id,
        claim: c.claim,
        kind: c.kind,
        state: c.kind === 'attempted' ? c.next.state : c.kind === 'failed_unsent' ? 'failed' : null,
        delay_seconds: c.kind === 'attempted' && c.next.state === 'pending' ? c.next.delaySeconds : null,
        retries_used: c.kind === 'attempted' && c.next.state === 'pending' ? c.next.retriesUsed : null,
        payload_index: c.kind === 'attempted' && c.payload ? payloads.push(c.payload.text) : null,
        payload_truncated: c.kind === 'attempted' ? (c.payload?.truncated ?? null) : null,
        failure_reason: c.kind === 'failed_unsent' ? c.reason : null,
        at: c.kind === 'attempted' ? c.attempt.at.toISOString() : null,
        status: c.kind === 'attempted' ? c.attempt.status : null,
        latency_ms: c.kind === 'attempted' ? Math.round(c.attempt.latencyMs) : null,
        error: c.kind === 'attempted' ? c.attempt.error : null,
        error_code: c.kind === 'attempted' ? c.attempt.errorCode : null,
        response_excerpt: c.kind === 'attempted' ? c.attempt.responseExcerpt : null,
      }));
      // One verdict per integration: a 410 anywhere in the batch wins, then any success, then failure.
      const health = new Map<string, 'ok' | 'failing' | 'gone'>();
      for (const c of items) {
        if (c.kind !== 'attempted') continue;
        const seen = health.get(c.integrationId);
        if (seen === 'gone' || (seen === 'ok' && c.health === 'failing')) continue;
        health.set(c.integrationId, c.health);
      }
      // Prepared (decision 0058's third correction): at a few deliveries a second each batch holds one
      // or two, and parsing and planning this statement cost PostgreSQL more than running it.
      await retryOnConflict(() =>
        executePrepared(
          db,
          'complete_deliveries',
          sql`
        with v as (
          select * from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as v(id text, claim int, kind text,
            state text, delay_seconds double precision, retries_used int, payload_index int, payload_truncated boolean,
            failure_reason text, at timestamptz, status int, latency_ms int, error text, error_code text,
            response_excerpt text)
          order by id
          -- Every record (the limit leaves none out), read as a count no plan knows: planned for 100
          -- rows, the records would be joined to a table of a page or two by reading all of it.
          limit (select ${records.length}::int)
        ),
        moved as (
          update deliveries d set
            state = v.state,
            next_attempt_at = case when v.state = 'pending' then now() + make_interval(secs => v.delay_seconds) end,
            attempt_count = d.attempt_count + (v.kind = 'attempted')::int,
            retries_used = coalesce(v.retries_used, d.retries_used),
            final_attempt = false,
            payload = coalesce(d.payload, (${arrayParam(payloads, 'text')})[v.payload_index]),
            payload_truncated = coalesce(v.payload_truncated, d.payload_truncated),
            failure_reason = v.failure_reason,
            updated_at = now()
          from v
          where d.id = v.id and ${probeOnly(sql`d.id`)} and d.claim = v.claim and v.kind <> 'dropped'
          returning d.id
        ),
        dropped as (
          delete from deliveries d using v
          where d.id = v.id and ${probeOnly(sql`d.id`)} and d.claim = v.claim and v.kind = 'dropped'
        ),
        logged as (
          insert into delivery_attempts (delivery_id, at, status, latency_ms, error, error_code, response_excerpt)
          select v.id, v.at, v.status, v.latency_ms, v.error, v.error_code, v.response_excerpt
          from v join moved on moved.id = v.id
          where v.kind = 'attempted'
        ),
        health as (
          select * from unnest(${arrayParam([...health.keys()], 'text')}, ${arrayParam([...health.values()], 'text')})
            as h(integration_id, verdict)
        )
        update integrations i set
          failing_since = case when h.verdict = 'ok' then null else coalesce(i.failing_since, now()) end,
          enabled = case
            when h.verdict = 'gone' then false
            when h.verdict = 'failing' and i.failing_since <= now() - make_interval(secs => ${disableAfterSeconds})
              then false
            else i.enabled end,
          disabled_reason = case
            when h.verdict = 'gone' then 'The endpoint answered 410 Gone on ' || to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            when h.verdict = 'failing' and i.failing_since <= now() - make_interval(secs => ${disableAfterSeconds})
              then 'Every delivery failed since ' || to_char(i.failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            else i.disabled_reason end,
          updated_at = case when h.verdict = 'ok' then i.updated_at else now() end
        from health h
        where i.id = h.integration_id and ${probeOnly(sql`i.id`)} and (
          (h.verdict = 'ok' and i.failing_since is not null)
          or (h.verdict = 'gone' and i.enabled)
          or (h.verdict = 'failing' and (i.failing_since is null
              or (i.enabled and i.failing_since <= now() - make_interval(secs => ${disableAfterSeconds})))))`,
        ),
      );
      return items.map(() => undefined);
    },
    { delayMs: 2, maxBatch: 500 },
  );
  return {
    /**
     * Claims due deliveries, oldest due first, at most `perIntegration` held per integration: one
     * integration's backlog cannot take every slot. Rows other workers are claiming are skipped.
     */
    async claim({ limit, perIntegration, room, leaseSeconds, lookAheadMs }: ClaimOptions): Promise<ClaimResult> {
      const roomIds = arrayParam([...room.keys()], 'text');
      const roomLeft = arrayParam([...room.values()], 'int');
      const headSize = limit * 4;
      // Prepared (decision 0058's third correction): each worker claims after every call that ends, and
      // planning this statement cost PostgreSQL about as much as running it. Its kept plan must stay
      // what decisions 0053 and 0114 shaped, made while the table may hold a page of rows: the due rows
      // read by the partial due indexes in their order (the guard makes a scan of every row dearer than
      // reading the first few in order), each candidate and each joined row by its key.
      const result = await executePrepared(
        db,
        'claim_deliveries',
        sql`
        with recursive room as materialized (
          select integration_id, room from unnest(${roomIds}, ${roomLeft}) as r(integration_id, room)
        ),
        -- The head of the queue: the first due rows in their order, whichever integration they are for.
        -- Its read is bounded: the rows of integrations with no room left are dropped after it.
        head as materialized (
          select id, integration_id, next_attempt_at from deliveries
          where state = 'pending' and next_attempt_at <= now() and ${probeOnly(sql`id`)}
          order by next_attempt_at
          limit ${headSize}
        ),
        head_open as (
          select head.id, head.next_attempt_at, coalesce(r.room, ${perIntegration}) as room,
            row_number() over (partition by head.integration_id order by head.next_attempt_at, head.id) as rank
          from head left join room r on r.integration_id = head.integration_id
          where coalesce(r.room, ${perIntegration}) > 0
        ),
        -- Read to its bound yet short of the claim: the head is one or a few integrations' backlog held
        -- back by their room (a slow receiver), and the deliveries of others wait behind it. Then, and
        -- only then, each integration with pending deliveries is found by its own index, one step each,
        -- and its oldest due deliveries read up to its room (decision 0114): a claim then costs the
        -- number of such integrations, not the length of the backlog. \`integration_id > ''\` is that
        -- index's predicate, which only these reads say.
        blocked as materialized (
          select (select count(*) from head) = ${headSize}
            and (select count(*) from head_open where rank <= room) < ${limit} as yes
        ),
        pending_integrations(integration_id) as (
          select (
            select d.integration_id from deliveries d
            where d.state = 'pending' and d.integration_id > '' and ${probeOnly(sql`d.id`)}
            order by d.integration_id limit 1
          )
          where (select yes from blocked)
          union all
          select (
            select d.integration_id from deliveries d
            where d.state = 'pending' and d.integration_id > p.integration_id and d.integration_id > ''
              and ${probeOnly(sql`d.id`)}
            order by d.integration_id limit 1
          )
          from pending_integrations p where p.integration_id is not null
        ),
        behind as (
          select l.id, l.next_attempt_at, l.rank,
            least(coalesce(r.room, ${perIntegration}), ${sql.raw(String(READ_BEHIND_PER_INTEGRATION - 1))}) as room
          from pending_integrations p
          left join room r on r.integration_id = p.integration_id
          cross join lateral (
            select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at) as rank
            from deliveries d
            where d.state = 'pending' and d.integration_id = p.integration_id and d.integration_id > ''
              and d.next_attempt_at <= now() and ${probeOnly(sql`d.id`)}
            -- The integration first: an order only its own index gives. By the due index's order alone,
            -- the planner, counting few integrations, read past the blocking backlog to find these.
            order by d.integration_id, d.next_attempt_at
            -- A constant: a limit the planner cannot know it estimates as a tenth of the rows, and the
            -- plan's cost then called for JIT compilation at every run (60 ms).
            limit ${sql.raw(String(READ_BEHIND_PER_INTEGRATION))}
          ) l
          where p.integration_id is not null and coalesce(r.room, ${perIntegration}) > 0
        ),
        due as (
          select id, next_attempt_at, room, rank from head_open where not (select yes from blocked)
          union all
          select id, next_attempt_at, room, rank from behind
        ),
        -- The candidates in order, each then read by its id and locked, until \`limit\` are taken. The
        -- lookup is written so that only the primary key can serve it: newly due rows are always past
        -- the statistics' last histogram bound, so the planner, estimating no pending row at all, read
        -- the whole due index once per candidate (345 ms a claim with 7,000 due, the drain at 9/s).
        picked as (
          select l.id from (
            select due.id, due.next_attempt_at from due where due.rank <= due.room
            order by due.next_attempt_at
          ) c
          cross join lateral (
            -- Checked again on the row locked: another worker may have claimed it since the scan.
            -- coalesce(): a condition the partial due index (state = 'pending') cannot serve.
            select d.id from deliveries d
            where d.id = c.id and ${probeOnly(sql`d.id`)} and coalesce(d.state, '') = 'pending' and d.next_attempt_at <= now()
            for update skip locked
          ) l
          limit ${limit}
        ),
        claimed as (
          update deliveries d set next_attempt_at = now() + make_interval(secs => ${leaseSeconds}), claim = d.claim + 1
          from picked where d.id = picked.id and ${probeOnly(sql`d.id`)}
          returning d.id, d.claim, d.call_id, d.integration_id, d.webhook_id, d.retries_used, d.final_attempt, d.payload
        )
        select due_count.n as due_count, (
          -- Bounded: the entries just past now() are mostly claims made a lease ago and since settled,
          -- dead until a vacuum; a look to the end would step over a lease's worth of them.
          select extract(epoch from min(p.next_attempt_at) - now())::float8 * 1000 from deliveries p
          where p.state = 'pending' and ${probeOnly(sql`p.id`)}
            and p.next_attempt_at > now() and p.next_attempt_at <= now() + make_interval(secs => ${lookAheadMs / 1000})
        ) as next_due_ms, sent.*
        from (select count(*)::int as n from due) due_count
        left join (
          select claimed.*, i.url, i.enabled, i.disabled_reason, i.authorization_sealed, i.signing, i.signing_secret_sealed,
            case when i.previous_secret_expires_at > now() then i.previous_secret_sealed end as previous_secret_sealed,
            i.trigger_conditions,
            c.agent_id as call_agent_id, a.name as agent_name, c.from_number, c.to_number, c.outcome, c.ended_reason,
            c.transcript, c.collected_data, c.variables, c.started_at, c.ended_at, c.duration_seconds,
            c.direction, c.summary, c.recording_url, c.warnings, c.campaign_id, c.contact_id
          from claimed
          join integrations i on i.id = claimed.integration_id and ${probeOnly(sql`i.id`)}
          left join calls c on claimed.payload is null and c.id = claimed.call_id and ${probeOnly(sql`c.id`)}
          left join agents a on a.id = c.agent_id and ${probeOnly(sql`a.id`)}
        ) sent on true`,
      );
      const rows = rowsOf<Raw>(result);
      return {
        deliveries: rows.filter((row) => row.id !== null).map(toClaimed),
        dueCount: Number(rows[0]?.due_count ?? 0),
        nextDueInMs: rows[0]?.next_due_ms == null ? null : Math.ceil(Number(rows[0].next_due_ms)),
      };
    },

    /**
     * The queue at a glance, for the metrics: pending deliveries (due now, and all), and how long
     * the oldest due one has waited. One statement over the partial due index (state = 'pending').
     */
    async queueStats(): Promise<{ due: number; pending: number; oldestDueAgeSeconds: number }> {
      const result = await db.execute(sql`
        select count(*) filter (where next_attempt_at <= now()) as due,
          count(*) as pending,
          coalesce(extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now())), 0)
            as oldest_due_age
        from deliveries where state = 'pending'`);
      const row = rowsOf<Raw>(result)[0];
      return {
        due: Number(row?.due ?? 0),
        pending: Number(row?.pending ?? 0),
        oldestDueAgeSeconds: Number(row?.oldest_due_age ?? 0),
      };
    },

    /** Records what became of a claimed delivery; a completion whose claim was superseded changes nothing. */
    complete: (completion: DeliveryCompletion): Promise<void> => completions.add(completion),

    /** Gives deliveries back unattempted (a worker shutting down): due at once for any worker. */
    async release(held: { id: string; claim: number }[]): Promise<void> {
      if (held.length === 0) return;
      await db.execute(sql`
        update deliveries d set next_attempt_at = now(), claim = d.claim + 1
        from unnest(${sql.param(held.map((h) => h.id))}::text[], ${sql.param(held.map((h) => h.claim))}::int[])
          as v(id, claim)
        where d.id = v.id and d.claim = v.claim and d.state = 'pending'`);
    },

    async find(organizationId: string, id: string): Promise<DeliveryRow | undefined> {
      const result = await db.execute(
        sql`select ${DELIVERY_COLUMNS} from deliveries where organization_id = ${organizationId} and id = ${id}`,
      );
      const row = rowsOf<Raw>(result)[0];
      return row ? toDeliveryRow(row) : undefined;
    },

    /** Newest first; `beforeId` is the last id of the previous page. */
    async list(
      organizationId: string,
      filter: DeliveryFilter & { beforeId?: string; limit: number },
    ): Promise<DeliveryRow[]> {
      const result = await db.execute(sql`
        select ${DELIVERY_COLUMNS} from deliveries
        where ${deliveryFilter(organizationId, filter)}
          ${filter.beforeId ? sql`and id < ${filter.beforeId}` : sql``}
        order by id desc
        limit ${filter.limit}`);
      return rowsOf<Raw>(result).map(toDeliveryRow);
    },

    /**
     * How many deliveries `list` shows for the filter, across every page, counting no further than
     * `atMost`: an organization of 100,000 calls has 100,000 deliveries or more, which an exact count
     * reads on every page (half a second on the ten-million-call database; decision 0053).
     */
    async count(organizationId: string, filter: DeliveryFilter, atMost: number): Promise<number> {
      const result = await db.execute(
        sql`select count(*)::int as n from (select 1 from deliveries where ${deliveryFilter(organizationId, filter)} limit ${atMost}) matching`,
      );
      return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
    },

    /**
     * The deliveries of these calls of the organization, oldest first, each with its attempts oldest
     * first, read by one statement: a delivery's state and its attempt log are written together, and
     * read apart they could disagree (a delivery `delivered` without the attempt that delivered it).
     */
    async ofCalls(organizationId: string, callIds: string[]): Promise<DeliveryWithAttempts[]> {
      if (callIds.length === 0) return [];
      const result = await db.execute(sql`
        select ${DELIVERY_COLUMNS}, (
          select coalesce(jsonb_agg(to_jsonb(a) order by a.id), '[]'::jsonb)
          from delivery_attempts a where a.delivery_id = d.id) as attempts
        from deliveries d
        where organization_id = ${organizationId} and call_id = any(${sql.param(callIds)}::text[]) order by id`);
      return rowsOf<Raw>(result).map((raw) => ({
        row: toDeliveryRow(raw),
        // Each attempt's row as JSON, keyed by its column names as toAttemptRow reads them.
        attempts: (raw.attempts as Raw[]).map(toAttemptRow),
      }));
    },

    /** Every attempt of these deliveries, oldest first. */
    async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
      if (deliveryIds.length === 0) return [];
      const result = await db.execute(sql`
        select ${ATTEMPT_COLUMNS} from delivery_attempts a
        where a.delivery_id = any(${sql.param(deliveryIds)}::text[]) order by a.id`);
      return rowsOf<Raw>(result).map(toAttemptRow);
    },

    /**
     * Makes a delivery due now. A pending one keeps its schedule; a delivered or failed one gets one
     * more attempt whose result is final. Any claim held on it is superseded.
     */
    async retryNow(organizationId: string, id: string): Promise<DeliveryRow | undefined> {
      const result = await db.execute(sql`
        update deliveries d set
          final_attempt = d.state <> 'pending',
          state = 'pending', next_attempt_at = now(), claim = d.claim + 1, failure_reason = null, updated_at = now()
        where organization_id = ${organizationId} and id = ${id}
        returning ${DELIVERY_COLUMNS}`);
      const row = rowsOf<Raw>(result)[0];
      return row ? toDeliveryRow(row) : undefined;
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>;
