import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, startTestApp, type TestApp } from './helpers/app.js';
import { expectAccessible, expectFits, haveBrowser, launchBrowser, screenshot } from './helpers/browser.js';

// The do-not-call list under Settings (issue 19), in Chromium against a real server: a number added by hand
// (and again: already listed), a CSV file uploaded with its result line by line, the list searched by the
// start of the number with the search in the address, a number removed after a confirmation, and a test
// call from the agent page to a listed number refused with ctc:013's words. Checked by axe at 1280 and 390 px.

let t: TestApp;
let browser: Browser;
let page: Page;

/** The API with the browser's own session cookie. */
const apiGet = async (path: string) => {
  const response = await page.request.get(`${t.url}${path}`);
  expect(response.status(), `GET ${path}`).toBe(200);
  return response.json();
};
const apiPost = async (path: string, data: unknown) => page.request.post(`${t.url}${path}`, { data });

const rows = () => page.locator('table.dnc-table tbody tr');
const shownNumbers = () => rows().locator('td[data-label="Number"]').allTextContents();
const query = () => Object.fromEntries(new URL(page.url()).searchParams);
const listed = async (): Promise<string[]> =>
  (await apiGet('/v1/suppressions?limit=100')).data.map((s: { phone: string }) => s.phone).sort();

/** Distinct valid numbers sharing one prefix, so the search has something to tell apart. */
const SEARCHED = ['+12125550101', '+12125550102'];
const OTHER = '+13125550103';

