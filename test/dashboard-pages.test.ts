import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, type Org, startTestApp, type TestApp } from './helpers/app.js';
import {
  expectAccessible,
  expectFits,
  expectKeyboardReach,
  haveBrowser,
  type InPage,
  launchBrowser,
  screenshot,
} from './helpers/browser.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// Every page of the dashboard at a desktop's width and a phone's (issue 18 §3, §4), with real data behind
// it: each is saved as test-results/screens/<page>-<width>.png, passes axe-core with no serious or critical
// violation, fits its viewport (the document never scrolls sideways), and Tab reaches every control on it.
// Each page and width is its own test, so a run lists every page that fails and why, not only the first.

const WIDTHS = [1280, 390] as const;
const VAPI_NUMBERS = ['+14155550100', '+14155550111'];

let t: TestApp;
let browser: Browser;
let vapi: FakeVapi;
/** The customer's CRM, called by the `create_lead` tool during the calls. */
let crm: Receiver;
/** The customer's webhook, receiving the calls' outcomes. */
let hooks: Receiver;
let org: Org;
/** Signed in, shared by the pages that need a session (each test sets its own viewport). */
let page: Page;
const ids = { agent: '', tool: '', call: '' };

async function api(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { headers: org.auth, body });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Waits until the screen is drawn: its own landmark is visible and nothing on it is still loading. */
async function settled(on: Page, ready: (on: Page) => Promise<void>, name = 'page') {
  try {
    await ready(on);
    await expect.poll(() => on.locator('[aria-busy="true"]').count(), { timeout: 10_000 }).toBe(0);
  } catch (error) {
    // What the page showed instead, for whoever reads the failure.
    await screenshot(on, `${name}-${on.viewportSize()?.width}-not-ready`);
    throw error;
  }
}

async function checkPage(on: Page, name: string, width: number) {
  await screenshot(on, `${name}-${width}`);
  await expectAccessible(on, `${name} at ${width} px`);
  await expectFits(on, `${name} at ${width} px`);
  await expectKeyboardReach(on, `${name} at ${width} px`);
}

const heading = (name: string | RegExp) => async (on: Page) => {
  await on.getByRole('heading', { name }).first().waitFor({ timeout: 10_000 });
};

/**
 * The screens behind the sign-in, by their path and what shows they are drawn; `opened` are the states a
 * control on the screen opens (a form, a table), each checked after the screen itself.
 */
