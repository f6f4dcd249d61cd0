import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot, signUpInBrowser } from './helpers/browser.js';
import { type FakeRetell, startFakeRetell } from './helpers/fake-retell.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

// Issue 17 in the dashboard: the agent's definition (what it collects, voice, model, language,
// voicemail, provider settings), the test call through POST /v1/calls, the simulated incoming call,
// the call page's summary, and phone numbers imported from a provider account and bound to an agent.
let t: TestApp;
let browser: Browser;
let vapi: FakeVapi;
let retell: FakeRetell;
let webhook: Receiver;
let shop: Receiver;

const VAPI_NUMBERS = ['+14155550100', '+14155550111'];

describe.runIf(haveBrowser)('the dashboard: how an agent runs, test calls, incoming calls and phone numbers', () => {
  beforeAll(async () => {
    t = await startTestApp({ SWITCHBOARD_PUBLISH_INTERVAL_MS: '100', SWITCHBOARD_ANALYSIS_GRACE_SECONDS: '1' });
    vapi = await startFakeVapi({ phoneNumbers: VAPI_NUMBERS });
    retell = await startFakeRetell();
    webhook = await startReceiver();
    shop = await startReceiver((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"open":"9 to 5"}');
    });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await webhook?.close();
    await shop?.close();
    await retell?.close();
    await vapi?.close();
    await t?.close();
  });

  /** The API with the browser's own session cookie. */
  const apiAs = (page: Page) => ({
    get: async (path: string) => (await page.request.get(`${t.url}${path}`)).json(),
    post: async (path: string, data: unknown) => page.request.post(`${t.url}${path}`, { data }),
  });

  /** The JSON bodies the page sends to `method path` from now on. */
  function sentBodies(page: Page, method: string, path: RegExp): Record<string, unknown>[] {
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (request: Request) => {
      if (request.method() === method && path.test(new URL(request.url()).pathname)) {
        bodies.push(request.postDataJSON() as Record<string, unknown>);
      }
    });
    return bodies;
  }

  /** Nothing on the page is wider than the viewport: the document never scrolls sideways. */
  async function expectNoOverflow(page: Page, width: number, name: string) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = async () => {
      const scrollWidth = await page.locator('html').evaluate((html) => html.scrollWidth);
      const wider = await page.locator('body *').evaluateAll(
        (elements, limit) =>
          elements.flatMap((element) => {
            const box = element.getBoundingClientRect();
            return box.width > 0 && (box.right > limit + 0.5 || box.left < -0.5)
              ? [
                  `${element.tagName.toLowerCase()}.${element.className} ${Math.round(box.left)}–${Math.round(box.right)}`,
                ]
              : [];
          }),
        width,
      );
      return {
        fits: scrollWidth <= width ? true : `the document is ${scrollWidth} px wide`,
        wider: wider.slice(0, 10),
      };
    };
    await expect.poll(overflow, { message: `${name} at ${width} px` }).toEqual({ fits: true, wider: [] });
    await screenshot(page, `${name}-${width}`);
  }

  it('edits every new field of an agent in the browser and saves exactly them; an untouched form sends none of them', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Definition UI');
    const api = apiAs(page);
    const created = sentBodies(page, 'POST', /^\/v1\/agents$/);
    const patched = sentBodies(page, 'PATCH', /^\/v1\/agents\/agt_/);

    // A new agent whose new fields are left alone sends none of them: the server's defaults apply.
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Definition agent');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_/);
    const agentId = page.url().split('/').at(-1)!;
    expect(created).toHaveLength(1);
    for (const key of ['collect', 'voice', 'model', 'language', 'voicemail', 'providerSettings']) {
      expect(created[0], key).not.toHaveProperty(key);
    }
    expect(await api.get(`/v1/agents/${agentId}`)).toMatchObject({
      collect: [],
      voice: null,
      model: null,
      language: null,
      voicemail: null,
      providerSettings: null,
    });

    // What it collects: the seed's presets in one click each, then values of every type.
    await page.getByRole('tab', { name: 'Settings' }).click();
    const collects = page.getByRole('group', { name: 'What the agent collects' });
    await collects.getByRole('button', { name: '+ name', exact: true }).click();
    await collects.getByRole('button', { name: '+ email', exact: true }).click();
    await collects.getByRole('button', { name: '+ address', exact: true }).click();
    expect(await collects.getByRole('button', { name: '+ email', exact: true }).isDisabled()).toBe(true);
    await collects.getByRole('button', { name: 'Add value' }).click();
    await page.getByLabel('Collect 4 name').fill('plan');
    await page.getByLabel('Collect 4 type').selectOption('enum');
    await page.getByLabel('Collect 4 choices').fill('basic, pro ,enterprise');
    await page.getByLabel('Collect 4 description').fill('The plan the caller wants');
    await page.getByLabel('Collect 4 required').check();
    await collects.getByRole('button', { name: 'Add value' }).click();
    await page.getByLabel('Collect 5 name').fill('seats');
    await page.getByLabel('Collect 5 type').selectOption('number');
    await collects.getByRole('button', { name: 'Add value' }).click();
    await page.getByLabel('Collect 6 name').fill('wants callback');
    await page.getByLabel('Collect 6 type').selectOption('boolean');
    // The address is not wanted after all.
    await page.getByRole('button', { name: 'Remove collect 3' }).click();
    expect(await page.getByLabel('Collect 3 name').inputValue()).toBe('plan');

    // Voice (typed: a simulator agent has no provider account to list voices), model, language, voicemail.
    await page.getByLabel('Voice provider').fill('11labs');
    await page.getByLabel('Voice ID').fill('burt');
    await page.getByLabel('Model provider').fill('openai');
    await page.getByLabel('Model', { exact: true }).fill('gpt-4o');
    await page.getByLabel('Temperature').fill('0.4');
    await page.getByLabel('Language').fill('es-ES');
    expect(
      await page.locator('datalist option').evaluateAll((options) => options.map((o) => o.getAttribute('value'))),
    ).toEqual(expect.arrayContaining(['en-US', 'es-ES', 'fr-FR']));
    expect(await page.getByLabel('Voicemail message').count()).toBe(0);
    await page.getByLabel('Voicemail', { exact: true }).selectOption('leave_message');
    await page.getByLabel('Voicemail message').fill('Hola {{name}}, le llamaremos más tarde.');

    // Provider settings that are not JSON are said so beside the field, and nothing is sent.
    await page.getByLabel('Provider settings (JSON object)').fill('{"backgroundSound": office}');
    await expect.poll(() => page.getByText('Not valid JSON yet').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('[data-path="$.providerSettings"]').textContent())
      .toMatch(/^Is not valid JSON/);
    expect(patched).toHaveLength(0);
    await page.getByLabel('Provider settings (JSON object)').fill('{"backgroundSound": "office"}');
    expect(await page.locator('[data-path="$.providerSettings"]').count()).toBe(0);

    // The API's refusal of a collected name is shown beside that row, and nothing is saved.
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('[data-path="$.collect[4].name"]').isVisible()).toBe(true);
    expect(patched).toHaveLength(1);
    expect((await api.get(`/v1/agents/${agentId}`)).collect).toEqual([]);
    await page.getByLabel('Collect 5 name').fill('wants_callback');
    await screenshot(page, 'definition-01-form');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).isVisible()).toBe(true);

    const saved = await api.get(`/v1/agents/${agentId}`);
    expect(saved).toMatchObject({
      collect: [
        { name: 'name', type: 'string', required: false },
        { name: 'email', type: 'string', required: false },
        {
          name: 'plan',
          type: 'enum',
          choices: ['basic', 'pro', 'enterprise'],
          description: 'The plan the caller wants',
          required: true,
        },
        { name: 'seats', type: 'number', required: false },
        { name: 'wants_callback', type: 'boolean', required: false },
      ],
      voice: { provider: '11labs', voiceId: 'burt' },
      model: { provider: 'openai', name: 'gpt-4o', temperature: 0.4 },
      language: 'es-ES',
      voicemail: { action: 'leave_message', message: 'Hola {{name}}, le llamaremos más tarde.' },
      providerSettings: { backgroundSound: 'office' },
    });
    expect(saved.collect).toHaveLength(5);
    expect(saved.collect[0].choices).toBeUndefined();

    // Read back into the form after a reload.
    await page.reload();
    await expect.poll(() => page.getByLabel('Collect 3 choices').inputValue()).toBe('basic, pro, enterprise');
    expect(await page.getByLabel('Collect 3 required').isChecked()).toBe(true);
    expect(await page.getByLabel('Collect 5 type').inputValue()).toBe('boolean');
    expect(await page.getByLabel('Voice ID').inputValue()).toBe('burt');
    expect(await page.getByLabel('Temperature').inputValue()).toBe('0.4');
    expect(await page.getByLabel('Language').inputValue()).toBe('es-ES');
    expect(await page.getByLabel('Voicemail', { exact: true }).inputValue()).toBe('leave_message');
    expect(JSON.parse(await page.getByLabel('Provider settings (JSON object)').inputValue())).toEqual({
      backgroundSound: 'office',
    });

    // Clearing fields sends them as null (and a shorter list); fields left alone are not sent.
    patched.length = 0;
    await page.getByLabel('Voice provider').fill('');
    await page.getByLabel('Voice ID').fill('');
    await page.getByRole('button', { name: 'Remove collect 4' }).click();
    await page.getByLabel('Voicemail', { exact: true }).selectOption('hang_up');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).isVisible()).toBe(true);
    expect(patched).toHaveLength(1);
    expect(patched[0]).toMatchObject({ voice: null, voicemail: { action: 'hang_up' } });
    expect((patched[0]!.collect as unknown[]).length).toBe(4);
    for (const key of ['model', 'language', 'providerSettings']) expect(patched[0], key).not.toHaveProperty(key);
    expect(await api.get(`/v1/agents/${agentId}`)).toMatchObject({
      voice: null,
      voicemail: { action: 'hang_up' },
      model: { provider: 'openai', name: 'gpt-4o', temperature: 0.4 },
      language: 'es-ES',
      providerSettings: { backgroundSound: 'office' },
    });
    expect((await api.get(`/v1/agents/${agentId}`)).collect.map((c: { name: string }) => c.name)).toEqual([
      'name',
      'email',
      'plan',
      'wants_callback',
    ]);

    await expectNoOverflow(page, 1280, 'definition-02-form');
    await expectNoOverflow(page, 390, 'definition-02-form');
    await page.close();
  }, 90_000);

  it("picks the voice from the voices of the agent's provider account", async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Voices UI');
    const api = apiAs(page);
    const credential = await (
      await api.post('/v1/provider-credentials', {
        provider: 'retell',
        name: 'Fake Retell',
        apiKey: retell.apiKey,
        baseUrl: retell.url,
      })
    ).json();
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Retell voice');
    await page.getByLabel('Provider', { exact: true }).selectOption('retell');
    await page.getByLabel('Provider credential').selectOption(credential.id);
    await page.getByLabel('From number').fill('+14155550100');
    const voice = page.getByLabel('Voice', { exact: true });
    await expect
      .poll(() => voice.locator('option').allTextContents())
      .toContain('Adrian · elevenlabs, male, American, Young');
    expect(await page.getByLabel('Voice ID').count()).toBe(0);
    await voice.selectOption({ label: 'Alloy · openai, female' });
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_/);
    const agentId = page.url().split('/').at(-1)!;
    expect((await api.get(`/v1/agents/${agentId}`)).voice).toEqual({ provider: 'openai', voiceId: 'openai-Alloy' });
    await page.reload();
    await expect
      .poll(() => page.getByLabel('Voice', { exact: true }).locator('option:checked').textContent())
      .toBe('Alloy · openai, female');
    // A voice the list does not have is typed in.
    await page.getByLabel('Voice', { exact: true }).selectOption({ label: 'Another voice (type it)' });
    await page.getByLabel('Voice provider').fill('elevenlabs');
    await page.getByLabel('Voice ID').fill('11labs-Custom');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).isVisible()).toBe(true);
    expect((await api.get(`/v1/agents/${agentId}`)).voice).toEqual({
      provider: 'elevenlabs',
      voiceId: '11labs-Custom',
    });
    expect(retell.violations).toEqual([]);
    await page.close();
  }, 60_000);

  it('places a test call through POST /v1/calls for an outbound agent, and the call page shows its direction, summary and collected data', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Outbound UI');
    const api = apiAs(page);
    const calls = sentBodies(page, 'POST', /^\/v1\/calls$/);
    const agent = await (
      await api.post('/v1/agents', {
        name: 'Renewals',
        type: 'outbound',
        firstMessage: 'Hi {{name}}, about your plan.',
        collect: [{ name: 'plan', type: 'enum', choices: ['basic', 'pro'], description: 'The plan chosen' }],
        simulator: {
          answer: 'answered',
          turns: [{ role: 'user', text: 'Pro, please.' }],
          outcome: { status: 'SOLD', collectedData: { plan: 'pro' } },
        },
      })
    ).json();
    expect(agent.id).toMatch(/^agt_/);
    await page.goto(`${t.url}/agents/${agent.id}`);

    // The summary is part of the scenario, edited in the form.
    await page.getByLabel('Call summary').fill('Renewed on the pro plan.');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).isVisible()).toBe(true);

    await page.getByRole('tab', { name: 'Test call' }).click();
    const panel = page.getByRole('form', { name: 'Test call' });
    expect(await page.getByRole('button', { name: 'Show Credentials & Instructions' }).count()).toBe(0);
    await panel.getByLabel('Phone number').fill('555-0100');
    await panel.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => panel.locator('[data-path="$.phone"]').textContent()).toMatch(/E\.164/);
    const to = nextPhone();
    await panel.getByLabel('Phone number').fill(to);
    await panel.getByLabel('{{name}}').fill('Ada');
    await panel.getByRole('button', { name: 'Test call' }).click();
    await expect.poll(() => page.url()).toMatch(/\/calls\/call_/);
    const callId = page.url().split('/').at(-1)!;
    expect(calls.at(-1)).toEqual({ agentId: agent.id, phone: to, variables: { name: 'Ada' } });

    await expect
      .poll(() => page.getByTestId('call-summary').textContent(), { timeout: 15_000 })
      .toBe('Renewed on the pro plan.');
    const fact = (label: string) => page.locator('dl.facts > div', { has: page.locator(`dt:text-is("${label}")`) });
    expect(await fact('Direction').locator('dd').textContent()).toBe('Outbound');
    expect(await page.getByRole('heading', { name: `Call to ${to}` }).isVisible()).toBe(true);
    expect(await page.getByRole('table', { name: 'Collected data' }).textContent()).toBe('planpro');
    expect(await page.getByRole('region', { name: 'Warnings' }).count()).toBe(0);
    expect(await page.locator('audio').count()).toBe(0);
    expect(await api.get(`/v1/calls/${callId}`)).toMatchObject({
      direction: 'outbound',
      summary: 'Renewed on the pro plan.',
      collectedData: { plan: 'pro' },
    });

    // The calls list has a direction column.
    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    const row = page.getByRole('table', { name: 'Calls' }).locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('Outbound');
    await expectNoOverflow(page, 1280, 'definition-03-calls');
    await page.close();
  }, 60_000);

  it('simulates an incoming call for an inbound agent: its tools run, its outcome is delivered, the call page says inbound', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Inbound UI');
    const api = apiAs(page);
    const tool = await (
      await api.post('/v1/tools', { name: 'opening_hours', method: 'GET', url: `${shop.url}/hours` })
    ).json();
    const agent = await (
      await api.post('/v1/agents', {
        name: 'Front desk',
        type: 'inbound',
        firstMessage: 'Front desk, {{name}} speaking.',
        toolIds: [tool.id],
        simulator: {
          answer: 'answered',
          turns: [
            { role: 'user', text: 'Is the shop open?' },
            { tool: 'opening_hours', args: {} },
            { role: 'agent', text: 'We are open {{tool.opening_hours.open}}.' },
          ],
          outcome: { status: 'COMPLETED', summary: 'Asked about opening hours.' },
        },
      })
    ).json();
    await api.post(`/v1/agents/${agent.id}/integrations`, { url: `${webhook.url}/inbound` });
    await page.goto(`${t.url}/agents/${agent.id}?tab=test-call`);
    // An inbound agent is not called out: no test call, a simulated incoming call instead.
    await expect.poll(() => page.getByRole('form', { name: 'Simulate an incoming call' }).isVisible()).toBe(true);
    expect(await page.getByRole('form', { name: 'Test call' }).count()).toBe(0);
    const panel = page.getByRole('form', { name: 'Simulate an incoming call' });

    await panel.getByLabel("Caller's number").fill('not a number');
    await panel.getByRole('button', { name: 'Simulate an incoming call' }).click();
    await expect.poll(() => panel.locator('[data-path="$.from"]').isVisible()).toBe(true);
    await expectNoOverflow(page, 390, 'definition-04-inbound-panel');
    await page.setViewportSize({ width: 1280, height: 900 });

    const from = nextPhone();
    await panel.getByLabel("Caller's number").fill(from);
    await panel.getByLabel('{{name}}').fill('Sam');
    await panel.getByRole('button', { name: 'Simulate an incoming call' }).click();
    await expect.poll(() => page.url()).toMatch(/\/calls\/call_/);
    const callId = page.url().split('/').at(-1)!;
    await expect.poll(() => page.getByRole('heading', { name: `Call from ${from}` }).isVisible()).toBe(true);
    await expect
      .poll(() => page.getByTestId('call-summary').textContent(), { timeout: 15_000 })
      .toBe('Asked about opening hours.');
    const turns = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => turns.count()).toBe(4);
    expect(await turns.first().textContent()).toMatch(/Front desk, Sam speaking\.$/);
    expect(await turns.nth(2).textContent()).toMatch(/^Tool opening_hours/);
    expect(await turns.nth(3).textContent()).toMatch(/We are open 9 to 5\.$/);
    expect(shop.requests.map((r) => r.url)).toEqual(['/hours']);
    const delivery = page.getByRole('article', { name: /^Delivery / });
    await expect.poll(() => delivery.locator('.badge').first().textContent(), { timeout: 15_000 }).toBe('delivered');
    const received = webhook.requests.filter((r) => r.url === '/inbound');
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ callId, direction: 'inbound', from });
    expect(await api.get(`/v1/calls/${callId}`)).toMatchObject({ direction: 'inbound', from });

    await page.getByRole('link', { name: 'Calls', exact: true }).click();
    const row = page.getByRole('table', { name: 'Calls' }).locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('Inbound');
    expect(await row.textContent()).toContain(from);
    await expectNoOverflow(page, 390, 'definition-05-calls');
    await page.close();
  }, 60_000);

  it("plays a Vapi call's recording on the call page and lists what its report could not keep", async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Recording UI');
    const api = apiAs(page);
    const secret = 'whs_recording_ui_0123456789abcdef';
    const credential = await (
      await api.post('/v1/provider-credentials', {
        provider: 'vapi',
        name: 'Fake Vapi',
        apiKey: vapi.apiKey,
        webhookSecret: secret,
        baseUrl: vapi.url,
      })
    ).json();
    const agent = await (
      await api.post('/v1/agents', {
        name: 'Surveys',
        type: 'outbound',
        provider: 'vapi',
        providerCredentialId: credential.id,
        fromNumber: VAPI_NUMBERS[0],
        firstMessage: 'Hi, a short survey.',
        collect: [{ name: 'age', type: 'number', description: "The caller's age" }],
      })
    ).json();
    await expect
      .poll(async () => (await api.get(`/v1/agents/${agent.id}`)).providerSync.state, { timeout: 20_000 })
      .toBe('synced');
    const placed = await api.post('/v1/calls', { agentId: agent.id, phone: nextPhone() });
    expect(placed.status()).toBe(201);
    const callId = (await placed.json()).id as string;
    const recordingUrl = 'https://storage.vapi.ai/recording-ui.wav';
    const report = await page.request.post(`${t.url}/providers/vapi/webhook`, {
      headers: { 'x-vapi-secret': secret },
      data: {
        message: {
          type: 'end-of-call-report',
          endedReason: 'customer-ended-call',
          startedAt: '2026-11-21T10:00:00.000Z',
          endedAt: '2026-11-21T10:00:42.000Z',
          call: { id: `vapi-${callId}`, assistantOverrides: { metadata: { switchboardCallId: callId } } },
          artifact: {
            messages: [{ role: 'bot', message: 'Hi, a short survey.', time: 1795341601000 }],
            recording: { mono: { combinedUrl: recordingUrl } },
          },
          analysis: { summary: 'The caller took the survey.', structuredData: { status: 'COMPLETED', age: 'forty' } },
        },
      },
    });
    expect(report.status()).toBe(200);

    await page.goto(`${t.url}/calls/${callId}`);
    await expect
      .poll(() => page.getByTestId('call-summary').textContent(), { timeout: 15_000 })
      .toBe('The caller took the survey.');
    const audio = page.locator('audio');
    expect(await audio.getAttribute('src')).toBe(recordingUrl);
    expect(await audio.getAttribute('controls')).not.toBeNull();
    // Fetched only when played: the page itself loads nothing from the provider's storage.
    expect(await audio.getAttribute('preload')).toBe('none');
    expect(await page.getByRole('list', { name: 'Warnings' }).textContent()).toBe(
      'collectedData.age: expected a number, got "forty"',
    );
    expect(await page.getByRole('table', { name: 'Collected data' }).textContent()).toBe('ageforty');
    await expectNoOverflow(page, 1280, 'definition-06-call-page');
    await expectNoOverflow(page, 390, 'definition-06-call-page');
    expect(vapi.violations).toEqual([]);
    await page.close();
  }, 60_000);

  it('imports a number from a Vapi account, binds it to an inbound agent and unbinds it, and deletes it after asking', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Numbers UI');
    const api = apiAs(page);
    const credential = await (
      await api.post('/v1/provider-credentials', {
        provider: 'vapi',
        name: 'Fake Vapi',
        apiKey: vapi.apiKey,
        baseUrl: vapi.url,
      })
    ).json();
    const agent = await (
      await api.post('/v1/agents', {
        name: 'Reception',
        type: 'inbound',
        provider: 'vapi',
        providerCredentialId: credential.id,
        prompt: 'Answer questions about the shop.',
        firstMessage: 'Hello, reception.',
      })
    ).json();
    await api.post('/v1/agents', { name: 'Outbound one', type: 'outbound' });

    await page.getByRole('link', { name: 'Phone numbers' }).click();
    await expect.poll(() => page.getByText('No phone numbers yet.').isVisible()).toBe(true);
    await expectNoOverflow(page, 390, 'numbers-01-empty');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Import: the account's numbers are listed to pick from.
    await page.getByRole('button', { name: 'Import a number' }).click();
    const importForm = page.getByRole('form', { name: 'Import a number' });
    await importForm.getByLabel('Provider account').selectOption(credential.id);
    const numberSelect = importForm.getByLabel('Number', { exact: true });
    await expect
      .poll(() => numberSelect.locator('option').allTextContents())
      .toEqual(['— choose a number —', ...VAPI_NUMBERS]);
    await numberSelect.selectOption({ label: VAPI_NUMBERS[1]! });
    expect(await importForm.getByLabel('Answered by').locator('option').allTextContents()).toEqual([
      '— no agent —',
      'Reception',
    ]);
    await importForm.getByRole('button', { name: 'Import' }).click();
    const rows = page.locator('.phone-numbers tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(VAPI_NUMBERS[1]);
    const [imported] = (await api.get('/v1/phone-numbers')).data;
    expect(imported).toMatchObject({
      number: VAPI_NUMBERS[1],
      provider: 'vapi',
      providerCredentialId: credential.id,
      providerNumberId: 'pn_1',
      agentId: null,
    });
    // Imported numbers cannot be picked again.
    await page.getByRole('button', { name: 'Import a number' }).click();
    await importForm.getByLabel('Provider account').selectOption(credential.id);
    await expect
      .poll(() => numberSelect.locator('option:disabled').allTextContents())
      .toEqual([`${VAPI_NUMBERS[1]} — imported`]);
    await importForm.getByRole('button', { name: 'Cancel' }).click();

    // Bind: the binding is published to Vapi in the background, and the list follows it.
    const bindForm = page.getByRole('form', { name: `Agent for ${VAPI_NUMBERS[1]}` });
    await bindForm.getByLabel(`Agent answering ${VAPI_NUMBERS[1]}`).selectOption({ label: 'Reception' });
    await bindForm.getByRole('button', { name: 'Bind' }).click();
    // Saved (the button goes once the list shows the number bound), then published.
    await expect.poll(() => bindForm.getByRole('button').count()).toBe(0);
    expect((await api.get(`/v1/phone-numbers/${imported.id}`)).agentId).toBe(agent.id);
    await expect
      .poll(() => vapi.phoneNumbers.find((n) => n.id === 'pn_1')?.assistantId, { timeout: 20_000 })
      .toBeTruthy();
    expect(vapi.phoneNumbers.find((n) => n.id === 'pn_1')?.assistantId).toBe(
      (await api.get(`/v1/agents/${agent.id}`)).providerSync.providerAgentId,
    );
    await expect.poll(() => rows.first().locator('.badge').textContent(), { timeout: 20_000 }).toBe('synced');
    await expectNoOverflow(page, 1280, 'numbers-02-bound');
    await expectNoOverflow(page, 390, 'numbers-02-bound');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Unbind.
    await bindForm.getByLabel(`Agent answering ${VAPI_NUMBERS[1]}`).selectOption({ label: '— no agent —' });
    await bindForm.getByRole('button', { name: 'Unbind' }).click();
    await expect.poll(async () => (await api.get(`/v1/phone-numbers/${imported.id}`)).agentId).toBeNull();
    await expect
      .poll(() => vapi.phoneNumbers.find((n) => n.id === 'pn_1')?.assistantId ?? null, { timeout: 20_000 })
      .toBeNull();

    // Delete asks first.
    await rows.first().getByRole('button', { name: 'Delete' }).click();
    await rows.first().getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.getByText('No phone numbers yet.').isVisible()).toBe(true);
    expect((await api.get('/v1/phone-numbers')).data).toEqual([]);
    expect(vapi.violations).toEqual([]);
    await page.close();
  }, 90_000);
});
