import type { AgentRow } from '../agents/agents.repository.js';
import type { CallsService } from '../calls/calls.service.js';
import type { CampaignCallAcceptance, ClickToCallService } from '../click-to-call/click-to-call.service.js';
import type { ChangeFeed } from '../db/change-feed.js';
import type { Db } from '../db/client.js';
import { isOpen, nextOpening } from './calling-window.js';
import type {
  ClaimedContact,
  ContactChange,
  LockedCampaign,
  PlacedCall,
  SchedulerRepository,
} from './scheduler.repository.js';

export const CAMPAIGNS_DUE_TOPIC = 'campaigns_due';

export interface CampaignSchedulerDeps {
  repository: SchedulerRepository;
  clickToCall: Pick<ClickToCallService, 'acceptCampaignCalls' | 'startCampaignCall'>;
  calls: Pick<CallsService, 'failStart'>;
  /** The scheduler's clock: windows, pacing and due times (tests give a fake one). */
  now?: () => Date;
  intervalMs: number;
  leaseSeconds: number;
  /** Provider requests in flight at once, per tick. */
  maxStartsInFlight?: number;
  /** Other processes' wake-ups (a campaign started, resumed, contacts added). */
  changes?: ChangeFeed;
  onError: (error: unknown) => void;
  /** Draws the pauses' jitter (decision 0119); Math.random by default, a constant makes the pauses exact. */
  random?: () => number;
  /** Said once per campaign and cause while its agent cannot place calls. */
  onIdle?: (campaignId: string, cause: string) => void;
  /** A campaign's call was handed to the provider (`ok`) or refused by it. */
  onPlaced?: (ok: boolean) => void;
}

/** Settled attempts, due campaigns, abandoned calls: how many one statement takes at a time. */
const BATCH = 500;
/** A number with an open call (a click to call, say) is tried again this much later. */
const BUSY_RETRY_MS = 60_000;
/** An agent that cannot place calls is looked at again this much later. */
const IDLE_RETRY_MS = 30_000;
/**
 * The pause after a pass that found no campaign running and no attempt open (decision 0087): only a
 * start or a resume brings work then, and both wake every scheduler at once; this is the safety net.
 */
const IDLE_PAUSE_MS = 5_000;
/** Claims of one campaign per tick: contacts outside their window take a claim's places. */
const MAX_CLAIM_ROUNDS = 5;
/** How far a pause strays from its length either way, as a share of it (decision 0119). */
export const PAUSE_JITTER = 0.2;

/**
 * The pause before the next pass (decision 0119). Busy: the interval from the start of the pass just
 * ended, not from its end (the pace lets a second's calls through at most, so a pass every interval
 * plus its own duration would place fewer than callsPerMinute allows: a 100 ms pass cost 9% of a
 * 6000-a-minute campaign's calls). Idle: the longer idle pause. Either way spread by PAUSE_JITTER, the
 * same on average, so that schedulers woken together (a campaign started) do not keep passing in step,
 * one always a moment ahead of the other and taking every contest for a campaign's row.
 */
export function nextPause(busy: boolean, elapsedMs: number, intervalMs: number, random: () => number): number {
  const pause = busy ? Math.max(intervalMs / 10, intervalMs - elapsedMs) : Math.max(IDLE_PAUSE_MS, intervalMs);
  return pause * (1 - PAUSE_JITTER + 2 * PAUSE_JITTER * random());
}

type Accepted = Extract<CampaignCallAcceptance, { ok: true }> & { attemptId: string };

/**
 * The campaign scheduler (decision 0049), in the worker role: every tick it settles attempts whose
 * call ended, recovers attempts whose process died while placing them, places due contacts' calls
 * campaign by campaign (each in a transaction holding the campaign's row, so workers share campaigns
 * and never schedule one twice at once), and completes campaigns whose contacts are all final.
 */
