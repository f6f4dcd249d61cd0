import { ApiFailure, type Page } from '../../api.js';
import type { components } from '../../api-types.js';

/** The campaigns API's views (issue 19), as GET /openapi.json documents them (api-types.ts, decision 0033). */
type Schemas = components['schemas'];
export type Campaign = Schemas['Campaign'];
export type CampaignState = Campaign['state'];
export type CampaignCounts = Campaign['counts'];
export type CallingWindow = Campaign['window'];
export type RetryPolicy = Campaign['retry'];
export type Day = CallingWindow['days'][number];
export type Contact = Schemas['CampaignContact'];
export type ContactState = Contact['state'];
export type ContactAttempt = Contact['attempts'][number];
/** `POST /v1/campaigns/:id/contacts` (with `?dryRun=true`, `preview` too and nothing stored). */
export type ImportResult = Schemas['ContactImportResult'];
export type ImportProblem = ImportResult['errors'][number];
export type PreviewRow = NonNullable<ImportResult['preview']>[number];

export type CountedPage<T> = Page<T> & { total?: number };

export const CAMPAIGN_STATES: { value: CampaignState; label: string }[] = [
  { value: 'draft', label: 'Draft' },
  { value: 'running', label: 'Running' },
  { value: 'paused', label: 'Paused' },
  { value: 'completed', label: 'Completed' },
  { value: 'cancelled', label: 'Cancelled' },
];

export const CONTACT_STATES: { value: ContactState; label: string; hint: string }[] = [
  { value: 'pending', label: 'Pending', hint: 'not called yet' },
  { value: 'calling', label: 'Calling', hint: 'a call in progress' },
  { value: 'retrying', label: 'Retrying', hint: 'waiting for the next attempt' },
  { value: 'done', label: 'Done', hint: 'answered' },
  { value: 'skipped', label: 'Skipped', hint: 'on the do-not-call list, or the campaign was cancelled' },
  { value: 'failed', label: 'Failed', hint: 'no answer after every attempt, or the number cannot be called' },
];

export const DAYS: { value: Day; label: string }[] = [
  { value: 'mon', label: 'Monday' },
  { value: 'tue', label: 'Tuesday' },
  { value: 'wed', label: 'Wednesday' },
  { value: 'thu', label: 'Thursday' },
  { value: 'fri', label: 'Friday' },
  { value: 'sat', label: 'Saturday' },
  { value: 'sun', label: 'Sunday' },
];

export const RESULT_LABELS: Record<NonNullable<ContactAttempt['result']>, string> = {
  answered: 'answered',
  noAnswer: 'no answer',
  busy: 'busy',
  voicemail: 'voicemail',
  failed: 'failed',
};

/** The contacts that will not be called again: answered, skipped or failed. */
export function finished(counts: CampaignCounts): number {
  return counts.done + counts.skipped + counts.failed;
}

/** Whether the campaign may still change by itself: its calls go on while it runs, and finish after a pause. */
export function isLive(campaign: Campaign): boolean {
  return campaign.state === 'running' || campaign.counts.calling > 0;
}

/**
 * Sends a CSV file as it is (`text/csv`) to a campaign's contacts: the API reads it as a stream, so
 * the browser never parses it. `dryRun` checks it and answers the preview without storing anything.
 */
export async function uploadContacts(campaignId: string, file: Blob, dryRun: boolean): Promise<ImportResult> {
  const path = `/v1/campaigns/${encodeURIComponent(campaignId)}/contacts${dryRun ? '?dryRun=true' : ''}`;
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'text/csv' },
    body: file,
  });
  const text = await response.text();
  let json: { code?: string; message?: string; details?: { path: string; message: string }[] } | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    throw new ApiFailure(
      response.status,
      json?.code ?? 'api:internal',
      json?.message ?? (response.status === 413 ? 'The file is too large.' : response.statusText),
      json?.details,
    );
  }
  return json as unknown as ImportResult;
}
