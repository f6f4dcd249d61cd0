import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { expectAccessible, expectFits, haveBrowser, launchBrowser, screenshot } from './helpers/browser.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The dashboard's Overview (docs/interface.md#dashboard, decision 0043), in Chromium against a real server: calls
// placed by signed click-to-calls on simulator agents with real tools and webhooks, then the page's headline
// figures, charts and tables compared with GET /v1/stats asked with the very parameters the page sent.

/** The page's time zone: not the machine's UTC, so a page that forgot to send its own would be caught. */
const TIMEZONE = 'Europe/Paris';

let t: TestApp;
let browser: Browser;
let page: Page;
let org: Org;
/** The customer's endpoint: `/leads` answers 201, `/orders` 500 (a tool run that fails). */
let crm: Receiver;
/** The customer's webhooks: `/ok` answers 204, `/down` 500 (each attempt, so the delivery ends failed). */
let hooks: Receiver;
let sales: { id: string };
let support: { id: string };
let idle: { id: string };

async function api(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { headers: org.auth, body });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function placeCall(agentId: string) {
  const creds = await t.credentials(org, agentId);
  const response = await t.clickToCall({
    token: creds.apiToken,
    secret: creds.apiSecret,
    body: { phone: nextPhone(), variables: { name: 'Ada' } },
  });
  expect(response.status).toBe(200);
  return response.body.callId as string;
}

/**
 * Runs `action` and returns the stats request the page made because of it, and what the API answers
 * to that same request with the organization's key: the numbers the page must show.
 */
async function statsAfter(action: () => Promise<unknown>) {
  const [request] = await Promise.all([
    // Generous: a page load on two cores shared with other test files can take seconds.
    page.waitForRequest((r) => new URL(r.url()).pathname === '/v1/stats', { timeout: 20_000 }),
    action(),
  ]);
  const url = new URL(request.url());
  const stats = await api('GET', `${url.pathname}${url.search}`);
  return { params: url.searchParams, stats };
}

/** `50%`, `33.3%`: how the page writes a share. */
const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 1000) / 10}%`);
const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)} ms`);

function fact(group: string, label: string): Locator {
  return page
    .getByRole('region', { name: group, exact: true })
    .locator('dl.facts > div')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')
    .first();
}

const chart = (name: string) => page.getByRole('region', { name, exact: true });

/** A chart's data table as text: one array of cells per interval, the interval's name first. */
async function tableRows(chartName: string): Promise<string[][]> {
  const rows = chart(chartName).locator('table tbody tr');
  return rows.evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
  );
}

