import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

// The dashboard in a real browser (docs/interface.md#dashboard): Debian's Chromium, driven by playwright-core.
export const CHROMIUM = '/usr/bin/chromium';
export const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.CI === 'true') {
  throw new Error(`The dashboard tests need ${CHROMIUM} in CI: apt-get install -y chromium`);
}
if (!haveBrowser) {
  console.warn(`dashboard tests skipped: no ${CHROMIUM} (install it with: apt-get install -y chromium)`);
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots of each screen, for a reviewer to look at (not committed). */
export const SCREENS = `${ROOT}test-results/screens`;

/**
 * Chromium for the dashboard's tests. Each page it opens is watched for Content-Security-Policy
 * violations (Chromium reports each one on the console), and closing the browser fails the tests
 * that used it if there was any: the pages must work under their policy (decision 0030).
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const violations: string[] = [];
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage(options);
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(`${page.url()}: ${message.text()}`);
    });
    return page;
  };
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    await close(options);
    expect(violations, 'Content-Security-Policy violations').toEqual([]);
  };
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
}

/** Signs a new organization up through the dashboard's own form; the page is then signed in. */
export async function signUpInBrowser(page: Page, baseUrl: string, organization = 'Acme UI'): Promise<string> {
  await page.goto(baseUrl);
  await page.getByRole('button', { name: 'Sign up' }).click();
  const email = `ui-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.getByLabel('Organization').fill(organization);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign up' }).first().click();
  await expect.poll(() => page.getByText(`Switchboard · ${organization}`).isVisible()).toBe(true);
  return email;
}
