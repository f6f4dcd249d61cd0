import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

// The dashboard in a real browser (CONTRACT §7): Debian's Chromium, driven by playwright-core.
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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
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