describe.runIf(haveBrowser)('the dashboard: the do-not-call list', () => {
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    const org = await t.signup('Acme DNC');
    await page.goto(t.url);
    await page.getByLabel('Email').fill(org.user.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Switchboard · Acme DNC').waitFor({ timeout: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is reached from Settings, and says what it is for while it is empty', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Do-not-call list' });
    await expect.poll(() => section.isVisible()).toBe(true);
    await section.getByRole('link', { name: 'Open the do-not-call list' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/settings/do-not-call');
    await expect.poll(() => page.getByText('No numbers on the do-not-call list.').isVisible()).toBe(true);
    // The header keeps Settings as the section the page belongs to.
    expect(await page.getByRole('navigation', { name: 'Sections' }).locator('a.active').textContent()).toBe('Settings');
    await expectAccessible(page, 'the empty do-not-call list');
    await expectFits(page, 'the empty do-not-call list');
  });

  it('adds a number with its reason, says when it was listed already, and shows a bad number’s problem beside it', async () => {
    await page.goto(`${t.url}/settings/do-not-call`);
    const form = page.getByRole('form', { name: 'Add a number' });
    await form.getByLabel('Phone number').fill('0800 123');
    await form.getByRole('button', { name: 'Add to the list' }).click();
    await expect.poll(() => form.locator('[data-path="$.phone"]').isVisible()).toBe(true);
    expect(await listed()).toEqual([]);

    await form.getByLabel('Phone number').fill(SEARCHED[0]!);
    await form.getByLabel('Reason (optional)').fill('Asked on the phone not to be called');
    await form.getByRole('button', { name: 'Add to the list' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe(`${SEARCHED[0]} is on the list now.`);
    await expect.poll(shownNumbers).toEqual([SEARCHED[0]]);
    expect(await rows().first().locator('td[data-label="Reason"]').textContent()).toBe(
      'Asked on the phone not to be called',
    );
    expect(await rows().first().locator('td[data-label="Source"]').textContent()).toBe('Added by hand or API');
    expect(await page.locator('.list-total').textContent()).toBe('1 number');
    const stored = (await apiGet('/v1/suppressions')).data;
    expect(stored).toMatchObject([
      { phone: SEARCHED[0], reason: 'Asked on the phone not to be called', source: 'api', callId: null },
    ]);

    // The same number again: idempotent, said so, the reason left as it was.
    await form.getByLabel('Phone number').fill(SEARCHED[0]!);
    await form.getByLabel('Reason (optional)').fill('Another reason');
    await form.getByRole('button', { name: 'Add to the list' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toBe(`${SEARCHED[0]} was already on the list.`);
    expect((await apiGet('/v1/suppressions')).data).toEqual(stored);
  });

  it('uploads a CSV file and shows what was added, what was listed already, and each refused line', async () => {
    await page.goto(`${t.url}/settings/do-not-call`);
    const form = page.getByRole('form', { name: 'Upload a CSV file' });
    expect(await form.getByRole('button', { name: 'Upload' }).isDisabled()).toBe(true);
    const csv = [
      'Phone,Reason',
      `${SEARCHED[1]},"Complained, twice"`,
      `${SEARCHED[0]},listed already`,
      'not a number,bad',
      `${OTHER},`,
      '+1415,too short',
    ].join('\r\n');
    await form.getByLabel('CSV file').setInputFiles({
      name: 'opt-outs.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`\uFEFF${csv}\r\n`, 'utf8'),
    });
    await form.getByRole('button', { name: 'Upload' }).click();
    const result = form.getByRole('status', { name: 'Upload of opt-outs.csv' });
    await expect
      .poll(() => result.locator('.dnc-result-head').textContent())
      .toBe('opt-outs.csv: 5 rows read, 2 added, 1 already listed, 2 rows refused.');
    const refused = result.getByRole('table', { name: 'Rows refused' }).locator('tbody tr');
    expect(await refused.locator('td:first-child').allTextContents()).toEqual(['4', '6']);
    for (const message of await refused.locator('td:nth-child(2)').allTextContents()) expect(message).not.toBe('');

    expect(await listed()).toEqual([...SEARCHED, OTHER].sort());
    await expect.poll(async () => (await shownNumbers()).sort()).toEqual([...SEARCHED, OTHER].sort());
    const complained = rows().filter({ hasText: SEARCHED[1]! });
    expect(await complained.locator('td[data-label="Reason"]').textContent()).toBe('Complained, twice');
    await screenshot(page, 'do-not-call-1280');
    await expectAccessible(page, 'the do-not-call list after an upload');
    await expectFits(page, 'the do-not-call list after an upload');

    // A file without a phone column: refused whole, nothing stored.
    await form.getByLabel('CSV file').setInputFiles({
      name: 'wrong.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('number,reason\n+14155550199,x\n'),
    });
    await form.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => form.locator('.error.banner').isVisible()).toBe(true);
    expect(await form.getByRole('status').count()).toBe(0);
    expect(await listed()).toEqual([...SEARCHED, OTHER].sort());
  });

  it('searches by the start of the number, the search in the address; a reload and Back keep it', async () => {
    await page.goto(`${t.url}/settings/do-not-call`);
    await expect.poll(() => rows().count()).toBe(3);
    const search = page.getByRole('search', { name: 'Search the do-not-call list' });
    // Written as people write numbers: the spaces and dashes are dropped.
    await search.getByLabel('Number starts with').fill('+1 212-');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(query).toEqual({ phone: '+1212' });
    await expect.poll(async () => (await shownNumbers()).sort()).toEqual(SEARCHED);
    expect(await page.locator('.list-total').textContent()).toBe('2 numbers match');
    await page.reload();
    await expect.poll(async () => (await shownNumbers()).sort()).toEqual(SEARCHED);
    expect(await search.getByLabel('Number starts with').inputValue()).toBe('+1212');

    await search.getByLabel('Number starts with').fill('+1999');
    await search.getByLabel('Number starts with').press('Enter');
    await expect.poll(() => page.getByText('No number on the list starts with +1999.').isVisible()).toBe(true);
    // Not a number: the API's refusal is shown, not an empty list.
    await search.getByLabel('Number starts with').fill('abc');
    await search.getByLabel('Number starts with').press('Enter');
    await expect.poll(query).toEqual({ phone: 'abc' });
    await expect.poll(() => page.locator('.dnc-page .error.banner').isVisible()).toBe(true);
    expect(await rows().count()).toBe(0);
    await page.goBack();
    await page.goBack();
    await expect.poll(query).toEqual({ phone: '+1212' });
    await expect.poll(async () => (await shownNumbers()).sort()).toEqual(SEARCHED);
    expect(await search.getByLabel('Number starts with').inputValue()).toBe('+1212');

    await search.getByRole('button', { name: 'Show every number' }).click();
    await expect.poll(query).toEqual({});
    await expect.poll(() => rows().count()).toBe(3);
  });

  it('removes a number only once the removal is confirmed', async () => {
    await page.goto(`${t.url}/settings/do-not-call?phone=${encodeURIComponent(OTHER)}`);
    await expect.poll(shownNumbers).toEqual([OTHER]);
    const row = rows().first();
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(await listed()).toContain(OTHER);
    await row.getByRole('button', { name: 'Remove' }).click();
    expect(await row.textContent()).toContain(`Call ${OTHER} again?`);
    await row.getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(() => page.getByText(`No number on the list starts with ${OTHER}.`).isVisible()).toBe(true);
    expect(await listed()).toEqual(SEARCHED);
  });

  it('fits a phone’s width, with the list and an upload’s refused lines', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      // The same session: the page's cookies.
      await phone.context().addCookies(await page.context().cookies());
      await phone.goto(`${t.url}/settings/do-not-call`);
      await expect.poll(() => phone.locator('table.dnc-table tbody tr').count()).toBe(2);
      const form = phone.getByRole('form', { name: 'Upload a CSV file' });
      await form.getByLabel('CSV file').setInputFiles({
        name: 'a-rather-long-file-name-of-opt-outs-from-the-crm-export.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(`phone\n${'x'.repeat(300)}\n+13105550177\n`),
      });
      await form.getByRole('button', { name: 'Upload' }).click();
      await expect.poll(() => form.getByRole('table', { name: 'Rows refused' }).isVisible()).toBe(true);
      await phone.locator('table.dnc-table tbody tr').first().getByRole('button', { name: 'Remove' }).click();
      await screenshot(phone, 'do-not-call-390');
      await expectAccessible(phone, 'the do-not-call list at 390 px');
      await expectFits(phone, 'the do-not-call list at 390 px');
    } finally {
      await phone.close();
    }
  });

  it('a test call from the agent page to a listed number is refused with ctc:013’s words, and places no call', async () => {
    const agent = await (await apiPost('/v1/agents', { name: 'Caller' })).json();
    expect(agent.id).toMatch(/^agt_/);
    await page.goto(`${t.url}/agents/${agent.id}?tab=test-call`);
    const panel = page.getByRole('form', { name: 'Test call' });
    await panel.getByLabel('Phone number').fill(SEARCHED[0]!);
    await panel.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => panel.textContent()).toMatch(/Number is on the do-not-call list/);
    expect(new URL(page.url()).pathname).toBe(`/agents/${agent.id}`);
    expect((await apiGet('/v1/calls')).data).toEqual([]);

    // A number not on the list still calls.
    await panel.getByLabel('Phone number').fill(nextPhone());
    await panel.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => page.url()).toMatch(/\/calls\/call_/);
  });
});