/** The headline and every chart's table say what `stats` says. */
async function expectPageShows(stats: any) {
  // Until the page has the answer to its latest request it shows the previous one, marked busy.
  await page.locator('.overview-results[aria-busy="false"]').waitFor();
  const { totals } = stats;
  await expect.poll(() => fact('Calls', 'Calls').textContent()).toBe(String(totals.calls));
  expect(await fact('Calls', 'Answered').textContent()).toBe(String(totals.results.answered));
  expect(await fact('Calls', 'No answer').textContent()).toBe(String(totals.results.noAnswer));
  expect(await fact('Calls', 'Busy').textContent()).toBe(String(totals.results.busy));
  expect(await fact('Calls', 'Voicemail').textContent()).toBe(String(totals.results.voicemail));
  expect(await fact('Calls', 'Failed').textContent()).toBe(String(totals.results.failed));
  expect(await fact('Calls', 'Under way').textContent()).toBe(String(totals.results.open));
  for (const [outcome, count] of Object.entries(totals.byOutcome)) {
    expect(await fact('Conversion', outcome).textContent()).toBe(
      `${percent(totals.conversion[outcome] ?? 0)} · ${count} ${count === 1 ? 'call' : 'calls'}`,
    );
  }
  expect(await fact('Tools', 'Runs').textContent()).toBe(String(totals.tools.runs));
  expect(await fact('Tools', 'Success rate').textContent()).toBe(percent(totals.tools.successRate));
  expect(await fact('Tools', 'p50 latency').textContent()).toBe(ms(totals.tools.p50LatencyMs));
  expect(await fact('Tools', 'p95 latency').textContent()).toBe(ms(totals.tools.p95LatencyMs));
  expect(await fact('Webhook deliveries', 'Delivered').textContent()).toBe(String(totals.deliveries.delivered));
  expect(await fact('Webhook deliveries', 'Failed').textContent()).toBe(String(totals.deliveries.failed));
  expect(await fact('Webhook deliveries', 'Pending').textContent()).toBe(String(totals.deliveries.pending));

  const per = stats.interval === 'hour' ? 'hour' : 'day';
  const outcomes = Object.keys(totals.byOutcome);
  const calls = await tableRows(`Calls per ${per}, by outcome`);
  expect(calls).toHaveLength(stats.intervals.length);
  const callHeaders = await chart(`Calls per ${per}, by outcome`).locator('table thead th').allTextContents();
  for (const [i, bucket] of stats.intervals.entries()) {
    expect(calls[i]?.[1]).toBe(String(bucket.calls));
    for (const outcome of outcomes) {
      expect(calls[i]?.[callHeaders.indexOf(outcome)]).toBe(String(bucket.byOutcome[outcome] ?? 0));
    }
  }
  const conversion = await tableRows('Conversion over time');
  const conversionHeaders = await chart('Conversion over time').locator('table thead th').allTextContents();
  for (const [i, bucket] of stats.intervals.entries()) {
    expect(conversion[i]?.[1]).toBe(String(bucket.results.answered));
    for (const outcome of outcomes) {
      expect(conversion[i]?.[conversionHeaders.indexOf(outcome)]).toBe(
        bucket.results.answered > 0 ? percent(bucket.conversion[outcome] ?? 0) : '—',
      );
    }
  }
  const tools = await tableRows('Tool latency and success');
  expect(tools).toEqual(
    stats.intervals.map((bucket: any, i: number) => [
      calls[i]?.[0],
      String(bucket.tools.runs),
      String(bucket.tools.succeeded),
      String(bucket.tools.failed),
      percent(bucket.tools.successRate),
      ms(bucket.tools.p50LatencyMs),
      ms(bucket.tools.p95LatencyMs),
    ]),
  );
  const deliveries = await tableRows('Delivery health');
  expect(deliveries).toEqual(
    stats.intervals.map((bucket: any, i: number) => [
      calls[i]?.[0],
      String(bucket.deliveries.delivered),
      String(bucket.deliveries.failed),
      String(bucket.deliveries.pending),
    ]),
  );
}

/** The four charts are drawn: each has a canvas of the chart's width, with pixels painted on it. */
async function expectChartsDrawn(viewportWidth: number) {
  const canvases = page.locator('.chart-canvas canvas');
  await expect.poll(() => canvases.count()).toBe(4);
  const drawn = await canvases.evaluateAll((elements) =>
    elements.map((element) => {
      const box = element.getBoundingClientRect();
      // A <canvas> (the test's TypeScript has no DOM types).
      const canvas = element as unknown as {
        width: number;
        height: number;
        getContext(kind: '2d'): {
          getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
        };
      };
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) painted++;
      return { width: box.width, height: box.height, right: box.right, painted };
    }),
  );
  for (const canvas of drawn) {
    expect(canvas.width).toBeGreaterThan(200);
    expect(canvas.height).toBeGreaterThan(100);
    expect(canvas.right).toBeLessThanOrEqual(viewportWidth);
    expect(canvas.painted).toBeGreaterThan(0);
  }
  for (const name of ['Calls per', 'Conversion over time', 'Tool latency and success', 'Delivery health']) {
    expect(await page.getByRole('img', { name: new RegExp(`^${name}`) }).count()).toBe(1);
  }
}