const SIGNED_IN: {
  name: string;
  path: () => string;
  ready: (on: Page) => Promise<void>;
  opened?: { name: string; open: (on: Page) => Promise<void> }[];
}[] = [
  {
    name: 'overview',
    path: () => '/overview',
    // Drawn once its charts have their data: the period's totals are on the page.
    ready: async (on) => {
      await heading('Overview')(on);
      await on.locator('canvas').first().waitFor({ timeout: 10_000 });
    },
  },
  {
    name: 'agents',
    path: () => '/agents',
    ready: async (on) => {
      await on.getByRole('link', { name: 'Sales agent' }).waitFor({ timeout: 10_000 });
    },
  },
  { name: 'agent-new', path: () => '/agents/new', ready: heading('New agent') },
  {
    name: 'tools',
    path: () => '/tools',
    ready: async (on) => {
      await on.getByRole('link', { name: 'create_lead' }).waitFor({ timeout: 10_000 });
    },
    opened: [
      {
        // The tools defined at Vapi, listed for the agent on Vapi to import from.
        name: 'tools-import',
        open: async (on) => {
          const section = on.getByRole('region', { name: 'Import from a provider' });
          await section.getByLabel('Agent', { exact: true }).selectOption({ label: 'Reception (Vapi)' });
          await section.getByRole('table', { name: 'Tools at Vapi' }).waitFor({ timeout: 10_000 });
        },
      },
    ],
  },
  { name: 'tool-new', path: () => '/tools/new', ready: heading('New tool') },
  {
    name: 'tool',
    path: () => `/tools/${ids.tool}`,
    ready: heading('Tool create_lead'),
    opened: [
      {
        // One test run: the request as sent and the (long) response, each in its own box.
        name: 'tool-tested',
        open: async (on) => {
          const panel = on.getByRole('region', { name: 'Test the tool' });
          await panel.getByRole('button', { name: 'Test', exact: true }).click();
          await panel.getByRole('region', { name: 'Response' }).waitFor({ timeout: 10_000 });
        },
      },
    ],
  },
  {
    name: 'calls',
    path: () => '/calls',
    ready: async (on) => {
      await on.getByRole('table', { name: 'Calls' }).locator('tbody tr').first().waitFor({ timeout: 10_000 });
    },
  },
  {
    name: 'call',
    path: () => `/calls/${ids.call}`,
    ready: async (on) => {
      await on.getByRole('list', { name: 'Transcript' }).waitFor({ timeout: 10_000 });
      await on.getByRole('table', { name: 'Collected data' }).waitFor({ timeout: 10_000 });
    },
  },
  {
    // Every webhook delivery (issue 18 §2), with the calls' delivered outcomes listed.
    name: 'deliveries',
    path: () => '/deliveries',
    ready: async (on) => {
      await heading('Deliveries')(on);
      await on.getByRole('link', { name: ids.call }).waitFor({ timeout: 10_000 });
    },
  },
  {
    name: 'phone-numbers',
    path: () => '/phone-numbers',
    ready: async (on) => {
      await on.getByText(VAPI_NUMBERS[0]!).first().waitFor({ timeout: 10_000 });
    },
    opened: [
      {
        name: 'phone-numbers-import',
        open: async (on) => {
          await on.getByRole('button', { name: 'Import a number' }).click();
          const form = on.getByRole('form', { name: 'Import a number' });
          await form.getByLabel('Provider account').selectOption({ label: 'Fake Vapi (vapi)' });
          await expect
            .poll(() => form.getByLabel('Number', { exact: true }).locator('option:disabled').count())
            .toBe(1);
        },
      },
    ],
  },
  {
    name: 'settings',
    path: () => '/settings',
    ready: async (on) => {
      await heading('API keys')(on);
      await heading('Provider credentials')(on);
      // The provider account is listed (its form is open with its Delete button), with its changed secret's window.
      await on.getByRole('button', { name: 'Delete' }).first().waitFor({ timeout: 10_000 });
      await on.getByRole('button', { name: 'Revoke previous secret' }).waitFor({ timeout: 10_000 });
    },
    opened: [
      {
        name: 'settings-new-credential',
        open: async (on) => {
          await on.getByRole('button', { name: 'Add credential' }).click();
          await on.getByRole('button', { name: 'Cancel' }).waitFor({ timeout: 10_000 });
        },
      },
    ],
  },
  { name: 'not-found', path: () => '/no-such-page', ready: heading('Nothing here') },
];

