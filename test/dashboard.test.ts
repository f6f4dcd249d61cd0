import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot, signUpInBrowser } from './helpers/browser.js';

let t: TestApp;
let browser: Browser;

describe.runIf(haveBrowser)('the dashboard', () => {
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

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
    // Signing up lands on the Overview; the agents are a section away.
    await expect.poll(() => new URL(page.url()).pathname).toBe('/overview');
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await expect.poll(() => page.getByText('No agents yet.').isVisible()).toBe(true);
    await screenshot(page, '02-agents-empty');

    // An agent made through the API with the same session shows in the list.
    const created = await page.request.post(`${t.url}/v1/agents`, {
      data: { name: 'Sales agent', type: 'click_to_call' },
    });
    expect(created.status()).toBe(201);
    await page.reload();
    await expect.poll(() => page.getByRole('link', { name: 'Sales agent' }).isVisible()).toBe(true);
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
    await expect.poll(() => page.getByRole('link', { name: 'Sales agent' }).isVisible()).toBe(true);
    await page.close();
  }, 60_000);

  it('creates an API key shown once, lists it masked and revokes it; adds a provider credential whose key reads back masked', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Settings UI');
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'API keys' }).isVisible()).toBe(true);
    const keys = page.getByRole('region', { name: 'API keys' });
    // The key made at sign-up is listed by its prefix only.
    await expect.poll(() => keys.getByRole('cell', { name: 'Default key' }).isVisible()).toBe(true);

    await keys.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => keys.locator('[data-path="$.name"]').isVisible()).toBe(true);
    await keys.getByLabel('New key name').fill('CRM backend');
    await keys.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => keys.getByTestId('new-api-key').isVisible()).toBe(true);
    const key = (await keys.getByTestId('new-api-key').textContent())!;
    const me = await fetch(`${t.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(await keys.locator('tbody').textContent()).not.toContain(key);
    await screenshot(page, '05-settings');

    const row = keys.getByRole('row', { name: /CRM backend/ });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => keys.getByRole('cell', { name: 'CRM backend' }).count()).toBe(0);
    expect((await fetch(`${t.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);

    const credentials = page.getByRole('region', { name: 'Provider credentials' });
    await expect.poll(() => credentials.getByText('No provider credentials.').isVisible()).toBe(true);
    await credentials.getByRole('button', { name: 'Add credential' }).click();
    await credentials.getByLabel('Name').fill('Main Vapi');
    await credentials.getByLabel('API key').fill('vapi-key-1234');
    await credentials.getByLabel('Base URL').fill('not a url');
    await credentials.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => credentials.locator('[data-path="$.baseUrl"]').isVisible()).toBe(true);
    await credentials.getByLabel('Base URL').fill('');
    await credentials.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => credentials.getByText('Stored key ends in …1234').isVisible()).toBe(true);
    const stored = (await (await page.request.get(`${t.url}/v1/provider-credentials`)).json()).data;
    expect(stored).toMatchObject([{ provider: 'vapi', name: 'Main Vapi', apiKey: '••••••', apiKeyLast4: '1234' }]);

    // A new webhook secret: the old one's 24 hours are shown, and can be cut short (decision 0096).
    const readCredential = async () =>
      (await (await page.request.get(`${t.url}/v1/provider-credentials/${stored[0].id}`)).json()) as {
        previousWebhookSecretExpiresAt: string | null;
      };
    expect((await readCredential()).previousWebhookSecretExpiresAt).toBeNull();
    await credentials.getByLabel('Webhook secret').fill('vapi_secret_from_the_dashboard_01');
    await credentials.getByRole('button', { name: 'Save' }).click();
    const previous = credentials.getByTestId('previous-webhook-secret');
    await expect.poll(() => previous.isVisible()).toBe(true);
    expect(await previous.textContent()).toContain('also opens the webhook until');
    expect((await readCredential()).previousWebhookSecretExpiresAt).toEqual(expect.any(String));
    await previous.getByRole('button', { name: 'Revoke previous secret' }).click();
    await previous.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => previous.count()).toBe(0);
    expect((await readCredential()).previousWebhookSecretExpiresAt).toBeNull();
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
