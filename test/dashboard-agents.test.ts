import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot, signUpInBrowser } from './helpers/browser.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// The agent screens in a real browser: the form with the seed's words, its validation errors, the
// credentials and their examples, rotation, the test call, and webhook integrations.
let t: TestApp;
let browser: Browser;
let webhook: Receiver;
let toolEndpoint: Receiver;
let vapi: FakeVapi;

describe.runIf(haveBrowser)('the dashboard: agents', () => {
  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100' });
    vapi = await startFakeVapi();
    browser = await launchBrowser();
    webhook = await startReceiver();
    toolEndpoint = await startReceiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"leadId":"L-1"}');
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await webhook?.close();
    await toolEndpoint?.close();
    await vapi?.close();
    await t?.close();
  });

  /** The API with the browser's own session cookie. */
  const apiAs = (page: Page) => ({
    get: async (path: string) => (await page.request.get(`${t.url}${path}`)).json(),
    post: async (path: string, data: unknown) => page.request.post(`${t.url}${path}`, { data }),
  });

  it('end to end: sign up, a tool, a Click to Call agent and a webhook made in the browser; the revealed credentials place a signed call whose transcript, tool run and delivery show on the call page', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Agents UI');
    const api = apiAs(page);

    // The tool the agent will call, made with the tool editor.
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.getByRole('link', { name: 'New tool' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('create_lead');
    await page.getByLabel('Method', { exact: true }).selectOption('POST');
    await page.getByLabel('URL', { exact: true }).fill(`${toolEndpoint.url}/leads`);
    await page.getByLabel('Description', { exact: true }).fill('Creates a lead once the caller gave an email.');
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Parameter 1 name', { exact: true }).fill('email');
    await page.getByLabel('Parameter 1 required', { exact: true }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/tools\/tool_/);

    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'New agent' }).isVisible()).toBe(true);
    // Nothing filled in: the API's refusal appears next to the field it names.
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('[data-path="$.name"]').textContent()).toMatch(/Must not be empty/);
    await page.getByLabel('Rate limit per minute').fill('lots');
    await page.getByLabel('Name').fill('Sales agent');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('[data-path="$.rateLimitPerMinute"]').isVisible()).toBe(true);
    expect((await api.get('/v1/agents')).data).toEqual([]);
    await page.getByLabel('Rate limit per minute').fill('120');

    await expect.poll(() => page.getByLabel('Type').inputValue()).toBe('click_to_call');
    expect(await page.getByLabel('Type').locator('option:checked').textContent()).toBe('Click to Call');
    await page.getByLabel('Prompt').fill('You sell Acme plans to {{name}}.');
    await page.getByLabel('First message').fill('Hello {{name}}, this is Acme.');
    await page.getByLabel('create_lead').check();
    await page.getByLabel('Script the simulated calls').check();
    await page.getByLabel('Outcome status').selectOption('SOLD');
    await page.getByLabel('Collected data (JSON object)').fill('{"email": "ada@example.com"}');
    await page.getByRole('button', { name: 'Add turn' }).click();
    await page.getByLabel('Turn 1 text').fill('I would like a demo');
    await page.getByRole('button', { name: 'Add turn' }).click();
    await page.getByLabel('Turn 2 kind').selectOption('tool');
    await page.getByLabel('Turn 2 arguments (JSON object)').fill('{"email": "ada@example.com"}');
    await page.getByRole('button', { name: 'Add turn' }).click();
    await page.getByLabel('Turn 3 kind').selectOption('agent');
    await page.getByLabel('Turn 3 text').fill('Your lead is {{tool.create_lead.leadId}}.');
    await screenshot(page, 'agents-01-editor');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_/);
    const agentId = page.url().split('/').at(-1)!;
    // A new Click to Call agent opens on its Credentials tab; its settings are a tab away.
    await expect.poll(() => page.getByRole('tab', { name: 'Credentials', selected: true }).isVisible()).toBe(true);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect.poll(() => page.getByTestId('variables-used').textContent()).toContain('{{name}}');

    const saved = await api.get(`/v1/agents/${agentId}`);
    expect(saved).toMatchObject({
      name: 'Sales agent',
      type: 'click_to_call',
      rateLimitPerMinute: 120,
      disableSignatureVerification: false,
      simulator: {
        answer: 'answered',
        outcome: { status: 'SOLD', collectedData: { email: 'ada@example.com' } },
        turns: [
          { role: 'user', text: 'I would like a demo' },
          { tool: 'create_lead', args: { email: 'ada@example.com' } },
          { role: 'agent', text: 'Your lead is {{tool.create_lead.leadId}}.' },
        ],
      },
    });
    expect(saved.toolIds).toHaveLength(1);

    // A webhook for the outcome, added on the agent's page.
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const hookForm = page.getByRole('form', { name: 'Webhook New webhook' });
    await hookForm.getByLabel('URL').fill(`${webhook.url}/calls`);
    await hookForm.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('form', { name: `Webhook ${webhook.url}/calls` }).isVisible()).toBe(true);

    // The credentials: revealed on request, with examples that sign; the test uses them as a backend would.
    await page.getByRole('tab', { name: 'Credentials' }).click();
    await page.getByRole('button', { name: 'Show Credentials & Instructions' }).click();
    await expect.poll(() => page.getByTestId('api-token').isVisible()).toBe(true);
    const apiToken = (await page.getByTestId('api-token').textContent())!;
    const apiSecret = (await page.getByTestId('api-secret').textContent())!;
    expect(await page.getByTestId('endpoint').textContent()).toBe(`POST ${t.url}/api/click-to-call`);
    expect(await page.getByTestId('example').textContent()).toContain(`curl -sS -X POST '${t.url}/api/click-to-call'`);
    await page.getByRole('tab', { name: 'Node.js' }).click();
    expect(await page.getByTestId('example').textContent()).toContain(`createHmac('sha256', apiSecret)`);
    await page.getByRole('tab', { name: 'Python' }).click();
    expect(await page.getByTestId('example').textContent()).toContain('hmac.new(api_secret.encode("utf-8")');
    await screenshot(page, 'agents-02-credentials');

    const to = nextPhone();
    const placed = await t.clickToCall({
      token: apiToken,
      secret: apiSecret,
      body: { phone: to, variables: { name: 'Ada' } },
    });
    expect(placed.status).toBe(200);
    const unsigned = await t.clickToCall({ token: apiToken, body: { phone: nextPhone() } });
    expect(unsigned.body.code).toBe('ctc:001');
    // The call page, reached from the calls list: what the backend's request led to.
    await page.getByRole('link', { name: 'Calls' }).click();
    await page.locator(`a[href="/calls/${placed.body.callId}"]`).first().click();
    const turns = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => turns.count(), { timeout: 15_000 }).toBe(4);
    expect(await turns.nth(0).textContent()).toMatch(/Hello Ada, this is Acme\.$/);
    expect(await turns.nth(1).textContent()).toMatch(/I would like a demo$/);
    expect(await turns.nth(2).textContent()).toMatch(/^Tool create_lead.*"leadId": "L-1"/s);
    expect(await turns.nth(3).textContent()).toMatch(/Your lead is L-1\.$/);
    const invocation = page.getByRole('article', { name: 'Tool invocation create_lead' });
    const sent = invocation.locator('details', { hasText: 'Request' });
    await sent.locator('summary').click();
    expect(await sent.getByText(`${toolEndpoint.url}/leads`, { exact: true }).isVisible()).toBe(true);
    expect(await sent.getByText('{"email":"ada@example.com"}', { exact: true }).isVisible()).toBe(true);
    expect(toolEndpoint.requests.at(-1)?.body).toBe('{"email":"ada@example.com"}');
    const delivery = page.getByRole('article', { name: /^Delivery / });
    await expect.poll(() => delivery.locator('.badge').first().textContent()).toBe('delivered');
    const received = webhook.requests.find((r) => r.url === '/calls');
    expect(JSON.parse(received?.body ?? '{}')).toMatchObject({ callId: placed.body.callId, status: 'SOLD', to });
    expect(await delivery.textContent()).toContain(String(received?.headers['webhook-id']));
    expect(await page.getByRole('table', { name: 'Collected data' }).textContent()).toBe('emailada@example.com');
    await screenshot(page, 'agents-05-call-detail');

    await page.goto(`${t.url}/agents/${agentId}?tab=credentials`);
    await page.getByRole('button', { name: 'Show Credentials & Instructions' }).click();
    await expect.poll(() => page.getByTestId('api-token').textContent()).toBe(apiToken);
    // Rotation asks first; afterwards the old pair is refused and the new one shown.
    await page.getByRole('button', { name: 'Rotate credentials' }).click();
    await page.getByRole('button', { name: 'Yes, rotate' }).click();
    await expect.poll(() => page.getByText('New credentials issued').isVisible()).toBe(true);
    const rotatedToken = await page.getByTestId('api-token').textContent();
    expect(rotatedToken).not.toBe(apiToken);
    expect((await t.clickToCall({ token: apiToken, secret: apiSecret, body: { phone: nextPhone() } })).body.code).toBe(
      'ctc:003',
    );
    await page.close();
  }, 90_000);

  it('places a test call that opens live, and says why one is refused next to the phone number', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Test call UI');
    const api = apiAs(page);
    const agent = await (await api.post('/v1/agents', { name: 'Demo', firstMessage: 'Hi {{name}}' })).json();
    await page.goto(`${t.url}/agents/${agent.id}?tab=test-call`);
    await expect.poll(() => page.getByLabel('{{name}}').isVisible()).toBe(true);
    await page.getByLabel('Phone number').fill('555-0100');
    await page.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => page.locator('[data-path="$.phone"]').textContent()).toMatch(/E\.164/);
    const to = nextPhone();
    await page.getByLabel('Phone number').fill(to);
    await page.getByLabel('{{name}}').fill('Grace');
    await page.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => page.url()).toMatch(/\/calls\/call_/);
    const callId = page.url().split('/').at(-1)!;
    // The call page follows it to its end without a reload.
    const turns = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => turns.first().textContent(), { timeout: 15_000 }).toMatch(/Hi Grace$/);
    await expect.poll(() => page.locator('.badge').first().textContent(), { timeout: 15_000 }).toBe('ended');
    expect(await api.get(`/v1/calls/${callId}`)).toMatchObject({ to, status: 'ended', variables: { name: 'Grace' } });
    await page.close();
  }, 60_000);

  it('sets allowed countries and "Require signature timestamp" in the agent form; the test call says why a number is refused', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Call guards UI');
    const api = apiAs(page);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel('Name').fill('Guarded');
    await page.getByLabel('Allowed countries').fill('us, XX');
    await page.getByLabel('Require signature timestamp').check();
    await page.getByRole('button', { name: 'Save' }).click();
    // The API names the code by its place in the list; the form shows which code that is.
    await expect
      .poll(() => page.locator('[data-path="$.allowedCountries[1]"]').textContent())
      .toMatch(/^XX: is not an ISO 3166 alpha-2 country code/);
    expect((await api.get('/v1/agents')).data).toEqual([]);
    await page.getByLabel('Allowed countries').fill('us, ca, US');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_/);
    const agentId = page.url().split('/').at(-1)!;
    expect(await api.get(`/v1/agents/${agentId}`)).toMatchObject({
      allowedCountries: ['US', 'CA'],
      requireSignatureTimestamp: true,
    });
    await page.reload();
    await expect.poll(() => page.getByLabel('Allowed countries').inputValue()).toBe('US, CA');
    expect(await page.getByLabel('Require signature timestamp').isChecked()).toBe(true);

    // The test call is signed with a timestamp, as the agent requires; refusals show beside the number.
    await page.getByRole('tab', { name: 'Test call' }).click();
    await page.getByLabel('Phone number').fill('+442079460000');
    await page.getByRole('button', { name: 'Test call' }).click();
    await expect
      .poll(() => page.locator('[data-path="$.phone"]').textContent())
      .toBe('Is a number of GB; this agent calls only US, CA (its allowedCountries)');
    await page.getByLabel('Phone number').fill('+19005550123');
    await page.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => page.locator('[data-path="$.phone"]').textContent()).toContain('Is a premium-rate number');
    await screenshot(page, 'agents-06-call-guards-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'agents-06-call-guards-390');
    await page.getByLabel('Phone number').fill(nextPhone());
    await page.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => page.url()).toMatch(/\/calls\/call_/);
    await page.close();
  });

  it('adds a webhook with trigger conditions, sends a test, reveals and rotates its secret', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Webhooks UI');
    const api = apiAs(page);
    const agent = await (await api.post('/v1/agents', { name: 'Hooked' })).json();
    await page.goto(`${t.url}/agents/${agent.id}?tab=webhooks`);
    await expect.poll(() => page.getByText('No webhooks yet.').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const form = page.getByRole('form', { name: 'Webhook New webhook' });
    await form.getByLabel('URL').fill('ftp://nope');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.locator('[data-path="$.url"]').isVisible()).toBe(true);
    await form.getByLabel('URL').fill(`${webhook.url}/hooks`);
    await form.getByLabel('Bearer token').fill('tok-abc');
    await form.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Condition 1 value').fill('SOLD, INTERESTED');
    await form.getByRole('button', { name: 'Add condition' }).click();
    await form.getByLabel('Condition 2 field').fill('durationSeconds');
    await form.getByLabel('Condition 2 operator').selectOption('gte');
    await form.getByLabel('Condition 2 value').fill('10');
    await form.getByRole('button', { name: 'Save' }).click();

    const saved = page.getByRole('form', { name: `Webhook ${webhook.url}/hooks` });
    await expect.poll(() => saved.isVisible()).toBe(true);
    const [integration] = (await api.get(`/v1/agents/${agent.id}/integrations`)).data;
    expect(integration).toMatchObject({
      url: `${webhook.url}/hooks`,
      authorization: '••••••',
      triggerConditions: {
        match: 'all',
        conditions: [
          { field: 'status', operator: 'in', value: ['SOLD', 'INTERESTED'] },
          { field: 'durationSeconds', operator: 'gte', value: 10 },
        ],
      },
    });

    const before = webhook.requests.length;
    await saved.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => saved.getByText('Delivered: HTTP 200').isVisible()).toBe(true);
    expect(webhook.requests).toHaveLength(before + 1);
    expect(webhook.requests.at(-1)?.headers.authorization).toBe('Bearer tok-abc');
    expect(await saved.getByRole('region', { name: 'Test result' }).textContent()).toContain('"test":true');
    await screenshot(page, 'agents-03-webhook');

    // Lists never carry the secret: Reveal reads it from the integration itself.
    expect(integration.signingSecret).toBe('••••••');
    const { signingSecret } = await api.get(`/v1/integrations/${integration.id}`);
    await saved.getByRole('button', { name: 'Reveal' }).click();
    await expect.poll(() => saved.getByTitle('Signing secret').textContent()).toBe(signingSecret);
    await saved.getByRole('button', { name: 'Rotate secret' }).click();
    await saved.getByRole('button', { name: 'Yes, rotate' }).click();
    await expect.poll(() => saved.getByText('The previous secret also signs until').isVisible()).toBe(true);
    const rotated = await api.get(`/v1/integrations/${integration.id}`);
    expect(rotated.signingSecret).not.toBe(signingSecret);
    await page.close();
  }, 60_000);

  it('puts an agent on Vapi with a credential added in Settings, and shows it published without a reload', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Vapi UI');
    await page.getByRole('link', { name: 'Settings' }).click();
    const credentials = page.getByRole('region', { name: 'Provider credentials' });
    await credentials.getByRole('button', { name: 'Add credential' }).click();
    await credentials.getByLabel('Name').fill('Fake Vapi');
    await credentials.getByLabel('API key').fill(vapi.apiKey);
    await credentials.getByLabel('Base URL').fill(vapi.url);
    await credentials.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => credentials.getByText('Stored key ends in').isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel('Name').fill('Real agent');
    await page.getByLabel('Provider', { exact: true }).selectOption('vapi');
    await page.getByLabel('Provider credential').selectOption({ label: `Fake Vapi (…${vapi.apiKey.slice(-4)})` });
    await page.getByLabel('From number').fill('+14155550100');
    await page.getByLabel('First message').fill('Hello {{name}}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_/);
    await page.getByRole('tab', { name: 'Settings' }).click();
    // Published in the background: the page follows the state until the provider has the assistant.
    await expect.poll(() => page.getByText('last published').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.locator('.badge').first().textContent()).toBe('synced');
    expect([...vapi.assistants.values()].map((a) => (a as { name: string }).name)).toContain('Real agent');
    expect(vapi.violations).toEqual([]);
    await screenshot(page, 'agents-04-vapi');
    await page.close();
  }, 60_000);
});
