import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDir } from '../src/web.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// The dashboard in a real browser (CONTRACT §7): Debian's Chromium, driven by playwright-core.
const CHROMIUM = '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.CI === 'true') {
  throw new Error(`The dashboard tests need ${CHROMIUM} in CI: apt-get install -y chromium`);
}
if (!haveBrowser) {
  console.warn(`dashboard tests skipped: no ${CHROMIUM} (install it with: apt-get install -y chromium)`);
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Screenshots of each screen, for a reviewer to look at (not committed). */
const SCREENS = `${ROOT}test-results/screens`;

let t: TestApp;
let browser: Browser;

describe.runIf(haveBrowser)('the dashboard', () => {
  beforeAll(async () => {
    if (!dashboardDir()) {
      const built = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], {
        cwd: ROOT,
        stdio: 'inherit',
      });
      if (built.status !== 0) throw new Error('vite build failed');
    }
    mkdirSync(SCREENS, { recursive: true });
    t = await startTestApp();
    browser = await chromium.launch({
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
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const screenshot = (page: Page, name: string) => page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });

  it('signs up, shows the agents with an empty state, logs out and logs in again; a wrong password is said so', async () => {
    const page = await browser.newPage();
    await page.goto(t.url);
    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
    await screenshot(page, '01-log-in');

    await page.getByRole('button', { name: 'Sign up' }).click();
    const email = `ui-${Date.now()}@example.com`;
    await page.getByLabel('Organization').fill('Acme UI');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).first().click();
    await expect.poll(() => page.getByText('Switchboard · Acme UI').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('No agents yet.').isVisible()).toBe(true);
    await screenshot(page, '02-agents-empty');

    // An agent made through the API with the same session shows in the list.
    const created = await page.request.post(`${t.url}/v1/agents`, {
      data: { name: 'Sales agent', type: 'click_to_call' },
    });
    expect(created.status()).toBe(201);
    await page.reload();
    await expect.poll(() => page.getByRole('cell', { name: 'Sales agent' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('cell', { name: 'Click to Call' }).isVisible()).toBe(true);
    await screenshot(page, '03-agents');

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/\S/);
    await screenshot(page, '04-log-in-refused');

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'Sales agent' }).isVisible()).toBe(true);
    await page.close();
  }, 60_000);

  it('leaves the APIs’ own answers alone: an unknown API path is a JSON 404, not the dashboard', async () => {
    const response = await fetch(`${t.url}/v1/nothing-here`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('api:not_found');
    const page = await fetch(`${t.url}/calls/123`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toContain('<div id="root">');
    // Built assets are content-hashed: cached for good. Nothing outside assets/ is reachable through it.
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(
      await (await fetch(t.url, { headers: { accept: 'text/html' } })).text(),
    );
    const asset = await fetch(`${t.url}${script?.[1]}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${t.url}/assets/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${t.url}/assets/missing.js`)).status).toBe(404);
  });
});