export function createCampaignScheduler(deps: CampaignSchedulerDeps) {
  const { repository, clickToCall, calls } = deps;
  const now = deps.now ?? (() => new Date());
  const maxStarts = deps.maxStartsInFlight ?? 32;
  const random = deps.random ?? Math.random;
  const idleSaid = new Set<string>();

  /** Places the campaign's due calls: records them in its transaction; returns those to start. */
  async function placeCampaign(campaignId: string, at: Date): Promise<Accepted[]> {
    const accepted: Accepted[] = [];
    await repository.withCampaign(campaignId, at, async (tx, campaign) => {
      const agent = await repository.agentOf(tx, campaign.agentId);
      const cause = !agent ? 'its agent was deleted' : !agent.enabled ? 'its agent is disabled' : undefined;
      if (!agent || cause) {
        idle(campaign.id, cause ?? 'its agent cannot place calls');
        await repository.afterPlacing(tx, campaign.id, campaign.paceAt, at, new Date(at.getTime() + IDLE_RETRY_MS));
        return;
      }
      const calling = await repository.countCalling(tx, campaign.id);
      const intervalMs = 60_000 / campaign.callsPerMinute;
      // At most one second's worth of calls at once (at least one), then one per interval.
      const floor = at.getTime() - Math.max(0, 1000 - intervalMs);
      let pace = Math.max(campaign.paceAt?.getTime() ?? Number.NEGATIVE_INFINITY, floor);
      let room = campaign.concurrency - calling;
      let retryAt: Date | undefined;
      for (let round = 0; round < MAX_CLAIM_ROUNDS && room > 0 && pace <= at.getTime(); round++) {
        const paced = Math.floor((at.getTime() - pace) / intervalMs) + 1;
        const contacts = await repository.claim(tx, campaign.id, at, Math.min(room, paced));
        if (contacts.length === 0) break;
        const changes: ContactChange[] = [];
        let stop = false;
        // Contacts outside their window or on the do-not-call list are not called; the rest are
        // recorded together, in a few statements (the agent locked and counted once).
        const callable: ClaimedContact[] = [];
        for (const contact of contacts) {
          const change = notNow(campaign, contact, at);
          if (change) changes.push(change);
          else callable.push(contact);
        }
        if (callable.length > 0) {
          const verdicts = await placeContacts(tx, campaign, agent, callable, at);
          for (const verdict of verdicts) {
            switch (verdict.kind) {
              case 'placed':
                accepted.push(verdict.accepted);
                room--;
                pace += intervalMs;
                break;
              case 'change':
                changes.push(verdict.change);
                break;
              case 'stop':
                // The agent is at maxConcurrentCalls (click to call shares it) or cannot place calls:
                // the contact stays due, and the campaign is looked at again next tick.
                if (!stop && verdict.cause) idle(campaign.id, verdict.cause);
                if (!stop) retryAt = new Date(at.getTime() + (verdict.cause ? IDLE_RETRY_MS : 0));
                stop = true;
                break;
            }
          }
        }
        if (room <= 0 || pace > at.getTime()) stop = true;
        await repository.changeContacts(tx, changes, at);
        if (stop || contacts.length < Math.min(room, paced)) break;
      }
      if (accepted.length > 0) idleSaid.delete(campaign.id);
      await repository.afterPlacing(
        tx,
        campaign.id,
        Number.isFinite(pace) && pace > floor ? new Date(pace) : campaign.paceAt,
        at,
        retryAt,
      );
    });
    return accepted;
  }

  function idle(campaignId: string, cause: string): void {
    const key = `${campaignId} ${cause}`;
    if (idleSaid.has(key)) return;
    idleSaid.add(key);
    deps.onIdle?.(campaignId, cause);
  }

  type Verdict =
    | { kind: 'placed'; accepted: Accepted }
    | { kind: 'change'; change: ContactChange }
    | { kind: 'stop'; cause?: string };

  /** Why a claimed contact is not called now (outside its window, on the do-not-call list), if so. */
  function notNow(campaign: LockedCampaign, contact: ClaimedContact, at: Date): ContactChange | undefined {
    const zone = contact.timezone ?? campaign.timezone;
    if (!isOpen(campaign.window, zone, at)) {
      return { id: contact.id, kind: 'due', dueAt: nextOpening(campaign.window, zone, at) };
    }
    if (contact.suppressed)
      return { id: contact.id, kind: 'final', state: 'skipped', reason: 'on the do-not-call list' };
    return undefined;
  }

  /** Records the contacts' calls and attempts together; a verdict per contact, in order. */
  async function placeContacts(
    tx: Db,
    campaign: LockedCampaign,
    agent: AgentRow,
    contacts: ClaimedContact[],
    at: Date,
  ): Promise<Verdict[]> {
    const attemptIds = new Map<number, string>();
    const results = await clickToCall.acceptCampaignCalls({
      row: agent,
      campaignId: campaign.id,
      contacts: contacts.map((c) => ({ contactId: c.id, phone: c.phone, variables: c.variables })),
      within: tx,
      alongside: async (inner, recorded) => {
        const ids = await repository.recordAttempts(
          inner,
          campaign.id,
          recorded.map(({ index, callId }) => {
            const contact = contacts[index] as ClaimedContact;
            return { contactId: contact.id, number: contact.lastNumber + 1, callId };
          }),
          at,
        );
        for (const [i, { index }] of recorded.entries()) attemptIds.set(index, ids[i] as string);
      },
    });
    return results.map((result, index): Verdict => {
      const contact = contacts[index] as ClaimedContact;
      if (result.ok) return { kind: 'placed', accepted: { ...result, attemptId: attemptIds.get(index) as string } };
      switch (result.reason) {
        case 'number_policy':
          return { kind: 'change', change: { id: contact.id, kind: 'final', state: 'failed', reason: result.message } };
        case 'number_busy':
          return {
            kind: 'change',
            change: { id: contact.id, kind: 'due', dueAt: new Date(at.getTime() + BUSY_RETRY_MS) },
          };
        case 'at_capacity':
          return { kind: 'stop' };
        case 'disabled':
          return { kind: 'stop', cause: 'its agent is disabled' };
        default: // not_configured
          return { kind: 'stop', cause: 'its agent is not set up to place calls' };
      }
    });
  }

  /** Asks the provider for each call, a bounded number at once; records who took which. */
  async function start(accepted: Accepted[]): Promise<void> {
    const placed: PlacedCall[] = [];
    const refused: { attemptId: string; message: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < accepted.length) {
        const call = accepted[next++] as Accepted;
        const started = await clickToCall.startCampaignCall(call);
        deps.onPlaced?.(started.ok);
        if (started.ok)
          placed.push({ attemptId: call.attemptId, callId: call.callId, providerCallId: started.providerCallId });
        else refused.push({ attemptId: call.attemptId, message: started.message });
      }
    };
    await Promise.all(Array.from({ length: Math.min(maxStarts, accepted.length) }, worker));
    await repository.markPlaced(placed);
    await repository.markRefused(refused, now());
  }

  /**
   * One pass of the four steps, each only where there is something for it: steps 1 and 2 need an
   * attempt placing or placed, steps 3 and 4 a running campaign. With neither, the pass is one
   * statement (decision 0078). Says whether there was any (decision 0087).
   */
  async function tick(): Promise<boolean> {
    const work = await repository.work();
    if (work.attempts) {
      // 1. Settle attempts whose call ended (a batch per tick; more wait for the next).
      await repository.settle(now(), BATCH);
      // 2. Recover attempts whose process died while placing them.
      const abandoned = await repository.abandonedCalls(deps.leaseSeconds, BATCH);
      for (const callId of abandoned) {
        await calls.failStart(
          callId,
          'The process placing this campaign call stopped before the provider answered; the call never started',
          'not_started',
        );
      }
      await repository.recover(deps.leaseSeconds, now());
    }
    if (work.campaigns) {
      // 3. Place due calls, campaign by campaign.
      const at = now();
      const due = await repository.dueCampaigns(at, BATCH);
      for (const campaignId of due) {
        const accepted = await placeCampaign(campaignId, at);
        if (accepted.length > 0) await start(accepted);
      }
      // 4. Complete campaigns whose every contact is final.
      await repository.complete(now());
    }
    return work.campaigns || work.attempts;
  }

  let stopped = true;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let woken = false;

  const loop = () => {
    timer = undefined;
    woken = false;
    const began = Date.now();
    running = tick()
      .catch((error) => {
        deps.onError(error);
        return true;
      })
      .then((busy) => {
        if (stopped) return;
        timer = setTimeout(loop, woken ? 0 : nextPause(busy, Date.now() - began, deps.intervalMs, random));
      });
  };

  const scheduler = {
    /** One pass, for tests and tools. */
    tick,
    start(): void {
      if (!stopped) return;
      stopped = false;
      deps.changes?.subscribe(CAMPAIGNS_DUE_TOPIC, scheduler.wake, scheduler.wake);
      timer = setTimeout(loop, nextPause(true, 0, deps.intervalMs, random));
    },
    /** Look now rather than at the next interval (a campaign started, resumed, contacts were added). */
    wake(): void {
      if (stopped) return;
      if (timer) {
        clearTimeout(timer);
        timer = setTimeout(loop, 0);
      } else woken = true;
    },
    /** No new pass starts; the one under way finishes (its calls are recorded before they start). */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
  return scheduler;
}

export type CampaignScheduler = ReturnType<typeof createCampaignScheduler>;
