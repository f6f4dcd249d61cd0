import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import { expectFits, haveBrowser, launchBrowser, screenshot, tabTo } from './helpers/browser.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The dashboard's shell at any width (issue 18 §3, decision 0044): the landing page, the header and its menu on a
// phone, every page within 390 px, the agent page's tabs, the way back from each detail page, the favicon, the
// tool Test panel after a failed run and the simulator's tool picker. In Chromium, against a real server.

let t: TestApp;
let browser: Browser;
let org: Org;
/** The customer's endpoint the tools call: always 200 with a small JSON body. */
let endpoint: Receiver;

const ORGANIZATION = 'Shell Layout Organization of Long Names Ltd';
/** Long unbroken values: what spills out of a card when nothing lets it wrap. */
const LONG_VALUE = `tok_${'x7Q2'.repeat(30)}`;
const LONG_PATH = `/crm/v2/organizations/${'segment'.repeat(8)}/leads?include=${'everything'.repeat(6)}`;

let agent: { id: string };
let tool: { id: string };
let otherTool: { id: string };
let callId: string;

async function api(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { headers: org.auth, body });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function logIn(page: Page): Promise<void> {
  await page.goto(t.url);
  await page.getByLabel('Email').fill(org.user.email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText(`Switchboard · ${ORGANIZATION}`).waitFor({ timeout: 10_000 });
}

/** The agent page's tab of that name, and whether it is the selected one. */
const tab = (page: Page, name: string) => page.getByRole('tablist', { name: 'Agent' }).getByRole('tab', { name });
const selectedTab = (page: Page) =>
  page.getByRole('tablist', { name: 'Agent' }).locator('[role="tab"][aria-selected="true"]').textContent();

/** The page's globals used inside `evaluate` (these tests compile without the DOM's types). */
interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
interface PageGlobals {
  document: { activeElement: unknown };
  getComputedStyle(element: unknown): { color: string; backgroundColor: string };
}
interface PageNode {
  closest(selector: string): PageNode;
  getBoundingClientRect(): Box;
}

/** WCAG's contrast ratio of two `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
      const c = Number(part) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0);
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

describe.runIf(haveBrowser)('the dashboard’s shell', () => {
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    endpoint = await startReceiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"leadId":"L-1"}');
    });
    org = await t.signup(ORGANIZATION);
    tool = await api('POST', '/v1/tools', {
      name: 'create_lead',
      method: 'POST',
      url: `${endpoint.url}${LONG_PATH}`,
      description: 'Creates a lead.',
    });
    otherTool = await api('POST', '/v1/tools', { name: 'lookup_order', method: 'GET', url: `${endpoint.url}/orders` });
    agent = await t.createAgent(org, {
      name: 'Sales agent with a rather long name for a phone screen',
      firstMessage: 'Hello {{name}}',
      toolIds: [tool.id],
      simulator: {
        answer: 'answered',
        turns: [
          { role: 'user', text: 'Hi' },
          { tool: 'create_lead', args: {} },
        ],
        outcome: { status: 'SOLD', summary: `Sold. Reference ${LONG_VALUE}` },
      },
    });
    const creds = await t.credentials(org, agent.id);
    const placed = await t.clickToCall({
      token: creds.apiToken,
      secret: creds.apiSecret,
      body: { phone: nextPhone(), variables: { name: 'Ada', reference: LONG_VALUE } },
    });
    expect(placed.status).toBe(200);
    callId = placed.body.callId;
    await t.waitForCall(org, callId);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await endpoint?.close();
    await t?.close();
  });

  it('lands on the Overview after logging in and at /, first in the navigation', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/overview');
    const sections = page.getByRole('navigation', { name: 'Sections' }).getByRole('link');
    expect(await sections.allTextContents()).toEqual([
      'Overview',
      'Agents',
      'Tools',
      'Calls',
      'Campaigns',
      'Phone numbers',
      'Settings',
    ]);
    await page.goto(`${t.url}/agents`);
    await page.goto(t.url);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/overview');
    await page.close();
  });

  it('fits every page into 390 px, where the sections open from a Menu button by keyboard and Log out stays readable', async () => {
    const signIn = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signIn.goto(t.url);
    await signIn.getByRole('button', { name: 'Log in' }).waitFor();
    await expectFits(signIn, 'sign in');
    await screenshot(signIn, 'shell-sign-in-390');
    await signIn.setViewportSize({ width: 1280, height: 900 });
    await screenshot(signIn, 'shell-sign-in-1280');
    await signIn.close();

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await logIn(page);

    // The header: one line with the organization, Menu and Log out; the sections fold away.
    const menu = page.getByRole('button', { name: 'Menu' });
    // Folded away, the navigation is hidden, which getByRole skips unless asked to include it.
    const nav = page.getByRole('navigation', { name: 'Sections', includeHidden: true });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.getAttribute('aria-controls')).toBe(await nav.getAttribute('id'));
    expect(await nav.isVisible()).toBe(false);
    const logOut = page.getByRole('button', { name: 'Log out' });
    expect(await logOut.isVisible()).toBe(true);
    const look = await logOut.evaluate((element) => {
      const { getComputedStyle } = globalThis as unknown as PageGlobals;
      const button = element as unknown as PageNode;
      const header = button.closest('header');
      const inside = button.getBoundingClientRect();
      const around = header.getBoundingClientRect();
      return {
        color: getComputedStyle(button).color,
        background: getComputedStyle(header).backgroundColor,
        within:
          inside.left >= around.left &&
          inside.right <= around.right &&
          inside.bottom <= around.bottom &&
          inside.top >= 0,
      };
    });
    expect(look.within).toBe(true);
    expect(contrast(look.color, look.background)).toBeGreaterThanOrEqual(4.5);
    await expectFits(page, 'the header');

    // Opened and used with the keyboard alone: Tab to Menu, Enter, Tab to a section, Enter.
    await tabTo(page, menu);
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await nav.isVisible()).toBe(true);
    await expectFits(page, 'the open menu');
    await screenshot(page, 'shell-menu-390');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    await tabTo(page, nav.getByRole('link', { name: 'Tools', exact: true }));
    await page.keyboard.press('Escape');
    // Escape inside the menu closes it and hands the focus back to Menu.
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(
      await menu.evaluate((button) => button === (globalThis as unknown as PageGlobals).document.activeElement),
    ).toBe(true);
    await page.keyboard.press('Enter');
    await tabTo(page, nav.getByRole('link', { name: 'Tools', exact: true }));
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/tools');
    // Choosing a section closes the menu.
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    // Every page, at a phone's width and a laptop's: nothing reaches past the viewport at 390 px.
    const pages: [string, string, () => Promise<unknown>][] = [
      ['overview', '/overview', () => page.getByRole('heading', { level: 2 }).first().waitFor()],
      ['agents', '/agents', () => page.getByRole('link', { name: /Sales agent with/ }).waitFor()],
      ['agent-new', '/agents/new', () => page.getByRole('heading', { name: 'New agent' }).waitFor()],
      ['agent-settings', `/agents/${agent.id}?tab=settings`, () => page.getByLabel('Prompt').waitFor()],
      [
        'agent-credentials',
        `/agents/${agent.id}?tab=credentials`,
        async () => {
          await page.getByRole('button', { name: 'Show Credentials & Instructions' }).click();
          await page.getByTestId('api-token').waitFor();
        },
      ],
      ['agent-test-call', `/agents/${agent.id}?tab=test-call`, () => page.getByLabel('Phone number').waitFor()],
      ['agent-webhooks', `/agents/${agent.id}?tab=webhooks`, () => page.getByText('No webhooks yet.').waitFor()],
      [
        'agent-calls',
        `/agents/${agent.id}?tab=calls`,
        () => page.getByRole('table', { name: 'Recent calls' }).waitFor(),
      ],
      ['tools', '/tools', () => page.getByRole('link', { name: 'create_lead' }).waitFor()],
      ['tool-new', '/tools/new', () => page.getByRole('heading', { name: 'New tool' }).waitFor()],
      [
        'tool-detail',
        `/tools/${tool.id}`,
        async () => {
          // A run's request and response, with the tool's long URL, are part of the page that must fit.
          const panel = page.getByRole('region', { name: 'Test the tool' });
          await panel.getByRole('button', { name: 'Test', exact: true }).click();
          await panel.getByTestId('test-result').waitFor();
        },
      ],
      ['calls', '/calls', () => page.locator(`a[href="/calls/${callId}"]`).first().waitFor()],
      ['call-detail', `/calls/${callId}`, () => page.getByTestId('call-summary').waitFor()],
      ['phone-numbers', '/phone-numbers', () => page.getByRole('heading', { level: 2 }).first().waitFor()],
      ['settings', '/settings', () => page.getByRole('region', { name: 'Provider credentials' }).waitFor()],
    ];
    for (const [name, path, ready] of pages) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${t.url}${path}`);
      await ready();
      await expectFits(page, `${name} at 390 px`);
      await screenshot(page, `shell-${name}-390`);
      await page.setViewportSize({ width: 1280, height: 900 });
      await screenshot(page, `shell-${name}-1280`);
    }
    await page.close();
  }, 120_000);

  it('splits the agent page into tabs kept in the URL, opened by click, arrow keys or a link, without losing unsaved settings', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await page.goto(`${t.url}/agents/${agent.id}`);
    await expect.poll(() => selectedTab(page)).toBe('Settings');
    expect(await page.getByRole('heading', { name: /^Sales agent with/ }).isVisible()).toBe(true);

    // An unsaved change survives a look at another tab.
    await page.getByLabel('First message').fill('Hello {{name}}, unsaved');
    await tab(page, 'Webhooks').click();
    await expect.poll(() => new URL(page.url()).search).toBe('?tab=webhooks');
    await expect
      .poll(() => page.getByRole('tabpanel', { name: 'Webhooks' }).getByText('No webhooks yet.').isVisible())
      .toBe(true);
    expect(await page.getByLabel('First message').isVisible()).toBe(false);

    // The keyboard: the selected tab is the one Tab reaches; arrows, Home and End move and select.
    await tabTo(page, tab(page, 'Webhooks'));
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => selectedTab(page)).toBe('Calls');
    expect(
      await tab(page, 'Calls').evaluate(
        (element) => element === (globalThis as unknown as PageGlobals).document.activeElement,
      ),
    ).toBe(true);
    await expect.poll(() => new URL(page.url()).search).toBe('?tab=calls');
    const recent = page.getByRole('table', { name: 'Recent calls' });
    await expect.poll(() => recent.locator(`a[href="/calls/${callId}"]`).count()).toBe(1);
    expect(await recent.textContent()).toContain('SOLD');
    expect(await page.getByRole('link', { name: 'Every call of this agent' }).getAttribute('href')).toBe(
      `/calls?agentId=${agent.id}`,
    );
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => selectedTab(page)).toBe('Settings');
    await page.keyboard.press('End');
    await expect.poll(() => selectedTab(page)).toBe('Calls');
    await page.keyboard.press('Home');
    await expect.poll(() => selectedTab(page)).toBe('Settings');
    expect(await page.getByLabel('First message').inputValue()).toBe('Hello {{name}}, unsaved');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => selectedTab(page)).toBe('Calls');

    // A link to a tab opens it.
    await page.goto(`${t.url}/agents/${agent.id}?tab=test-call`);
    await expect.poll(() => selectedTab(page)).toBe('Test call');
    await expect.poll(() => page.getByRole('form', { name: 'Test call' }).isVisible()).toBe(true);
    await page.goto(`${t.url}/agents/${agent.id}?tab=credentials`);
    await expect.poll(() => selectedTab(page)).toBe('Credentials');
    await page.getByRole('button', { name: 'Show Credentials & Instructions' }).click();
    await expect.poll(() => page.getByTestId('api-token').isVisible()).toBe(true);

    // A new Click to Call agent opens on its credentials once saved: the seed's button is right there.
    await page.goto(`${t.url}/agents/new`);
    expect(await page.getByRole('tablist').count()).toBe(0);
    await page.getByLabel('Name', { exact: true }).fill('Fresh agent');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_[^?]+$/);
    await expect.poll(() => selectedTab(page)).toBe('Credentials');
    await page.getByRole('button', { name: 'Show Credentials & Instructions' }).click();
    await expect.poll(() => page.getByTestId('api-token').isVisible()).toBe(true);
    // Another type has no credentials: its tab says why.
    const inbound = await t.createAgent(org, { name: 'Front desk', type: 'inbound' });
    await page.goto(`${t.url}/agents/${inbound.id}?tab=credentials`);
    await expect
      .poll(() => page.getByRole('tabpanel', { name: 'Credentials' }).textContent())
      .toContain('Only Click to Call agents have an API Token and API Secret');
    await page.close();
  }, 60_000);

  it('leads back from every detail page to its list', async () => {
    const page = await browser.newPage();
    await logIn(page);
    for (const [path, back, list] of [
      [`/agents/${agent.id}?tab=webhooks`, '← Agents', '/agents'],
      [`/tools/${tool.id}`, '← Tools', '/tools'],
      [`/calls/${callId}`, '← Calls', '/calls'],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole('link', { name: back, exact: true }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(list);
    }
    await page.close();
  });

  it('serves a favicon the page names', async () => {
    const response = await fetch(`${t.url}/favicon.svg`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(await response.text()).toMatch(/^<svg /);
    const page = await browser.newPage();
    await page.goto(t.url);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    await page.close();
  });

  it('clears the Test panel’s previous result when a new run fails', async () => {
    const page = await browser.newPage();
    await logIn(page);
    const doomed = await api('POST', '/v1/tools', { name: 'doomed', method: 'POST', url: `${endpoint.url}/doomed` });
    await page.goto(`${t.url}/tools/${doomed.id}`);
    const panel = page.getByRole('region', { name: 'Test the tool' });
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => panel.getByTestId('test-result').textContent()).toContain('L-1');

    // A run refused before it is sent (arguments that are not JSON): the old result goes.
    await panel.getByLabel('Arguments (JSON)').fill('{not json');
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => panel.getByText(/^Not valid JSON/).isVisible()).toBe(true);
    expect(await panel.getByTestId('test-result').count()).toBe(0);

    // A run the API refuses (the tool was deleted meanwhile): the old result goes too.
    await panel.getByLabel('Arguments (JSON)').fill('{}');
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => panel.getByTestId('test-result').count()).toBe(1);
    await api('DELETE', `/v1/tools/${doomed.id}`);
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => panel.locator('.error.banner').isVisible()).toBe(true);
    expect(await panel.getByTestId('test-result').count()).toBe(0);
    await page.close();
  });

  it('offers the agent’s own tools, as ticked in its form, in the simulator’s tool picker', async () => {
    const page = await browser.newPage();
    await logIn(page);
    await page.goto(`${t.url}/agents/${agent.id}`);
    const picker = page.getByLabel('Turn 2 tool');
    const offered = async () => (await picker.locator('option').allTextContents()).sort();
    await expect.poll(offered).toEqual(['create_lead']);
    // Ticking another tool offers it at once, before saving; unticking the one in use says it is not attached.
    await page.getByLabel('lookup_order').check();
    await expect.poll(offered).toEqual(['create_lead', 'lookup_order']);
    await page.getByLabel('create_lead').uncheck();
    await expect.poll(offered).toEqual(['create_lead (not attached)', 'lookup_order']);
    await picker.selectOption('lookup_order');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await api('GET', `/v1/agents/${agent.id}`)).toolIds).toEqual([otherTool.id]);
    expect((await api('GET', `/v1/agents/${agent.id}`)).simulator.turns[1]).toEqual({ tool: 'lookup_order', args: {} });
    await page.close();
  });
});
