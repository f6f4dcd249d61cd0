import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot, signUpInBrowser } from './helpers/browser.js';

/** Issue 18 §3 in the tool form: no errors before typing, every problem at once beside its field, comma lists. */

let t: TestApp;
let browser: Browser;

/** The `.field` block holding a labelled control: where the API's error for that control appears. */
const fieldOf = (page: Page, label: string) =>
  page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).last();

const newTool = async (page: Page) => {
  await page.goto(`${t.url}/tools/new`);
  await expect.poll(() => page.getByRole('heading', { name: 'New tool' }).isVisible()).toBe(true);
};

describe.runIf(haveBrowser)('the dashboard: form errors', () => {
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a new, untouched tool form shows no error; a save with two bad fields shows both, each beside its field', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Form errors UI');
    await newTool(page);

    // The live preview has asked the API (which refuses an empty tool), yet nothing is shown as wrong.
    const preview = page.getByRole('region', { name: 'AI schema preview' });
    await expect.poll(() => preview.getByRole('status').textContent()).toMatch(/once the tool has a name and a URL/);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('.error, .preview-problems').count()).toBe(0);
    await screenshot(page, 'form-errors-01-untouched');

    await page.getByLabel('Name', { exact: true }).fill('create order');
    await page.getByLabel('URL', { exact: true }).fill('ftp://example.com/orders');
    // Typing turns the preview's reasons on: the form is no longer untouched.
    await expect.poll(() => preview.locator('.preview-problems').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();

    await expect
      .poll(() => fieldOf(page, 'Name').getByRole('alert').textContent())
      .toBe('Use letters, digits, _ or - (at most 64)');
    expect(await fieldOf(page, 'URL').getByRole('alert').textContent()).toBe('Must use http or https');
    await screenshot(page, 'form-errors-02-two-bad-fields');
    expect((await (await page.request.get(`${t.url}/v1/tools`)).json()).data).toEqual([]);
    await page.close();
  });

  it('Allowed values take a comma-separated list: "basic, pro" saves ["basic", "pro"] and reads back the same way', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Allowed values UI');
    await newTool(page);
    await page.getByLabel('Name', { exact: true }).fill('set_plan');
    await page.getByLabel('URL', { exact: true }).fill('https://example.com/plans');
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Parameter 1 name', { exact: true }).fill('plan');
    await page.getByLabel('Parameter 1 allowed values', { exact: true }).fill('basic, pro');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved.').isVisible()).toBe(true);

    const [tool] = (await (await page.request.get(`${t.url}/v1/tools`)).json()).data;
    expect(tool.parameters[0].allowedValues).toEqual(['basic', 'pro']);
    expect(tool.aiSchema.properties.plan.enum).toEqual(['basic', 'pro']);
    await page.reload();
    await expect
      .poll(() => page.getByLabel('Parameter 1 allowed values', { exact: true }).inputValue())
      .toBe('basic, pro');
    await page.close();
  });
});
