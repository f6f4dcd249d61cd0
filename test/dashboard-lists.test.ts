import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { expectAccessible, expectFits, haveBrowser, launchBrowser, screenshot } from './helpers/browser.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The dashboard's lists (docs/interface.md#dashboard, decision 0045), in Chromium against a real server: the
// calls list's filters, total, sort and CSV export, every filter kept in the page's address under the API's own
// names; the agents' and tools' totals and their page in the address. The calls are played by the simulator:
// outbound through signed click-to-calls, inbound through POST /v1/agents/:id/simulate-inbound.

let t: TestApp;
let browser: Browser;
let page: Page;
let org: Org;

let sales: { id: string };
let callback: { id: string };
let desk: { id: string };
/** The sales agent's webhook (answers 204) and the callback agent's (answers 500: its deliveries stay pending). */
let hooks: Receiver;
let salesHook: { id: string; url: string };
let callbackHook: { id: string; url: string };
const CALLBACK_CALLS = 26;
const INBOUND_FROM = '+12125550147';
/** Every call, as GET /v1/calls lists it (newest first). */
let everyCall: any[];

async function api(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { headers: org.auth, body });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function placeCall(agentId: string, phone = nextPhone()) {
  const creds = await t.credentials(org, agentId);
  const response = await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone } });
  expect(response.status).toBe(200);
  return response.body.callId as string;
}

/** A scenario that ends at once with `status` after `durationSeconds`. */
const scenario = (status: string, durationSeconds: number) => ({
  turns: [{ role: 'user', text: 'Hello?' }],
  outcome: { status },
  durationSeconds,
});

const callRows = () => page.getByRole('table', { name: 'Calls' }).locator('tbody tr');
const totalText = () => page.locator('.list-total').textContent();
const query = () => Object.fromEntries(new URL(page.url()).searchParams);
/** The numbers of the rows shown, in order. */
const shownNumbers = () => callRows().locator('td[data-label="Number"]').allTextContents();

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