describe.runIf(haveBrowser)('every page of the dashboard at 1280 and 390 px: axe-core and fitting the width', () => {
  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
    vapi = await startFakeVapi({ phoneNumbers: VAPI_NUMBERS });
    // Its answer is long, so the call page shows it in a box that scrolls (which the keyboard must reach).
    crm = await startReceiver((request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      const history = Array.from({ length: 60 }, (_, i) => ({
        at: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
        note: `touch ${i}`,
      }));
      response.end(JSON.stringify({ id: 'L-7', path: request.url, history }, null, 2));
    });
    hooks = await startReceiver();
    browser = await launchBrowser();
    org = await t.signup('Acme Pages');

    // What a team has after a day's use: a tool, an agent using it with a webhook, calls that ran it,
    // a provider account with a number imported from it, and an extra API key.
    const tool = await api('POST', '/v1/tools', {
      name: 'create_lead',
      description: 'Creates a lead in the CRM with the caller’s email address.',
      method: 'POST',
      url: `${crm.url}/leads/with/a/rather/long/path/that/must/wrap/on/a/phone`,
      headers: [{ key: 'Authorization', mode: 'fixed', value: 'Bearer crm-secret-7' }],
      parameters: [
        { name: 'email', location: 'body', type: 'string', fillMode: 'ai', required: true },
        { name: 'plan', location: 'body', type: 'string', fillMode: 'ai', allowedValues: ['basic', 'pro'] },
        { name: 'name', location: 'body', type: 'string', fillMode: 'variable', value: '{{name}}' },
      ],
      variables: [{ name: 'name' }],
    });
    ids.tool = tool.id;
    const agent = await t.createAgent(org, {
      name: 'Sales agent',
      firstMessage: 'Hi {{name}}, this is Acme calling about your trial.',
      toolIds: [tool.id],
      simulator: {
        turns: [
          { role: 'user', text: 'My email is ada@example.com and I would like the pro plan.' },
          { tool: 'create_lead', args: { email: 'ada@example.com', plan: 'pro' } },
          { role: 'agent', text: 'Your lead is {{tool.create_lead.id}}.' },
        ],
        outcome: { status: 'SOLD', collectedData: { email: 'ada@example.com', plan: 'pro' } },
        durationSeconds: 42,
      },
    });
    ids.agent = agent.id;
    // Its webhook has trigger conditions, so the agent's Webhooks tab shows the condition builder's rows.
    await api('POST', `/v1/agents/${agent.id}/integrations`, {
      url: `${hooks.url}/hooks/outcomes`,
      triggerConditions: {
        match: 'any',
        conditions: [
          { field: 'status', operator: 'in', value: ['SOLD'] },
          { field: 'durationSeconds', operator: 'gte', value: 10 },
        ],
      },
    });
    await t.createAgent(org, { name: 'Support agent' });
    const creds = await t.credentials(org, agent.id);
    for (let i = 0; i < 3; i++) {
      const placed = await t.clickToCall({
        token: creds.apiToken,
        secret: creds.apiSecret,
        body: { phone: nextPhone(), variables: { name: 'Ada' } },
      });
      expect(placed.status).toBe(200);
      ids.call = placed.body.callId;
      await t.waitForCall(org, ids.call, (call) => call.deliveries[0]?.state === 'delivered');
    }
    const credential = await api('POST', '/v1/provider-credentials', {
      provider: 'vapi',
      name: 'Fake Vapi',
      apiKey: vapi.apiKey,
      baseUrl: vapi.url,
    });
    // An agent on Vapi with a tool defined there, for the tools page's import.
    vapi.seedTool({
      type: 'function',
      function: {
        name: 'check_stock',
        description: 'Looks up whether a product is in stock.',
        parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      },
      server: { url: `${crm.url}/stock` },
    });
    await t.createAgent(org, {
      name: 'Reception',
      type: 'inbound',
      provider: 'vapi',
      providerCredentialId: credential.id,
      prompt: 'Answer questions about the shop.',
      firstMessage: 'Hello, reception.',
    });
    await api('POST', '/v1/phone-numbers', {
      number: VAPI_NUMBERS[0],
      provider: 'vapi',
      providerCredentialId: credential.id,
      providerNumberId: 'pn_0',
    });
    await api('POST', '/v1/api-keys', { name: 'CRM sync' });
    // Its webhook secret changed a moment ago: the settings page shows the old one's window and its revocation.
    await api('PATCH', `/v1/provider-credentials/${credential.id}`, {
      webhookSecret: 'vapi_pages_secret_changed_01234',
    });

    // The browser logs in through the form.
    page = await browser.newPage();
    await page.goto(t.url);
    await page.getByLabel('Email').fill(org.user.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Switchboard · Acme Pages').waitFor({ timeout: 10_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await crm?.close();
    await hooks?.close();
    await vapi?.close();
    await t?.close();
  });

  it('the checks themselves fail on a serious violation, a page wider than its viewport, a control Tab skips', async () => {
    const broken = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await broken.goto(t.url);
    await settled(broken, heading('Log in to Switchboard'));
    await expectAccessible(broken, 'sign in');
    // A text box with no label (axe "label", critical), a 600 px wide canvas, a button Tab skips.
    await broken.evaluate(() => {
      const { document } = globalThis as unknown as InPage;
      const input = document.createElement('input');
      input.type = 'text';
      document.body.append(input);
    });
    await expect(expectAccessible(broken, 'sign in with an unlabelled input')).rejects.toThrow(
      /label \(critical\): Form elements must have labels — 1 element\(s\)/,
    );
    await expectFits(broken, 'sign in');
    await broken.evaluate(() => {
      const { document } = globalThis as unknown as InPage;
      const wide = document.createElement('canvas');
      wide.className = 'too-wide';
      wide.width = 600;
      wide.height = 10;
      document.body.append(wide);
    });
    await expect(expectFits(broken, 'sign in with a wide block')).rejects.toThrow(/canvas\.too-wide 0–600/);
    // A button taken out of the Tab order.
    await expectKeyboardReach(broken, 'sign in');
    await broken.evaluate(() => {
      const { document } = globalThis as unknown as InPage;
      const button = document.createElement('button');
      button.textContent = 'Mouse only';
      button.setAttribute('tabindex', '-1');
      document.body.append(button);
    });
    await expect(expectKeyboardReach(broken, 'sign in with a mouse-only button')).rejects.toThrow(/Mouse only/);
    await broken.close();
  });

  describe.each(WIDTHS)('at %i px', (width) => {
    it('sign in', async () => {
      const signedOut = await browser.newPage({ viewport: { width, height: 900 } });
      await signedOut.goto(t.url);
      await settled(signedOut, heading('Log in to Switchboard'));
      await checkPage(signedOut, 'sign-in', width);
      // A refused log-in shows its message: that state must pass too.
      await signedOut.getByLabel('Email').fill(org.user.email);
      await signedOut.getByLabel('Password').fill('not the password');
      await signedOut.getByRole('button', { name: 'Log in' }).click();
      await signedOut.getByRole('alert').first().waitFor({ timeout: 10_000 });
      await checkPage(signedOut, 'sign-in-refused', width);
      await signedOut.close();
    });

    it('sign up', async () => {
      const signedOut = await browser.newPage({ viewport: { width, height: 900 } });
      await signedOut.goto(t.url);
      await settled(signedOut, heading('Log in to Switchboard'));
      await signedOut.getByRole('button', { name: 'Sign up' }).click();
      await settled(signedOut, heading('Create your organization'));
      await checkPage(signedOut, 'sign-up', width);
      await signedOut.close();
    });

    it.each(SIGNED_IN)('$name', async ({ name, path, ready, opened = [] }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}${path()}`);
      await settled(page, ready, name);
      await checkPage(page, name, width);
      for (const state of opened) {
        await settled(page, state.open, state.name);
        await checkPage(page, state.name, width);
      }
    });

    it('agent (each of its tabs)', async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/agents/${ids.agent}`);
      await settled(page, heading('Sales agent'));
      // The agent page's tabs (issue 18 §3): each is checked as it shows. Until the page has them, the
      // page is one long form and is checked whole.
      const tabs = page.getByRole('tablist').filter({ has: page.getByRole('tab', { name: 'Webhooks' }) });
      const names = (await tabs.count()) > 0 ? await tabs.first().getByRole('tab').allTextContents() : [];
      if (names.length === 0) {
        await checkPage(page, 'agent', width);
      }
      for (const tab of names) {
        const control = tabs.first().getByRole('tab', { name: tab, exact: true });
        await control.click();
        await expect.poll(() => control.getAttribute('aria-selected')).toBe('true');
        await settled(page, async () => {});
        const slug = tab
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-');
        await checkPage(page, `agent-${slug}`, width);
      }
      // The credentials and their instructions, shown: long tokens and code samples must fit too.
      if (names.length > 0) await tabs.first().getByRole('tab', { name: 'Credentials', exact: true }).click();
      await page.getByRole('button', { name: 'Show Credentials & Instructions' }).click();
      await settled(page, async (on) => {
        await on.getByTestId('api-token').waitFor({ timeout: 10_000 });
      });
      await checkPage(page, 'agent-credentials-shown', width);
    });
  });
});
