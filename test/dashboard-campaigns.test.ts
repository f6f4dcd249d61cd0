import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import {
  expectAccessible,
  expectFits,
  expectKeyboardReach,
  haveBrowser,
  launchBrowser,
  screenshot,
} from './helpers/browser.js';

// The dashboard's campaigns (issue 19, decision 0050) in Chromium against a real server whose scheduler
// places the calls on the simulator: the list with its progress bars and state filter, the create form
// with its field errors, the contacts' CSV upload checked first (preview and row errors by line) then
// added, start → completed, pause / resume / cancel, the contacts' state filter in the address, the
// results export; every screen at 1280 and 390 px, axe-clean, fitting its width, every control reached by Tab.

const WIDTHS = [1280, 390] as const;

let t: TestApp;
let browser: Browser;
let page: Page;
let org: Org;
let agent: { id: string };

async function api(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { headers: org.auth, body });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Screenshot, axe, no sideways scroll and Tab reaching every control, at each width; back to 1280 after. */
async function checkWidths(name: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 1280 ? 900 : 844 });
    await expect.poll(() => page.locator('[aria-busy="true"]').count()).toBe(0);
    await screenshot(page, `campaigns-${name}-${width}`);
    await expectAccessible(page, `${name} at ${width} px`);
    await expectFits(page, `${name} at ${width} px`);
    await expectKeyboardReach(page, `${name} at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const query = () => Object.fromEntries(new URL(page.url()).searchParams);
const stateBadge = () => page.locator('.card .toolbar .badge').first().textContent();
const contactRows = () => page.getByRole('table', { name: 'Contacts' }).locator('tbody tr');

describe.runIf(haveBrowser)('the dashboard’s campaigns', () => {
  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_CAMPAIGN_INTERVAL_MS: '100' });
    browser = await launchBrowser();
    org = await t.signup('Acme Campaigns');
    // Short simulated calls that are answered: each contact is done after one attempt.
    agent = await t.createAgent(org, {
      name: 'Dialer',
      type: 'outbound',
      simulator: { turns: [{ role: 'user', text: 'Hello?' }], outcome: { status: 'INTERESTED' }, durationSeconds: 3 },
    });
    // An inbound agent cannot place calls: the create form does not offer it.
    await t.createAgent(org, { name: 'Front desk', type: 'inbound', prompt: 'Take details.', firstMessage: 'Hi.' });

    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(t.url);
    await page.getByLabel('Email').fill(org.user.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Switchboard · Acme Campaigns').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists no campaign yet with a way to create one, from the header’s Campaigns', async () => {
    await page.goto(`${t.url}/overview`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Campaigns' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/campaigns');
    await page.getByText('No campaigns yet.').waitFor();
    await checkWidths('list-empty');
    await page.locator('.empty').getByRole('link', { name: 'New campaign' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/campaigns/new');
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
  });

  it('creates a draft: the API’s refusals beside their fields, then saved', async () => {
    await page.goto(`${t.url}/campaigns/new`);
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    // Only agents that place calls are offered.
    const offered = await page.getByLabel('Agent').locator('option').allTextContents();
    expect(offered).toEqual(['Dialer (Outbound)']);
    // The zones are the browser's IANA names; UTC among them.
    expect(await page.getByLabel('Time zone').locator('option[value="Europe/Berlin"]').count()).toBe(1);

    // Nothing named and no delay between attempts: each said beside its field, nothing stored.
    await page.getByLabel('From', { exact: true }).fill('18:00');
    await page.getByLabel('Until', { exact: true }).fill('09:00');
    await page.getByLabel('Minutes between attempts').fill('0');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('[data-path="$.name"]').waitFor();
    await page.locator('[data-path="$.retry.delayMinutes"]').waitFor();
    expect(await page.getByRole('heading', { name: 'New campaign' }).isVisible()).toBe(true);
    expect((await api('GET', '/v1/campaigns')).data).toEqual([]);
    await checkWidths('new-refused');

    // Named, with a delay: the window that ends before it starts is what is left, said beside "Until".
    await page.getByLabel('Name').fill('Spring leads');
    await page.getByLabel('Minutes between attempts').fill('1');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => page.locator('[data-path="$.window.end"]').textContent()).toMatch(/after start/);
    expect(await page.locator('[data-path="$.name"]').count()).toBe(0);
    expect((await api('GET', '/v1/campaigns')).data).toEqual([]);

    await page.getByLabel('Time zone').selectOption('UTC');
    for (const day of ['Saturday', 'Sunday']) await page.getByLabel(day).check();
    await page.getByLabel('From', { exact: true }).fill('00:00');
    await page.getByLabel('Until', { exact: true }).fill('23:59');
    await page.getByLabel('Calls at once').fill('2');
    await page.getByLabel('Calls per minute').fill('600');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/campaigns\/cmp_/);
    await page.getByText('Draft saved.').waitFor();

    const [saved] = (await api('GET', '/v1/campaigns')).data;
    expect(saved).toMatchObject({
      name: 'Spring leads',
      agentId: agent.id,
      timezone: 'UTC',
      window: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '23:59' },
      concurrency: 2,
      callsPerMinute: 600,
      retry: { noAnswer: 2, busy: 2, voicemail: 0, failed: 0, delayMinutes: 1 },
      state: 'draft',
      counts: { total: 0 },
    });
    expect(await stateBadge()).toBe('draft');
    await checkWidths('draft');
  });

  it('checks a CSV first (preview, each bad row by line), adds it, starts, and follows it to completed', async () => {
    const [campaign] = (await api('GET', '/v1/campaigns')).data;
    await page.goto(`${t.url}/campaigns/${campaign.id}`);
    const phones = [nextPhone(), nextPhone(), nextPhone()];
    const csv = [
      'phone,name,company',
      `${phones[0]},Ada,"Acme, Inc."`,
      'not-a-phone,Bob,Nowhere',
      `${phones[1]},Cy,"Quote ""Co"""`,
      `${phones[2]},Di,Dee`,
      '',
    ].join('\r\n');
    await page.getByLabel('CSV file').setInputFiles({
      name: 'leads.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`\uFEFF${csv}`),
    });

    // The check stores nothing; its preview shows the rows as the API read them, the bad one by its line.
    const preview = page.getByRole('table', { name: 'First rows' });
    await preview.waitFor();
    expect(await preview.locator('tbody tr td[data-label="Phone"]').allTextContents()).toEqual(phones);
    expect(await preview.locator('tbody tr td[data-label="company"]').allTextContents()).toEqual([
      'Acme, Inc.',
      'Quote "Co"',
      'Dee',
    ]);
    const problems = page.getByRole('table', { name: 'Rows with a problem' }).locator('tbody tr');
    expect(await problems.count()).toBe(1);
    expect(await problems.locator('td').first().textContent()).toBe('3');
    expect((await problems.locator('td').nth(1).textContent())?.length).toBeGreaterThan(0);
    expect((await api('GET', `/v1/campaigns/${campaign.id}`)).counts.total).toBe(0);
    await checkWidths('upload-checked');

    await page.getByRole('button', { name: 'Add 3 contacts' }).click();
    await page.getByText(/^Added 3 contacts; 1 row was skipped\.$/).waitFor();
    await expect.poll(() => contactRows().count()).toBe(3);
    expect((await api('GET', `/v1/campaigns/${campaign.id}`)).counts).toMatchObject({ total: 3, pending: 3 });

    await page.getByRole('button', { name: 'Start', exact: true }).click();
    // The page follows the campaign by itself until every contact is done.
    await expect.poll(stateBadge, { timeout: 30_000 }).toBe('completed');
    await expect
      .poll(() => page.locator('.campaign-progress-text').first().textContent())
      .toBe('3 of 3 finished (3 done)');
    expect(await page.getByRole('progressbar', { name: 'Progress of Spring leads' }).getAttribute('value')).toBe('3');
    await expect
      .poll(() => contactRows().locator('td[data-label="State"]').allTextContents())
      .toEqual(['done', 'done', 'done']);
    // Each attempt links to its call.
    const attempt = contactRows()
      .first()
      .getByRole('link', { name: /^Attempt 1: answered/ });
    const href = await attempt.getAttribute('href');
    const calls = (await api('GET', `/v1/calls?campaignId=${campaign.id}`)).data;
    expect(calls.map((call: any) => `/calls/${call.id}`)).toContain(href);
    await checkWidths('completed');

    // The contacts' filter is in the address.
    await page.getByLabel('Contact state').selectOption('done');
    await expect.poll(query).toEqual({ state: 'done' });
    await expect.poll(() => contactRows().count()).toBe(3);
    await page.getByLabel('Contact state').selectOption('failed');
    await expect.poll(query).toEqual({ state: 'failed' });
    await page.getByText('No contact is failed.').waitFor();
    await page.reload();
    expect(await page.getByLabel('Contact state').inputValue()).toBe('failed');
    await page.getByRole('button', { name: 'Show every contact' }).click();
    await expect.poll(query).toEqual({});
    await expect.poll(() => contactRows().count()).toBe(3);

    // The export is the API's results.csv, with the session's cookie.
    const exportHref = await page.getByRole('link', { name: 'Export results' }).getAttribute('href');
    expect(exportHref).toBe(`/v1/campaigns/${campaign.id}/results.csv`);
    const exported = await page.request.get(`${t.url}${exportHref}`);
    expect(exported.status()).toBe(200);
    const lines = (await exported.text()).trim().split(/\r?\n/);
    expect(lines[0]).toBe('contact_id,phone,state,attempts,last_outcome,last_call_id,reason,variables');
    expect(lines).toHaveLength(4);

    await attempt.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(href);
  });

  it('pauses, resumes and (once confirmed) cancels another campaign', async () => {
    // Not before 2099: started, it runs without calling anyone, so each state holds until changed here.
    const later = await api('POST', '/v1/campaigns', {
      name: 'Autumn leads',
      agentId: agent.id,
      startAt: '2099-01-01T09:00:00Z',
    });
    await api('POST', `/v1/campaigns/${later.id}/contacts`, [
      { phone: nextPhone(), variables: { name: 'Eve' } },
      { phone: nextPhone(), variables: { name: 'Finn' } },
    ]);
    await page.goto(`${t.url}/campaigns/${later.id}`);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(stateBadge).toBe('running');
    await page.getByRole('status', { name: 'Live: this campaign updates by itself' }).waitFor();
    await checkWidths('running');

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await expect.poll(stateBadge).toBe('paused');
    expect((await api('GET', `/v1/campaigns/${later.id}`)).state).toBe('paused');
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect.poll(stateBadge).toBe('running');
    expect((await api('GET', `/v1/campaigns/${later.id}`)).state).toBe('running');

    // The list: the running campaign's progress is followed live; filtered by state in the address.
    await page.goto(`${t.url}/campaigns`);
    const rows = page.getByRole('table', { name: 'Campaigns' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByRole('status', { name: /^Live/ }).waitFor();
    expect(await page.getByRole('progressbar', { name: 'Progress of Autumn leads' }).getAttribute('max')).toBe('2');
    await checkWidths('list');
    await page.getByLabel('State').selectOption('completed');
    await expect.poll(query).toEqual({ state: 'completed' });
    await expect.poll(() => rows.locator('td[data-label="Name"]').allTextContents()).toEqual(['Spring leads']);
    await page.getByLabel('State').selectOption('running');
    await expect.poll(() => rows.locator('td[data-label="Name"]').allTextContents()).toEqual(['Autumn leads']);
    await rows.getByRole('link', { name: 'Autumn leads' }).click();

    // Cancel asks first; backing out changes nothing.
    await page.getByRole('button', { name: 'Cancel campaign' }).click();
    await page.getByText('Cancel this campaign?').waitFor();
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect((await api('GET', `/v1/campaigns/${later.id}`)).state).toBe('running');
    await page.getByRole('button', { name: 'Cancel campaign' }).click();
    await checkWidths('cancel-asked');
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await expect.poll(stateBadge).toBe('cancelled');
    const cancelled = await api('GET', `/v1/campaigns/${later.id}`);
    expect(cancelled.counts).toMatchObject({ total: 2, skipped: 2 });
    await expect
      .poll(() => contactRows().locator('td[data-label="Reason"]').allTextContents())
      .toEqual(['campaign cancelled', 'campaign cancelled']);
    // Nothing left to add, start or stop: only Delete remains.
    expect(await page.getByLabel('CSV file').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Start|Pause|Resume|Cancel campaign)$/ }).count()).toBe(0);
    await checkWidths('cancelled');
  });

  it('says so for a campaign that is not there', async () => {
    await page.goto(`${t.url}/campaigns/cmp_nope`);
    await page.getByRole('heading', { name: 'Campaign not found' }).waitFor();
  });
});