describe.runIf(haveBrowser)('the dashboard’s lists', () => {
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    org = await t.signup('Acme Lists');

    sales = await t.createAgent(org, {
      name: 'Sales agent',
      outcomes: ['SOLD', 'NOT_INTERESTED'],
      simulator: scenario('SOLD', 42),
    });
    callback = await t.createAgent(org, { name: 'Callback agent', simulator: scenario('CALLBACK', 7) });
    desk = await t.createAgent(org, {
      name: 'Front desk',
      type: 'inbound',
      prompt: 'Take the caller’s details.',
      firstMessage: 'Hello, front desk.',
      simulator: scenario('INTERESTED', 90),
    });
    hooks = await startReceiver((request, response) => {
      response.writeHead(request.url === '/sales' ? 204 : 500);
      response.end();
    });
    salesHook = await api('POST', `/v1/agents/${sales.id}/integrations`, { url: `${hooks.url}/sales` });
    callbackHook = await api('POST', `/v1/agents/${callback.id}/integrations`, { url: `${hooks.url}/callback` });
    await api('POST', '/v1/tools', {
      name: 'create_lead',
      method: 'POST',
      url: 'https://crm.example.com/leads',
      parameters: [{ name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true }],
    });

    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push(await placeCall(sales.id));
    for (let i = 0; i < CALLBACK_CALLS; i++) ids.push(await placeCall(callback.id));
    ids.push((await api('POST', `/v1/agents/${desk.id}/simulate-inbound`, { from: INBOUND_FROM })).id);
    // Each call ended, and each of its deliveries attempted once.
    for (const id of ids)
      await t.waitForCall(
        org,
        id,
        (call) => call.status === 'ended' && call.deliveries.every((d: any) => d.attemptCount > 0),
      );
    everyCall = (await api('GET', '/v1/calls?limit=100')).data;
    expect(everyCall).toHaveLength(ids.length);

    page = await browser.newPage();
    // A control that never appears fails its step, named, before the test's own time runs out.
    page.setDefaultTimeout(10_000);
    await page.goto(t.url);
    await page.getByLabel('Email').fill(org.user.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Switchboard · Acme Lists').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await hooks?.close();
    await t?.close();
  });

  it('says how many calls the filters match, as GET /v1/calls counts them', async () => {
    await page.goto(`${t.url}/calls`);
    const all = await api('GET', '/v1/calls');
    expect(all.total).toBe(everyCall.length);
    await expect.poll(totalText).toBe(`${all.total} calls`);
    expect(await callRows().count()).toBe(25);

    await page.getByLabel('Agent').selectOption({ label: 'Sales agent' });
    await expect.poll(query).toEqual({ agentId: sales.id });
    await expect.poll(totalText).toBe('2 calls match these filters');
    expect((await api('GET', `/v1/calls?agentId=${sales.id}`)).total).toBe(2);
    expect(await callRows().count()).toBe(2);
    // The chosen agent's outcomes are offered; any other text still filters.
    const offered = await page
      .locator('datalist option')
      .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
    expect(offered).toEqual(['SOLD', 'NOT_INTERESTED']);
  });

  it('narrows the table and the address with each filter; a reload shows the same view', async () => {
    await page.goto(`${t.url}/calls`);
    await expect.poll(() => callRows().count()).toBe(25);

    // Outcome: typed, applied on Enter.
    await page.getByLabel('Outcome').fill('CALLBACK');
    await page.getByLabel('Outcome').press('Enter');
    await expect.poll(query).toEqual({ outcome: 'CALLBACK' });
    await expect.poll(totalText).toBe(`${CALLBACK_CALLS} calls match these filters`);
    expect(await callRows().locator('td[data-label="Outcome"]').allTextContents()).toEqual(Array(25).fill('CALLBACK'));

    // Paging keeps the filters, and the page is in the address too: a reload shows the same page.
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.getByText('Page 2').isVisible()).toBe(true);
    await expect.poll(() => callRows().count()).toBe(1);
    expect(query().outcome).toBe('CALLBACK');
    expect(query().cursor).toBeTruthy();
    const lastCallback = await shownNumbers();
    await page.reload();
    await expect.poll(shownNumbers).toEqual(lastCallback);
    expect(await page.getByLabel('Outcome').inputValue()).toBe('CALLBACK');
    expect(await page.getByText('Page 2').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => callRows().count()).toBe(25);
    expect(query()).toEqual({ outcome: 'CALLBACK' });

    // Direction: inbound is the desk's one call, its number the caller's.
    await page.getByLabel('Outcome').fill('');
    await page.getByLabel('Outcome').press('Enter');
    await page.getByLabel('Direction').selectOption('inbound');
    await expect.poll(query).toEqual({ direction: 'inbound' });
    await expect.poll(shownNumbers).toEqual([INBOUND_FROM]);
    await expect.poll(totalText).toBe('1 call matches these filters');

    // Number: a prefix of the number called or calling.
    await page.getByLabel('Direction').selectOption('');
    const salesNumbers = everyCall.filter((call) => call.agentId === sales.id).map((call) => call.to as string);
    await page.getByLabel('Number starts with').fill(salesNumbers[0]!.slice(0, -1));
    await page.getByLabel('Number starts with').press('Enter');
    await expect.poll(() => query().phone).toBe(salesNumbers[0]!.slice(0, -1));
    await expect.poll(shownNumbers).toContain(salesNumbers[0]);
    for (const number of await shownNumbers()) expect(number.startsWith(salesNumbers[0]!.slice(0, -1))).toBe(true);
    await page.getByLabel('Number starts with').fill('+1212');
    await page.getByLabel('Number starts with').press('Enter');
    await expect.poll(shownNumbers).toEqual([INBOUND_FROM]);

    // Agent and status together with the number: nothing; "Show all calls" clears every filter.
    await page.getByLabel('Agent').selectOption({ label: 'Sales agent' });
    await expect.poll(query).toEqual({ agentId: sales.id, phone: '+1212' });
    await expect.poll(() => page.getByText('No calls match these filters.').isVisible()).toBe(true);
    await page.reload();
    await expect.poll(() => page.getByText('No calls match these filters.').isVisible()).toBe(true);
    expect(await page.getByLabel('Agent').inputValue()).toBe(sales.id);
    expect(await page.getByLabel('Number starts with').inputValue()).toBe('+1212');
    await page.getByRole('button', { name: 'Show all calls' }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/calls`);
    await expect.poll(() => callRows().count()).toBe(25);
    expect(await page.getByLabel('Number starts with').inputValue()).toBe('');

    // A period from a link (the Overview's charts link here): the exact instants in the address, shown
    // as local date and time; a period in the future has no calls; "Clear filters" shows them all again.
    const oldest = everyCall.at(-1);
    const newest = everyCall[0];
    const until = new Date(Date.parse(newest.createdAt) + 1).toISOString();
    await page.goto(`${t.url}/calls?agentId=${sales.id}&since=${oldest.createdAt}&until=${until}`);
    await expect.poll(totalText).toBe('2 calls match these filters');
    const local = (iso: string) => {
      const d = new Date(iso);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
    };
    expect((await page.getByLabel('From').inputValue()).slice(0, 16)).toBe(local(oldest.createdAt));
    await page.getByLabel('Until').fill('');
    await page.getByLabel('Until').press('Enter');
    await expect.poll(query).toEqual({ agentId: sales.id, since: oldest.createdAt });
    const nextYear = new Date(Date.now() + 365 * 24 * 3600_000);
    nextYear.setSeconds(0, 0);
    await page.getByLabel('From').fill(local(nextYear.toISOString()));
    await page.getByLabel('From').press('Enter');
    await expect.poll(query).toEqual({ agentId: sales.id, since: nextYear.toISOString() });
    await expect.poll(() => page.getByText('No calls match these filters.').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/calls`);
    await expect.poll(totalText).toBe(`${everyCall.length} calls`);
    expect(await page.getByLabel('From').inputValue()).toBe('');
  });

  it('sorts by duration and by date from the column headers, the sort in the address', async () => {
    await page.goto(`${t.url}/calls`);
    const date = page.getByRole('columnheader', { name: /Date/ });
    const duration = page.getByRole('columnheader', { name: /Duration/ });
    await expect.poll(() => date.getAttribute('aria-sort')).toBe('descending');
    expect(await duration.getAttribute('aria-sort')).toBe('none');
    await expect
      .poll(shownNumbers)
      .toEqual(everyCall.slice(0, 25).map((call) => (call.direction === 'inbound' ? call.from : call.to)));

    await duration.getByRole('button').click();
    await expect.poll(query).toEqual({ sort: '-durationSeconds' });
    await expect.poll(() => duration.getAttribute('aria-sort')).toBe('descending');
    expect(await date.getAttribute('aria-sort')).toBe('none');
    const longestFirst = () => callRows().locator('td[data-label="Duration"]').allTextContents();
    await expect.poll(async () => (await longestFirst()).slice(0, 4)).toEqual(['1 min 30 s', '42 s', '42 s', '7 s']);

    await duration.getByRole('button').click();
    await expect.poll(query).toEqual({ sort: 'durationSeconds' });
    await expect.poll(() => duration.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(async () => (await longestFirst())[0]).toBe('7 s');
    // A filter keeps the sort, a reload keeps both.
    await page.getByLabel('Agent').selectOption({ label: 'Sales agent' });
    await expect.poll(query).toEqual({ agentId: sales.id, sort: 'durationSeconds' });
    await page.reload();
    await expect.poll(longestFirst).toEqual(['42 s', '42 s']);
    expect(await page.getByLabel('Sort').inputValue()).toBe('durationSeconds');

    // The Sort field does the same on a phone, where the rows stack without their headers.
    await page.getByLabel('Sort').selectOption({ label: 'Oldest first' });
    await expect.poll(query).toEqual({ agentId: sales.id, sort: 'createdAt' });
    await expect.poll(() => date.getAttribute('aria-sort')).toBe('ascending');
    await date.getByRole('button').click();
    await expect.poll(query).toEqual({ agentId: sales.id });
  });

  it('exports the filtered calls as CSV through a link that carries the filters', async () => {
    await page.goto(`${t.url}/calls?outcome=CALLBACK&sort=-durationSeconds`);
    await expect.poll(totalText).toBe(`${CALLBACK_CALLS} calls match these filters`);
    const link = page.getByRole('link', { name: 'Export CSV' });
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toBe('/v1/calls/export.csv?outcome=CALLBACK&sort=-durationSeconds');
    expect(await link.getAttribute('download')).not.toBeNull();

    // The session cookie is enough: the browser's own request, as the link makes it.
    const response = await page.request.get(`${t.url}${href}`);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toMatch(/^text\/csv/);
    const [header, ...rows] = parseCsv((await response.text()).replace(/^\uFEFF/, '')).filter((row) =>
      row.some((cell) => cell !== ''),
    );
    const column = (name: string) => header!.indexOf(name);
    expect(column('id')).toBeGreaterThanOrEqual(0);
    expect(rows).toHaveLength(CALLBACK_CALLS);
    expect(new Set(rows.map((row) => row[column('outcome')]))).toEqual(new Set(['CALLBACK']));
    const expected = everyCall.filter((call) => call.outcome === 'CALLBACK').map((call) => call.id);
    expect(rows.map((row) => row[column('id')]).sort()).toEqual([...expected].sort());

    // Another filter, another link.
    await page.getByLabel('Agent').selectOption({ label: 'Sales agent' });
    await expect
      .poll(() => link.getAttribute('href'))
      .toBe(`/v1/calls/export.csv?agentId=${sales.id}&outcome=CALLBACK&sort=-durationSeconds`);
  });

  it('fits a phone’s width, and passes axe', async () => {
    await page.goto(`${t.url}/calls?agentId=${sales.id}`);
    await expect.poll(() => callRows().count()).toBe(2);
    await expectAccessible(page, 'the calls list');
    await screenshot(page, 'calls-list-filters-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await expect.poll(() => callRows().count()).toBe(2);
      await expectFits(page, 'the calls list');
      // The sort stays in reach with the headers hidden.
      expect(await page.getByLabel('Sort').isVisible()).toBe(true);
      await screenshot(page, 'calls-list-filters-390');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows how many agents and tools there are, and keeps the page of the list in the address', async () => {
    // 26 agents: two pages.
    for (let i = 4; i <= 26; i++) await t.createAgent(org, { name: `Agent ${String(i).padStart(2, '0')}` });
    const agents = await api('GET', '/v1/agents');
    expect(agents.total).toBe(26);

    await page.goto(`${t.url}/agents`);
    await expect.poll(totalText).toBe('26 agents');
    const agentRows = page.locator('table tbody tr');
    await expect.poll(() => agentRows.count()).toBe(25);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => agentRows.count()).toBe(1);
    const cursor = query().cursor;
    expect(cursor).toBeTruthy();
    const lastAgent = await agentRows.first().textContent();
    expect(lastAgent).toContain('Sales agent');

    // The link alone shows the same page; with no history behind it, Previous leads to the first page.
    // A new page of its own, signed in with the same session.
    const other = await browser.newPage({ storageState: await page.context().storageState() });
    try {
      await other.goto(page.url());
      await expect.poll(() => other.locator('table tbody tr').count()).toBe(1);
      expect(await other.locator('table tbody tr').first().textContent()).toBe(lastAgent);
      expect(await other.locator('.list-total').textContent()).toBe('26 agents');
      await other.getByRole('button', { name: 'Previous' }).click();
      await expect.poll(() => other.url()).toBe(`${t.url}/agents`);
      await expect.poll(() => other.locator('table tbody tr').count()).toBe(25);
    } finally {
      await other.close();
    }
    // Back, in the first tab, returns to the first page.
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${t.url}/agents`);
    await expect.poll(() => agentRows.count()).toBe(25);

    await page.goto(`${t.url}/tools`);
    await expect.poll(totalText).toBe('1 tool');
    expect((await api('GET', '/v1/tools')).total).toBe(1);
  });

  it('lists the deliveries with their total, filtered by state and webhook through the address', async () => {
    const all = await api('GET', '/v1/deliveries');
    expect(all.total).toBe(2 + CALLBACK_CALLS);

    // Each webhook links to its own delivery log.
    await page.goto(`${t.url}/agents/${sales.id}?tab=webhooks`);
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await expect.poll(query).toEqual({ integrationId: salesHook.id });
    await expect.poll(totalText).toBe('2 deliveries');
    expect(await page.getByText(`${hooks.url}/sales`).count()).toBeGreaterThanOrEqual(1);

    await page.goto(`${t.url}/deliveries`);
    await expect.poll(totalText).toBe(`${all.total} deliveries`);
    const rows = page.locator('table tbody tr');
    expect(await rows.count()).toBe(25);
    await page.getByLabel('State').selectOption('delivered');
    await expect.poll(query).toEqual({ state: 'delivered' });
    await expect.poll(totalText).toBe('2 deliveries');
    expect((await api('GET', '/v1/deliveries?state=delivered')).total).toBe(2);
    expect(await rows.locator('td[data-label="Last answer"]').allTextContents()).toEqual(['204', '204']);

    // The callback webhook's deliveries: pending after a 500, over two pages; the page is in the address.
    await page.goto(`${t.url}/deliveries?integrationId=${callbackHook.id}&state=pending`);
    await expect.poll(totalText).toBe(`${CALLBACK_CALLS} deliveries`);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(query()).toMatchObject({ integrationId: callbackHook.id, state: 'pending' });
    expect(query().cursor).toBeTruthy();
    await page.reload();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('500');
    expect(await page.getByLabel('State').inputValue()).toBe('pending');
    await page.getByRole('button', { name: 'Every webhook' }).click();
    await expect.poll(query).toEqual({ state: 'pending' });
    await expect.poll(totalText).toBe(`${CALLBACK_CALLS} deliveries`);
    await screenshot(page, 'deliveries-list-1280');
  });

  // Last in the file: the 10,001 rows below change every total after them.
  it('says "10,000+ deliveries" when the log counts past its cap (decision 0053), at a phone’s width too', async () => {
    // 10,001 ended calls of the sales agent, each with a delivered outcome: two statements.
    await t.db.database.db.execute(sql`
      insert into calls (id, organization_id, agent_id, provider, direction, to_number, status, variables,
        collected_data, transcript, created_at, deadline_at)
      select 'call_uicap' || lpad(i::text, 16, '0'), ${org.organization.id}, ${sales.id}, 'simulator', 'outbound',
        '+1415557' || lpad(i::text, 4, '0'), 'ended', '{}', '{}', '[]', now() - interval '1 day', now()
      from generate_series(1, 10001) i`);
    await t.db.database.db.execute(sql`
      insert into deliveries (id, organization_id, integration_id, call_id, webhook_id, state, next_attempt_at)
      select 'dlv_uicap' || lpad(i::text, 17, '0'), ${org.organization.id}, ${salesHook.id},
        'call_uicap' || lpad(i::text, 16, '0'), 'msg_uicap' || lpad(i::text, 17, '0'), 'delivered', null
      from generate_series(1, 10001) i`);
    const capped = /^10[,.\u00a0\u202f]?000\+ deliveries$/;
    await page.goto(`${t.url}/deliveries`);
    await expect.poll(totalText).toMatch(capped);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await expect.poll(totalText).toMatch(capped);
      await expectFits(page, 'the delivery log past its cap');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 60_000);
});
