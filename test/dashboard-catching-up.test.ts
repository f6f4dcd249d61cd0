// The dashboard asks again by itself when the API says when to (decision 0104): the Overview over a
// period the stats rollup has not reached, whose read outlasts the database timeout, is answered 503
// api:unavailable with Retry-After (decision 0102). The page says so and when it will ask again, asks
// once at that time, and then shows the figures. A server process with a short database timeout, on
// PostgreSQL (PGlite has no statement timeout), in Chromium; the read is made to outlast the timeout
// by holding `calls` locked from another connection (test/helpers/calls-locked.ts). The
// browser's clock is moved on by Playwright, so the test need not wait out the minute.
import { randomBytes } from 'node:crypto';
import type { Browser, Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFits, haveBrowser, launchBrowser, screenshot, signUpInBrowser } from './helpers/browser.js';
import { whileCallsLocked } from './helpers/calls-locked.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { type ServerProcess, startServerProcess } from './helpers/process.js';

describe.runIf(haveBrowser && process.env.TEST_DATABASE_URL)('dashboard: a load the API says to retry', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await startServerProcess({
      DATABASE_URL: db.url as string,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
      SWITCHBOARD_SIGNUP: 'open',
      SWITCHBOARD_DATABASE_TIMEOUT_MS: '300',
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.clock.install();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await db?.drop();
  });

  it('says the statistics are not rolled up yet, when it will ask again, then shows them', async () => {
    await signUpInBrowser(page, server.url, 'Catching Up');
    // Somewhere else than the Overview first, so that following its link loads it. The landing
    // Overview's own request may still be answered after this (on a slow machine it was, 200, while
    // the lock below waited for it): only the requests made from here on are the test's.
    await page.getByRole('link', { name: 'Agents' }).click();
    const statsRequests: Request[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/stats') statsRequests.push(request);
    });
    const answerTo = (response: Response) => statsRequests.includes(response.request());
    // The Overview opened while the statistics' read of `calls` outlasts the database timeout and the
    // rollup is behind the period.
    await whileCallsLocked(db, '1970-01-01T00:00:00Z', async () => {
      const [answer] = await Promise.all([
        page.waitForResponse(answerTo, { timeout: 20_000 }),
        page.getByRole('link', { name: 'Overview' }).click(),
      ]);
      expect(answer.status()).toBe(503);
      expect(await answer.headerValue('retry-after')).toBe('60');

      const alert = page.getByRole('alert').filter({ hasText: 'not rolled up yet' });
      await expect.poll(() => alert.isVisible(), { timeout: 10_000 }).toBe(true);
      const retryAt = await alert.locator('.retrying time').getAttribute('datetime');
      const waitMs = Date.parse(retryAt ?? '') - (await page.evaluate(() => Date.now()));
      // The minute the answer asked for, from when the page had it.
      expect(waitMs).toBeGreaterThan(55_000);
      expect(waitMs).toBeLessThanOrEqual(60_000);
      expect(await alert.textContent()).toContain('Trying again by itself at');
      await screenshot(page, 'overview-catching-up-1280');
      await page.setViewportSize({ width: 390, height: 844 });
      await expectFits(page, 'the Overview while the statistics catch up, 390 px');
      await screenshot(page, 'overview-catching-up-390');
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    // Nothing is asked again before the time it said.
    await page.clock.runFor(30_000);
    expect(statsRequests).toHaveLength(1);

    // At that time the page asks once more, now answered, and shows the period (no call yet).
    const [again] = await Promise.all([page.waitForResponse(answerTo, { timeout: 20_000 }), page.clock.runFor(31_000)]);
    expect(again.status()).toBe(200);
    expect(again.url()).toBe(statsRequests[0]?.url());
    await expect.poll(() => page.getByText('not rolled up yet').count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => page.getByRole('region', { name: 'No calls yet' }).isVisible()).toBe(true);
    expect(statsRequests).toHaveLength(2);
  });
});
