import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot } from './helpers/browser.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The dashboard's calls screens (docs/interface.md#dashboard), in Chromium against a real server: calls placed by
// signed click-to-calls on simulator agents, a tool and a webhook receiver that are real HTTP servers.

let t: TestApp;
let browser: Browser;
let page: Page;
let org: Org;
/** The customer's CRM, called by the `create_lead` tool during calls. */
let crm: Receiver;
/** The customer's webhook: the first attempt of each delivery gets 500, later ones 204 (the third after 1.5 s). */
let hooks: Receiver;

const CRM_SECRET = 'Bearer crm-secret-7';
const salesPhone = nextPhone();
let sales: { id: string };
let support: { id: string };
let integration: { id: string; url: string };
let salesCallId: string;

async function placeCall(agentId: string, phone = nextPhone(), variables: Record<string, string> = {}) {
  const creds = await t.credentials(org, agentId);
  const response = await t.clickToCall({ token: creds.apiToken, secret: creds.apiSecret, body: { phone, variables } });
  expect(response.status).toBe(200);
  return response.body.callId as string;
}

async function api(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { headers: org.auth, body });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const callRows = () => page.getByRole('table', { name: 'Calls' }).locator('tbody tr');
const fact = (label: string) =>
  page
    .locator('dl.facts > div')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')
    .first();

/** The requests the page makes to the calls API while `during` runs. */
async function callsRequestsDuring(during: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (request: { url(): string }) => {
    if (new URL(request.url()).pathname.startsWith('/v1/calls')) seen.push(request.url());
  };
  page.on('request', listen);
  try {
    await during();
  } finally {
    page.off('request', listen);
  }
  return seen;
}
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.runIf(haveBrowser)('the dashboard’s calls', () => {
  beforeAll(async () => {
    // Retries one second apart: the webhook's failed first attempt is retried within the test.
    t = await startTestApp({ SWITCHBOARD_RETRY_SCHEDULE: '1,1,1' });
    browser = await launchBrowser();
    org = await t.signup('Acme Calls');
    crm = await startReceiver((request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'L-7', path: request.url }));
    });
    const attemptsById = new Map<string, number>();
    hooks = await startReceiver((request, response) => {
      const webhookId = String(request.headers['webhook-id']);
      const attempt = (attemptsById.get(webhookId) ?? 0) + 1;
      attemptsById.set(webhookId, attempt);
      if (attempt === 1) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end('not ready yet');
        return;
      }
      // Later attempts (a retry by hand) answer slowly, so the page shows the delivery pending first.
      setTimeout(
        () => {
          response.writeHead(204);
          response.end();
        },
        attempt === 2 ? 0 : 1500,
      );
    });

    // Signed up through the API (its key drives the data); the browser logs in through the form.
    page = await browser.newPage();
    await page.goto(t.url);
    await page.getByLabel('Email').fill(org.user.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Switchboard · Acme Calls').waitFor({ timeout: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await crm?.close();
    await hooks?.close();
    await t?.close();
  });

  it('explains how calls appear while there are none', async () => {
    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    await expect.poll(() => page.getByText('No calls yet.').isVisible()).toBe(true);
    const empty = await page.locator('.empty').textContent();
    expect(empty).toContain('/api/click-to-call');
    expect(empty).toContain('Test call');
    await screenshot(page, 'calls-01-list-empty');
  });

  it('lists calls 25 a page, filtered by status and agent through the address (reload and back keep them)', async () => {
    const tool = await api('POST', '/v1/tools', {
      name: 'create_lead',
      method: 'POST',
      url: `${crm.url}/leads`,
      headers: [{ key: 'Authorization', mode: 'fixed', value: CRM_SECRET }],
      parameters: [
        { name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true },
        { name: 'name', location: 'body', type: 'string', fillMode: 'variable', value: '{{name}}' },
      ],
      variables: [{ name: 'name' }],
    });
    sales = await t.createAgent(org, {
      name: 'Sales agent',
      firstMessage: 'Hi {{name}}',
      toolIds: [tool.id],
      simulator: {
        turns: [
          { role: 'user', text: 'My email is ada@example.com' },
          { tool: 'create_lead', args: { email: 'ada@example.com' } },
          { role: 'agent', text: 'Your lead is {{tool.create_lead.id}}.' },
        ],
        outcome: { status: 'SOLD', collectedData: { email: 'ada@example.com', plan: 'pro' } },
        durationSeconds: 42,
      },
    });
    integration = await api('POST', `/v1/agents/${sales.id}/integrations`, { url: `${hooks.url}/hooks` });
    support = await t.createAgent(org, { name: 'Support agent' });

    // The sales call first: newest come first, so with 25 support calls after it, it is on page 2.
    salesCallId = await placeCall(sales.id, salesPhone, { name: 'Ada' });
    const supportCalls: string[] = [];
    for (let i = 0; i < 25; i++) supportCalls.push(await placeCall(support.id));
    for (const id of supportCalls) await t.waitForCall(org, id);
    await t.waitForCall(org, salesCallId, (call) => call.deliveries[0]?.state === 'delivered');

    await page.reload();
    await expect.poll(() => callRows().count()).toBe(25);
    await expect.poll(() => callRows().first().textContent()).toContain('Support agent');
    expect(await page.getByText(salesPhone).count()).toBe(0);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.getByText('Page 2').isVisible()).toBe(true);
    await expect.poll(() => callRows().count()).toBe(1);
    const salesRow = await callRows().first().textContent();
    for (const text of [salesPhone, 'Sales agent', 'ended', 'SOLD', '42 s', '1 delivered']) {
      expect(salesRow).toContain(text);
    }

    // A filter starts again at page 1, and is in the address.
    await page.getByLabel('Agent').selectOption({ label: 'Support agent' });
    await expect.poll(() => new URL(page.url()).searchParams.get('agentId')).toBe(support.id);
    await expect.poll(() => callRows().count()).toBe(25);
    expect(await page.getByText('Page 2').count()).toBe(0);
    expect(await page.getByText(salesPhone).count()).toBe(0);

    await page.getByLabel('Agent').selectOption({ label: 'Sales agent' });
    await page.getByLabel('Status').selectOption('ended');
    await expect.poll(() => page.url()).toBe(`${t.url}/calls?agentId=${sales.id}&status=ended`);
    await expect.poll(() => callRows().count()).toBe(1);
    await expect.poll(() => callRows().first().textContent()).toContain(salesPhone);
    await screenshot(page, 'calls-02-list');

    await page.getByLabel('Status').selectOption('queued');
    await expect.poll(() => page.getByText('No calls match these filters.').isVisible()).toBe(true);
    expect(await callRows().count()).toBe(0);

    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${t.url}/calls?agentId=${sales.id}&status=ended`);
    await expect.poll(() => callRows().count()).toBe(1);
    expect(await page.getByLabel('Status').inputValue()).toBe('ended');
    await page.reload();
    await expect.poll(() => callRows().count()).toBe(1);
    expect(await page.getByLabel('Agent').inputValue()).toBe(sales.id);
    expect(await page.getByLabel('Status').inputValue()).toBe('ended');

    await page.getByLabel('Status').selectOption('queued');
    await page.getByRole('button', { name: 'Show all calls' }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/calls`);
    await expect.poll(() => callRows().count()).toBe(25);
  });

  it('shows a call: facts, transcript, the tool’s real request and response, collected data, the delivery’s attempts', async () => {
    await page.goto(`${t.url}/calls?agentId=${sales.id}`);
    await expect.poll(() => callRows().count()).toBe(1);
    await callRows().first().getByRole('link').click();
    await expect.poll(() => page.url()).toBe(`${t.url}/calls/${salesCallId}`);

    await expect.poll(() => fact('Outcome').textContent()).toBe('SOLD');
    expect(await fact('To').textContent()).toBe(salesPhone);
    expect(await fact('Status').textContent()).toBe('ended');
    expect(await fact('Duration').textContent()).toBe('42 s');
    expect(await fact('Provider').textContent()).toBe('simulator');
    expect(await fact('Provider call id').textContent()).toMatch(/\S/);
    const agentLink = fact('Agent').getByRole('link');
    await expect.poll(() => agentLink.textContent()).toBe('Sales agent');
    expect(await agentLink.getAttribute('href')).toBe(`/agents/${sales.id}`);

    const turns = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => turns.count()).toBe(4);
    expect(await turns.nth(0).textContent()).toMatch(/^Agent.*Hi Ada$/);
    expect(await turns.nth(1).textContent()).toMatch(/^User.*My email is ada@example\.com$/);
    expect(await turns.nth(2).textContent()).toMatch(/^Tool create_lead.*"id": "L-7"/s);
    expect(await turns.nth(3).textContent()).toMatch(/^Agent.*Your lead is L-7\.$/);

    const collected = page.getByRole('table', { name: 'Collected data' });
    expect(await collected.getByRole('row', { name: /email/ }).textContent()).toBe('emailada@example.com');
    expect(await collected.getByRole('row', { name: /plan/ }).textContent()).toBe('planpro');
    expect(await page.getByRole('table', { name: 'Variables' }).textContent()).toBe('nameAda');

    // The request the CRM really received, and what it answered.
    expect(crm.requests).toHaveLength(1);
    const received = crm.requests[0]!;
    const invocation = page.getByRole('article', { name: 'Tool invocation create_lead' });
    await expect.poll(() => invocation.textContent()).toMatch(/\d+ ms/);
    const request = invocation.locator('details', { hasText: 'Request' });
    expect(await request.getByText(received.body, { exact: true }).isVisible()).toBe(false);
    await request.locator('summary').click();
    expect(await request.getByText(`${crm.url}${received.url}`, { exact: true }).isVisible()).toBe(true);
    expect(await request.getByText(received.body, { exact: true }).isVisible()).toBe(true);
    expect(await request.textContent()).toContain('POST');
    // Secret header values are shown masked, never as sent.
    expect(received.headers.authorization).toBe(CRM_SECRET);
    expect(await request.getByRole('row', { name: /authorization/i }).textContent()).toMatch(/Bearer/);
    expect(await page.content()).not.toContain('crm-secret-7');
    const response = invocation.locator('details', { hasText: 'Response' });
    await response.locator('summary').click();
    expect(await response.textContent()).toContain('HTTP status 201');
    expect(await response.getByText(JSON.stringify({ id: 'L-7', path: '/leads' })).isVisible()).toBe(true);

    const delivery = page.getByRole('article', { name: /^Delivery / });
    await expect.poll(() => delivery.getByText(`${hooks.url}/hooks`).isVisible()).toBe(true);
    expect(await delivery.locator('.badge').first().textContent()).toBe('delivered');
    const webhookId = String(hooks.requests[0]?.headers['webhook-id']);
    expect(await delivery.textContent()).toContain(webhookId);
    const attempts = delivery.getByRole('table', { name: 'Attempts' }).locator('tbody tr');
    expect(await attempts.count()).toBe(2);
    expect(await attempts.nth(0).textContent()).toMatch(/^1.*500.*not ready yet$/);
    expect(await attempts.nth(1).textContent()).toMatch(/^2.*204/);
    await screenshot(page, 'calls-03-detail');

    // Settled: nothing left to follow, so the page stops asking.
    expect(await page.getByRole('status', { name: /^Live/ }).count()).toBe(0);
    expect(await callsRequestsDuring(() => pause(2500))).toEqual([]);
  });

  it('retries a delivered delivery by hand: the new attempt arrives with the same webhook-id; a refusal is said', async () => {
    await page.goto(`${t.url}/calls/${salesCallId}`);
    const delivery = page.getByRole('article', { name: /^Delivery / });
    const attempts = delivery.getByRole('table', { name: 'Attempts' }).locator('tbody tr');
    await expect.poll(() => attempts.count()).toBe(2);
    const webhookId = String(hooks.requests[0]?.headers['webhook-id']);
    expect(hooks.requests).toHaveLength(2);

    await delivery.getByRole('button', { name: 'Retry' }).click();
    await expect
      .poll(() => delivery.getByRole('status').textContent())
      .toBe('Sent again with the same webhook-id: waiting for the attempt…');
    // The page reads the delivery again after the retry is accepted: pending until the late answer.
    await expect.poll(() => delivery.locator('.badge').first().textContent()).toBe('pending');
    expect(await page.getByRole('status', { name: 'Live: this call updates by itself' }).isVisible()).toBe(true);
    // The attempt's answer comes 1.5 s later: only the page's own polling can show it.
    await expect
      .poll(() => delivery.getByRole('status').textContent())
      .toBe('Sent again with the same webhook-id: attempt 3 is below.');
    expect(await attempts.count()).toBe(3);
    expect(await attempts.nth(2).textContent()).toMatch(/^3.*204/);
    await expect.poll(() => delivery.locator('.badge').first().textContent()).toBe('delivered');
    expect(hooks.requests).toHaveLength(3);
    expect(hooks.requests.map((r) => r.headers['webhook-id'])).toEqual([webhookId, webhookId, webhookId]);
    await screenshot(page, 'calls-04-delivery-retried');

    // The API refuses a retry to a disabled integration (409): its message shows, nothing is sent.
    await api('PATCH', `/v1/integrations/${integration.id}`, { enabled: false });
    await delivery.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => delivery.getByRole('alert').textContent()).toContain('The integration is disabled');
    expect(hooks.requests).toHaveLength(3);
    expect(await attempts.count()).toBe(3);
    await api('PATCH', `/v1/integrations/${integration.id}`, { enabled: true });
  });

  it('follows calls under way, in the list and on the call, without reloading; stops asking once they end or the page is left', async () => {
    const live = await t.createAgent(org, {
      name: 'Live agent',
      firstMessage: 'Hello from the live agent',
      simulator: {
        turns: [
          { role: 'user', text: 'Who is this?' },
          { role: 'agent', text: 'Thanks, bye' },
        ],
        delayMs: 4000,
      },
    });
    // A mark on the window: still there at the end means the page was never reloaded.
    const markPage = () => page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    const stillMarked = () => page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded);

    // The list follows its unfinished call.
    await placeCall(live.id);
    await page.goto(`${t.url}/calls?agentId=${live.id}`);
    await markPage();
    await expect.poll(() => callRows().first().locator('.badge').textContent()).toBe('in_progress');
    expect(await page.getByRole('status', { name: 'Live: this list updates by itself' }).isVisible()).toBe(true);
    await expect.poll(() => callRows().first().locator('.badge').textContent()).toBe('ended');
    await expect.poll(() => page.getByRole('status', { name: /^Live/ }).count()).toBe(0);
    expect(await stillMarked()).toBe(true);
    expect(await callsRequestsDuring(() => pause(2500))).toEqual([]);

    // The call page follows it from the start to its end, transcript included.
    const liveCallId = await placeCall(live.id);
    await page.goto(`${t.url}/calls/${liveCallId}`);
    await markPage();
    await expect.poll(() => fact('Status').textContent()).toBe('in_progress');
    expect(await page.getByRole('status', { name: 'Live: this call updates by itself' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Who is this?').isVisible()).toBe(true);
    await expect.poll(() => fact('Status').textContent()).toBe('ended');
    await expect.poll(() => page.getByText('Thanks, bye').isVisible()).toBe(true);
    expect(await fact('Outcome').textContent()).toBe('COMPLETED');
    expect(await page.getByRole('status', { name: /^Live/ }).count()).toBe(0);
    expect(await stillMarked()).toBe(true);
    expect(await callsRequestsDuring(() => pause(2500))).toEqual([]);

    // Leaving a live call's page stops its polling.
    const leftCallId = await placeCall(live.id);
    await page.goto(`${t.url}/calls/${leftCallId}`);
    await expect.poll(() => page.getByRole('status', { name: /^Live/ }).isVisible()).toBe(true);
    const whileOpen = await callsRequestsDuring(() => pause(2500));
    expect(whileOpen.length).toBeGreaterThanOrEqual(1);
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/agents`);
    expect(await callsRequestsDuring(() => pause(2500))).toEqual([]);
  }, 60_000);

  it('says so when a call does not exist, with a way back to the list', async () => {
    await page.goto(`${t.url}/calls/call_does_not_exist`);
    await expect.poll(() => page.getByRole('heading', { name: 'Call not found' }).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Back to the calls' }).click();
    await expect.poll(() => page.url()).toBe(`${t.url}/calls`);
    await expect.poll(() => callRows().count()).toBe(25);
  });
});