describe.runIf(haveBrowser)('the dashboard’s overview', () => {
  beforeAll(async () => {
    // Failed deliveries are retried at once, so they are failed for good within the test.
    t = await startTestApp({ SWITCHBOARD_RETRY_SCHEDULE: '0,0' });
    browser = await launchBrowser();
    org = await t.signup('Acme Overview');
    crm = await startReceiver((request, response) => {
      const ok = request.url.startsWith('/leads');
      response.writeHead(ok ? 201 : 500, { 'content-type': 'application/json' });
      response.end(JSON.stringify(ok ? { id: 'L-1' } : { error: 'down' }));
    });
    hooks = await startReceiver((request, response) => {
      response.writeHead(request.url.startsWith('/down') ? 500 : 204);
      response.end();
    });
    page = await browser.newPage({ timezoneId: TIMEZONE, viewport: { width: 1280, height: 900 } });
    await page.goto(t.url);
    await page.getByLabel('Email').fill(org.user.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Switchboard · Acme Overview').waitFor({ timeout: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await crm?.close();
    await hooks?.close();
    await t?.close();
  });

  it('tells a new organization how calls appear and where to place a test call, with no empty axes', async () => {
    await page.goto(`${t.url}/overview`);
    await expect.poll(() => page.getByText('No calls yet.').isVisible()).toBe(true);
    const start = page.getByRole('link', { name: 'creating an agent' });
    expect(await start.getAttribute('href')).toBe('/agents/new');
    expect(await page.locator('canvas').count()).toBe(0);
    await expectAccessible(page, 'the empty overview');

    // With an agent, the way to a first call is that agent's page.
    idle = await t.createAgent(org, { name: 'Idle agent' });
    await page.reload();
    const agentLink = page.getByRole('link', { name: 'Idle agent' });
    await expect.poll(() => agentLink.getAttribute('href')).toBe(`/agents/${idle.id}`);
    expect(await page.locator('canvas').count()).toBe(0);
    await screenshot(page, 'overview-empty');
  });

  it('shows the period’s results in figures, charts and tables that match GET /v1/stats, at 1280 and 390 px', async () => {
    const createLead = await api('POST', '/v1/tools', {
      name: 'create_lead',
      method: 'POST',
      url: `${crm.url}/leads`,
      parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true }],
    });
    const checkOrder = await api('POST', '/v1/tools', {
      name: 'check_order',
      method: 'POST',
      url: `${crm.url}/orders`,
      parameters: [{ name: 'order', location: 'body', type: 'string', fillMode: 'ai', required: true }],
    });
    sales = await t.createAgent(org, {
      name: 'Sales agent',
      toolIds: [createLead.id],
      simulator: {
        turns: [{ tool: 'create_lead', args: { email: 'ada@example.com' } }],
        outcome: { status: 'SOLD' },
        durationSeconds: 40,
      },
    });
    support = await t.createAgent(org, {
      name: 'Support agent',
      toolIds: [checkOrder.id],
      simulator: {
        turns: [{ tool: 'check_order', args: { order: 'A-1' } }],
        outcome: { status: 'NOT_INTERESTED' },
        durationSeconds: 20,
      },
    });
    const unanswered = await t.createAgent(org, { name: 'Unanswered agent', simulator: { answer: 'no_answer' } });
    await api('POST', `/v1/agents/${sales.id}/integrations`, { url: `${hooks.url}/ok` });
    await api('POST', `/v1/agents/${support.id}/integrations`, { url: `${hooks.url}/down` });

    const placed = [
      ...(await Promise.all([1, 2, 3].map(() => placeCall(sales.id)))),
      ...(await Promise.all([1, 2].map(() => placeCall(support.id)))),
      await placeCall(unanswered.id),
    ];
    // Ended, and each delivery settled (delivered, or failed after its retries).
    for (const id of placed) {
      await t.waitForCall(
        org,
        id,
        (call) => call.status === 'ended' && call.deliveries.every((d: any) => d.state !== 'pending'),
      );
    }

    const { params, stats } = await statsAfter(() => page.goto(`${t.url}/overview`));
    expect(params.get('timezone')).toBe(TIMEZONE);
    expect(params.get('interval')).toBe('day');
    expect(stats.intervals).toHaveLength(7);
    // What was placed, as the API counts it (the page must show these same numbers below).
    expect(stats.totals.calls).toBe(6);
    expect(stats.totals.byOutcome).toMatchObject({ SOLD: 3, NOT_INTERESTED: 2 });
    expect(stats.totals.results).toMatchObject({ answered: 5, noAnswer: 1, open: 0 });
    expect(stats.totals.tools).toMatchObject({ runs: 5, succeeded: 3, failed: 2 });
    expect(stats.totals.deliveries).toEqual({ delivered: 3, failed: 2, pending: 0 });

    await expectPageShows(stats);
    expect(await fact('Conversion', 'SOLD').textContent()).toBe('60% · 3 calls');
    expect(await fact('Duration', 'Average').textContent()).toBe(
      `${Math.round(stats.totals.duration.averageSeconds)} s`,
    );
    await expectChartsDrawn(1280);
    await expectFits(page, 'the overview at 1280 px');
    await expectAccessible(page, 'the overview');
    await screenshot(page, 'overview-data-1280');

    // On a phone's width the charts shrink with their cards (no reload: the page follows its size).
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() =>
        page
          .locator('.chart-canvas canvas')
          .first()
          .evaluate((c) => c.getBoundingClientRect().width),
      )
      .toBeLessThan(390);
    await expectChartsDrawn(390);
    await expectFits(page, 'the overview at 390 px');
    await expectAccessible(page, 'the overview at 390 px');
    await screenshot(page, 'overview-data-390');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('filters by agent and period through the address, and the numbers follow', async () => {
    await page.goto(`${t.url}/overview`);
    await expect.poll(() => fact('Calls', 'Calls').textContent()).toBe('6');

    let seen = await statsAfter(() => page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Sales agent' }));
    expect(new URL(page.url()).searchParams.get('agentId')).toBe(sales.id);
    expect(seen.params.get('agentId')).toBe(sales.id);
    expect(seen.stats.totals.calls).toBe(3);
    await expectPageShows(seen.stats);

    seen = await statsAfter(() => page.getByLabel('Today', { exact: true }).check());
    expect(page.url()).toBe(`${t.url}/overview?period=today&agentId=${sales.id}`);
    expect(seen.params.get('interval')).toBe('hour');
    expect(seen.stats.intervals.length).toBeGreaterThanOrEqual(23);
    await expectPageShows(seen.stats);

    seen = await statsAfter(() => page.getByLabel('30 days', { exact: true }).check());
    expect(page.url()).toBe(`${t.url}/overview?period=30d&agentId=${sales.id}`);
    expect(seen.stats.intervals).toHaveLength(30);
    await expectPageShows(seen.stats);

    // Custom: the last 30 days' dates to begin with, then a shorter range typed in.
    await page.getByLabel('Custom', { exact: true }).check();
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const to = await page.getByLabel('To', { exact: true }).inputValue();
    const from = new Date(`${to}T12:00:00Z`);
    from.setUTCDate(from.getUTCDate() - 2);
    const fromDay = from.toISOString().slice(0, 10);
    seen = await statsAfter(() => page.getByLabel('From', { exact: true }).fill(fromDay));
    expect(page.url()).toBe(`${t.url}/overview?from=${fromDay}&to=${to}&agentId=${sales.id}`);
    expect(seen.stats.intervals).toHaveLength(3);
    await expectPageShows(seen.stats);

    // The address alone shows the same view.
    seen = await statsAfter(() => page.reload());
    expect(seen.stats.intervals).toHaveLength(3);
    expect(await page.getByLabel('Custom', { exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(fromDay);
    expect(await page.getByLabel('Agent', { exact: true }).inputValue()).toBe(sales.id);
    await expectPageShows(seen.stats);

    // An agent without calls in the period: said in words, no empty charts.
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Idle agent' });
    await expect.poll(() => page.getByText('No calls in this period for this agent.').isVisible()).toBe(true);
    expect(await page.locator('canvas').count()).toBe(0);
    await page.getByRole('link', { name: 'Show all agents' }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/overview?from=${fromDay}&to=${to}`);
    await expect.poll(() => fact('Calls', 'Calls').textContent()).toBe('6');
  });

  it('leads from each chart to the calls it counts', async () => {
    const { stats } = await statsAfter(() => page.goto(`${t.url}/overview?agentId=${support.id}`));
    await expect.poll(() => fact('Calls', 'Calls').textContent()).toBe('2');

    // "View these calls": the period's calls of the agent.
    await chart('Delivery health').getByRole('link', { name: 'View these calls' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/calls');
    const period = new URL(page.url()).searchParams;
    expect(Object.fromEntries(period)).toEqual({ since: stats.from, until: stats.to, agentId: support.id });

    // An interval of the table: that day's calls.
    await page.goBack();
    const last = stats.intervals.length - 1;
    const calls = chart('Calls per day, by outcome');
    await calls.locator('summary').click();
    await calls.locator('tbody tr').nth(last).getByRole('link').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/calls');
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
      since: stats.intervals[last].start,
      until: stats.to,
      agentId: support.id,
    });

    // A click on the chart itself: the interval under the pointer.
    await page.goBack();
    const over = calls.locator('.u-over');
    await over.waitFor();
    const box = await over.boundingBox();
    if (!box) throw new Error('the chart has no plot area');
    const index = 2;
    await page.mouse.move(box.x + ((index + 0.5) / stats.intervals.length) * box.width, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.up();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/calls');
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
      since: stats.intervals[index].start,
      until: stats.intervals[index + 1].start,
      agentId: support.id,
    });
  });
});
