import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { requestJson } from './process.js';
import { until } from './wait.js';

// What the campaign tests against real server processes share: setting an organization up through
// the API, reading whole lists, and the rules every finished campaign must satisfy (issue 19).

export type Retry = { noAnswer: number; busy: number; voicemail: number; failed: number; delayMinutes: number };

export interface Api {
  url: string;
  auth: Record<string, string>;
  /** A request that must answer `status` (default 2xx); its body. */
  call(method: string, path: string, body?: unknown, status?: number): Promise<any>;
}

export async function signUp(url: string): Promise<Api> {
  const signup = await requestJson(`${url}/v1/signup`, {
    method: 'POST',
    body: {
      organization: 'Campaigns',
      email: `cmp-${randomBytes(4).toString('hex')}@example.com`,
      password: 'correct horse battery',
    },
  });
  expect(signup.status).toBe(201);
  const auth = { authorization: `Bearer ${signup.body.apiKey}` };
  return apiOf(url, auth);
}

/** The same organization through another process (an API process beside the workers, a restarted one). */
export function apiOf(url: string, auth: Record<string, string>): Api {
  return {
    url,
    auth,
    async call(method, path, body, status) {
      const answer = await requestJson(`${url}${path}`, { method, headers: auth, body });
      const ok = status === undefined ? answer.status >= 200 && answer.status < 300 : answer.status === status;
      if (!ok) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
  };
}

/** Every item of a paged list (`{data, nextCursor}`), 100 at a time. */
export async function everything(api: Api, path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: { data: any[]; nextCursor: string | null } = await api.call(
      'GET',
      `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/**
 * A window open now and for the next hour or so, every day: 00:00–23:59 in UTC, or, in UTC's last
 * two hours, in a zone six hours behind (its window's closed last minute is then far away).
 */
export function openWindow(at = new Date()) {
  return {
    timezone: at.getUTCHours() < 22 ? 'UTC' : 'Etc/GMT+6',
    window: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '23:59' },
  };
}

export function phones(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
}

/** Waits until the campaign is `completed`; its view. */
export async function completed(api: Api, campaignId: string, ms: number): Promise<any> {
  return until(
    'the campaign to complete',
    async () => {
      const campaign = await api.call('GET', `/v1/campaigns/${campaignId}`);
      return campaign.state === 'completed' ? campaign : undefined;
    },
    ms,
    200,
  );
}

/** The most intervals open at one instant; an interval ends before another starting at the same instant. */
export function mostAtOnce(intervals: { from: number; to: number }[]): number {
  const edges = intervals.flatMap(({ from, to }) => [
    { at: from, step: 1 },
    { at: to, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.step;
    most = Math.max(most, open);
  }
  return most;
}

const FINAL = ['done', 'failed', 'skipped'];
const RESULT_RETRY: Record<string, keyof Retry> = {
  noAnswer: 'noAnswer',
  busy: 'busy',
  voicemail: 'voicemail',
  failed: 'failed',
};

/**
 * The rules of a finished campaign, read through the API: every contact in exactly one final state;
 * each attempt number of a contact used once, each with its own call; the agent's calls (but
 * `otherCallIds`) are exactly the attempts' calls, each to its contact's number; an attempt whose
 * call never started has a call without a provider call id, and every other attempt's call has one;
 * a contact was called again only after an unanswered call its retry policy allowed another attempt
 * for, never after an answer; one contact's calls one after another. Answers what it read.
 */
export async function checkFinishedCampaign(
  api: Api,
  {
    campaignId,
    agentId,
    retry,
    otherCallIds = [],
  }: { campaignId: string; agentId: string; retry: Retry; otherCallIds?: string[] },
) {
  const campaign = await api.call('GET', `/v1/campaigns/${campaignId}`);
  const contacts = await everything(api, `/v1/campaigns/${campaignId}/contacts`);
  const calls = (await everything(api, `/v1/calls?agentId=${agentId}`)).filter((c) => !otherCallIds.includes(c.id));
  const callById = new Map(calls.map((c) => [c.id, c]));

  expect(campaign.state).toBe('completed');
  expect(campaign.endedAt).not.toBeNull();
  expect(campaign.counts).toMatchObject({ total: contacts.length, pending: 0, calling: 0, retrying: 0 });
  expect(campaign.counts.done + campaign.counts.failed + campaign.counts.skipped).toBe(contacts.length);
  expect(new Set(contacts.map((c) => c.id)).size).toBe(contacts.length);

  const attemptCallIds: string[] = [];
  for (const contact of contacts) {
    const where = `contact ${contact.phone} ${JSON.stringify(contact.attempts)}`;
    expect(FINAL, where).toContain(contact.state);
    const attempts = [...contact.attempts].sort((a: any, b: any) => a.number - b.number);
    // One call per attempt number: no number used twice.
    expect(new Set(attempts.map((a: any) => a.number)).size, where).toBe(attempts.length);
    const started: any[] = [];
    let previous: any;
    for (const attempt of attempts) {
      expect(['ended', 'not_started'], where).toContain(attempt.state);
      const call = callById.get(attempt.callId);
      expect(call, `${where}: its call ${attempt.callId} is not among the agent's calls`).toBeDefined();
      expect(call.to, where).toBe(contact.phone);
      expect(call.status, where).toBe('ended');
      attemptCallIds.push(attempt.callId);
      if (attempt.state === 'not_started') {
        // Never handed to the provider: retried without counting as an attempt.
        expect(call.providerCallId, where).toBeNull();
      } else {
        expect(call.providerCallId, where).not.toBeNull();
        expect(attempt.result, where).not.toBeNull();
        started.push(attempt);
      }
      // One contact's calls one after another: each began after the one before it ended.
      if (previous) expect(Date.parse(call.createdAt), where).toBeGreaterThanOrEqual(Date.parse(previous.endedAt));
      previous = call;
    }
    // Called again only after an unanswered call whose retry allowed it (k-th started attempt: k ≤ retry).
    started.forEach((attempt, index) => {
      if (index === started.length - 1) return;
      expect(attempt.result, where).not.toBe('answered');
      expect(index + 1, where).toBeLessThanOrEqual(retry[RESULT_RETRY[attempt.result] as keyof Retry]);
    });
    const last = started.at(-1);
    if (contact.state === 'done') expect(last?.result, where).toBe('answered');
    if (contact.state === 'failed' && last) {
      expect(last.result, where).not.toBe('answered');
      expect(started.length, where).toBeGreaterThan(retry[RESULT_RETRY[last.result] as keyof Retry]);
    }
  }
  // Every call of the agent belongs to exactly one attempt: none placed twice, none without a record.
  expect(new Set(attemptCallIds).size).toBe(attemptCallIds.length);
  expect(new Set(attemptCallIds)).toEqual(new Set(calls.map((c) => c.id)));
  return { campaign, contacts, calls };
}

/** The calls that ran at once, from their answer to their end: at most the campaign's concurrency. */
export function answeredAtOnce(calls: any[]): number {
  return mostAtOnce(
    calls
      .filter((c) => c.answeredAt && c.endedAt)
      .map((c) => ({ from: Date.parse(c.answeredAt), to: Date.parse(c.endedAt) })),
  );
}
