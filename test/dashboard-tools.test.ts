import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { haveBrowser, launchBrowser, screenshot, signUpInBrowser } from './helpers/browser.js';
import { type FakeVapi, startFakeVapi } from './helpers/fake-vapi.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

let t: TestApp;
let browser: Browser;
let receiver: Receiver;
let vapi: FakeVapi;

/** The `.field` block holding a labelled control: where the API's error for that control appears. */
const fieldOf = (page: Page, label: string) =>
  page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).last();

const openTools = async (page: Page) => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tools', exact: true }).click();
  await expect.poll(() => page.getByRole('heading', { name: 'Tools', exact: true }).isVisible()).toBe(true);
};

describe.runIf(haveBrowser)('the dashboard: tools', () => {
  beforeAll(async () => {
    receiver = await startReceiver();
    vapi = await startFakeVapi();
    t = await startTestApp();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
    await vapi?.close();
  });

  it('creates a tool with nested parameters through the form, previews its AI schema live, tests it against a real endpoint, and deletes it', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Tools UI');
    await openTools(page);

    // Empty states: no tools yet, and no agent to import from.
    await expect.poll(() => page.getByText('No tools yet.').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('No agent uses Vapi or Retell yet.').isVisible()).toBe(true);
    await screenshot(page, 'tools-01-list-empty');

    await page.getByRole('link', { name: 'New tool' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'New tool' }).isVisible()).toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('create_order');
    await page.getByLabel('Method', { exact: true }).selectOption('POST');
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/orders`);

    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 key').fill('X-Account');
    await page.getByLabel('Header 1 mode').selectOption({ label: 'Variable' });
    await page.getByLabel('Header 1 value').fill('{{account}}');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 2 key').fill('X-Source');
    await page.getByLabel('Header 2 value').fill('switchboard');
    // A secret: its name alone makes it one (the box is left as it is).
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 3 key').fill('Authorization');
    await page.getByLabel('Header 3 value').fill('Bearer sk_live_1');

    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 1 name').fill('account');
    await page.getByLabel('Variable 1 default value').fill('acct_default');

    // customer: an AI-filled object whose tier may only be gold or silver.
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Parameter 1 name', { exact: true }).fill('customer');
    await page.getByLabel('Parameter 1 type', { exact: true }).selectOption('object');
    await page.getByLabel('Parameter 1 required', { exact: true }).check();
    await page.getByRole('button', { name: 'Add field to Parameter 1', exact: true }).click();
    await page.getByLabel('Parameter 1 field 1 name', { exact: true }).fill('tier');
    await page.getByLabel('Parameter 1 field 1 description', { exact: true }).fill('The loyalty tier');
    await page.getByLabel('Parameter 1 field 1 allowed values', { exact: true }).fill('gold, silver');
    await page.getByLabel('Parameter 1 field 1 required', { exact: true }).check();
    // items: an array of objects with a sku.
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Parameter 2 name', { exact: true }).fill('items');
    await page.getByLabel('Parameter 2 type', { exact: true }).selectOption('array');
    await page.getByLabel('Parameter 2 item type', { exact: true }).selectOption('object');
    await page.getByRole('button', { name: 'Add item field to Parameter 2', exact: true }).click();
    await page.getByLabel('Parameter 2 item field 1 name', { exact: true }).fill('sku');
    // account_id: taken from the call's variables, never shown to the model.
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Parameter 3 name', { exact: true }).fill('account_id');
    await page.getByLabel('Parameter 3 fill mode', { exact: true }).selectOption({ label: 'Variable' });
    await page.getByLabel('Parameter 3 value', { exact: true }).fill('{{account}}');

    // Over 1,200 characters: the counter turns red and the API refuses the save, beside Description.
    const counter = page.getByTestId('description-count');
    await page.getByLabel('Description', { exact: true }).fill('Creates an order. '.repeat(70));
    await expect.poll(() => counter.textContent()).toBe('1,260 / 1,200');
    expect(await counter.getAttribute('class')).toBe('hint over');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => fieldOf(page, 'Description').getByRole('alert').textContent()).toMatch(/1200 characters/);
    await expect.poll(() => page.locator('.error.banner').textContent()).toContain('$.description');
    expect(page.url()).toBe(`${t.url}/tools/new`);
    // The preview is refused too, and says why: "Not valid yet", or "Out of date" when a preview
    // made between two edits (a slow machine's debounce) was valid and is still shown below.
    const preview = page.getByRole('region', { name: 'AI schema preview' });
    await expect.poll(() => preview.getByRole('status').textContent()).toMatch(/Not valid yet|Out of date/);
    await expect.poll(() => preview.textContent()).toContain('$.description');

    await page.getByLabel('Description', { exact: true }).fill('Creates an order once the caller chose the items.');
    await expect.poll(() => counter.textContent()).toBe('49 / 1,200');
    expect(await counter.getAttribute('class')).toBe('hint');
    // The schema the model will see, before anything is saved: AI-filled parameters only.
    const expectedSchema = {
      type: 'object',
      properties: {
        customer: {
          type: 'object',
          properties: { tier: { type: 'string', description: 'The loyalty tier', enum: ['gold', 'silver'] } },
          required: ['tier'],
          additionalProperties: false,
        },
        items: {
          type: 'array',
          items: { type: 'object', properties: { sku: { type: 'string' } }, additionalProperties: false },
        },
      },
      required: ['customer'],
      additionalProperties: false,
    };
    await expect
      .poll(async () => JSON.parse((await page.getByTestId('ai-schema').textContent()) ?? 'null'))
      .toEqual(expectedSchema);
    expect(await page.getByTestId('ai-schema').getAttribute('data-stale')).toBe('false');
    expect((await t.request('GET', '/v1/tools', { headers: await sessionHeaders(page) })).body.data).toEqual([]);

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Tool create_order' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Saved.').isVisible()).toBe(true);
    expect(page.url()).toMatch(new RegExp(`^${t.url}/tools/tool_`));
    const stored = (await t.request('GET', '/v1/tools', { headers: await sessionHeaders(page) })).body.data;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      name: 'create_order',
      headers: [
        { key: 'X-Account', mode: 'variable', value: '{{account}}' },
        { key: 'X-Source', mode: 'fixed', value: 'switchboard' },
        { key: 'Authorization', mode: 'fixed', value: '••••••', secret: true },
      ],
      variables: [{ name: 'account', defaultValue: 'acct_default' }],
      aiSchema: expectedSchema,
    });
    await expect
      .poll(async () => JSON.parse((await page.getByTestId('ai-schema').textContent()) ?? 'null'))
      .toEqual(expectedSchema);
    // The stored secret comes back masked, never in the form.
    expect(await page.getByLabel('Header 3 value').inputValue()).toBe('••••••');
    expect(await page.getByLabel('Header 3 secret').isChecked()).toBe(true);
    await screenshot(page, 'tools-02-editor');

    // The Test panel: bad JSON is said beside it and nothing is sent.
    const panel = page.getByRole('region', { name: 'Test the tool' });
    const args = panel.getByLabel('Arguments (JSON)');
    expect(JSON.parse(await args.inputValue())).toEqual({ customer: { tier: 'gold' }, items: [{ sku: '' }] });
    await args.fill('{"customer": ');
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect
      .poll(() => fieldOf(page, 'Arguments (JSON)').getByRole('alert').textContent())
      .toMatch(/Not valid JSON/);
    expect(receiver.requests).toHaveLength(0);

    receiver.answer((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{"orderId":"ord_77"}');
    });
    await args.fill('{"customer": {"tier": "silver"}, "items": [{"sku": "A-1"}, {"sku": "B-2"}]}');
    await panel.getByLabel('Test variable 1 value').fill('acct_42');
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => panel.getByTestId('response-status').textContent(), { timeout: 15_000 }).toBe('201');
    expect(receiver.requests).toHaveLength(1);
    const received = receiver.requests[0]!;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/orders');
    expect(received.headers['x-account']).toBe('acct_42');
    expect(received.headers['x-source']).toBe('switchboard');
    expect(JSON.parse(received.body)).toEqual({
      customer: { tier: 'silver' },
      items: [{ sku: 'A-1' }, { sku: 'B-2' }],
      account_id: 'acct_42',
    });
    // What the panel shows is what the endpoint got: the request line, every header, the body byte for byte.
    expect(await panel.getByTestId('request-line').textContent()).toBe(`POST ${receiver.url}${received.url}`);
    const shownHeaders: string[][] = await panel
      .locator('table.headers tr')
      .evaluateAll((rows) =>
        rows.map((row) => [row.querySelector('th')?.textContent ?? '', row.querySelector('td')?.textContent ?? '']),
      );
    expect(shownHeaders.map(([key]) => key?.toLowerCase())).toEqual(expect.arrayContaining(['x-account', 'x-source']));
    // Secret values are masked in what is shown and recorded, and sent in full.
    for (const [key, value] of shownHeaders) {
      const expected = key === 'authorization' ? 'Bearer sk_live_1' : value;
      expect(received.headers[key!.toLowerCase()], key).toBe(expected);
    }
    expect(shownHeaders).toContainEqual(['authorization', 'Bearer ••••••']);
    expect(await panel.getByTestId('request-body').textContent()).toBe(received.body);
    expect(await panel.getByTestId('response-body').textContent()).toBe('{"orderId":"ord_77"}');
    expect(await panel.getByTestId('test-result').textContent()).toBe('{"orderId":"ord_77"}');
    await screenshot(page, 'tools-03-test-panel');

    // An invalid header key: the API's error beside that header, and the preview marked out of date.
    await page.getByLabel('Header 2 key').fill('X Source');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('[data-path="$.headers[1].key"]').textContent())
      .toMatch(/no spaces or colons/);
    const headerBlock = page.locator('.tool-row-block', { has: page.getByLabel('Header 2 key') });
    expect(await headerBlock.getByRole('alert').textContent()).toMatch(/no spaces or colons/);
    await expect.poll(() => page.getByTestId('ai-schema').getAttribute('data-stale')).toBe('true');
    await expect.poll(() => preview.getByRole('status').textContent()).toMatch(/Out of date/);
    await page.getByLabel('Header 2 key').fill('X-Origin');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved.').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('ai-schema').getAttribute('data-stale')).toBe('false');
    // That save sent the mask back for Authorization: the stored secret was kept, as a second test shows.
    await panel.getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => receiver.requests.length, { timeout: 15_000 }).toBe(2);
    expect(receiver.requests[1]!.headers).toMatchObject({
      authorization: 'Bearer sk_live_1',
      'x-origin': 'switchboard',
    });

    // Another host with the dots left in: the API asks for the secret again, and says so beside it.
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url.replace('127.0.0.1', 'localhost')}/orders`);
    await page.getByRole('button', { name: 'Save' }).click();
    const secretBlock = page.locator('.tool-row-block', { has: page.getByLabel('Header 3 value') });
    await expect.poll(() => secretBlock.getByRole('alert').textContent()).toMatch(/^Must be given again/);
    expect((await t.request('GET', '/v1/tools', { headers: await sessionHeaders(page) })).body.data[0].url).toBe(
      `${receiver.url}/orders`,
    );
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/orders`);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved.').isVisible()).toBe(true);

    // The list: name, method, URL and how many parameters.
    await openTools(page);
    const row = page.getByRole('row', { name: /create_order/ });
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'create_order',
      'POST',
      `${receiver.url}/orders`,
      '3',
    ]);
    await screenshot(page, 'tools-04-list');

    await row.getByRole('link', { name: 'create_order' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.getByText('No tools yet.').isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/tools');
    expect((await t.request('GET', '/v1/tools', { headers: await sessionHeaders(page) })).body.data).toEqual([]);
    await page.close();
  }, 120_000);

  it('imports tools defined at Vapi for an agent on Vapi, saying which cannot be imported; pages a long list', async () => {
    const page = await browser.newPage();
    await signUpInBrowser(page, t.url, 'Import UI');
    const credential = await page.request.post(`${t.url}/v1/provider-credentials`, {
      data: {
        provider: 'vapi',
        name: 'Vapi',
        apiKey: vapi.apiKey,
        webhookSecret: 'hook_secret_of_the_dashboard_test',
        baseUrl: vapi.url,
      },
    });
    expect(credential.status()).toBe(201);
    const agent = await page.request.post(`${t.url}/v1/agents`, {
      data: {
        name: 'Order desk',
        provider: 'vapi',
        providerCredentialId: (await credential.json()).id,
        fromNumber: '+14155550100',
      },
    });
    expect(agent.status()).toBe(201);
    const agentId = (await agent.json()).id as string;
    vapi.seedTool({
      type: 'function',
      function: {
        name: 'lookup_order',
        description: 'Finds an order by its number.',
        parameters: { type: 'object', properties: { order_number: { type: 'string' } }, required: ['order_number'] },
      },
      server: { url: 'https://shop.example.com/orders/lookup' },
    });
    vapi.seedTool({ type: 'endCall', function: { name: 'hang_up' } });

    await openTools(page);
    await expect.poll(() => page.getByText('No tools yet.').isVisible()).toBe(true);
    const section = page.getByRole('region', { name: 'Import from a provider' });
    await section.getByLabel('Agent', { exact: true }).selectOption({ label: 'Order desk (Vapi)' });
    await expect.poll(() => section.getByLabel('Import lookup_order').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await section.getByLabel('Import hang_up').isDisabled()).toBe(true);
    expect(await section.getByRole('row', { name: /hang_up/ }).textContent()).toMatch(/Cannot be imported/);

    await section.getByLabel('Import lookup_order').check();
    await section.getByRole('button', { name: 'Import selected (1)' }).click();
    const result = section.getByRole('status', { name: 'Import result' });
    await expect
      .poll(() => result.textContent(), { timeout: 15_000 })
      .toMatch(/Imported 1 tool and attached it to Order desk/);
    // The list shows the new tool at once, and the API agrees: created and attached to the agent.
    await expect
      .poll(() =>
        page
          .getByRole('row', { name: /lookup_order/ })
          .first()
          .isVisible(),
      )
      .toBe(true);
    const tools = (await t.request('GET', '/v1/tools', { headers: await sessionHeaders(page) })).body.data;
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(['lookup_order']);
    const attached = await page.request.get(`${t.url}/v1/agents/${agentId}`);
    expect((await attached.json()).toolIds).toEqual([tools[0].id]);
    await screenshot(page, 'tools-05-import');

    await result.getByRole('link', { name: 'lookup_order' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Tool lookup_order' }).isVisible()).toBe(true);

    // A long list pages: 25 tools a page.
    const headers = await sessionHeaders(page);
    for (let i = 1; i <= 25; i++) {
      const made = await t.request('POST', '/v1/tools', {
        headers,
        body: { name: `bulk_${String(i).padStart(2, '0')}`, method: 'GET', url: `${receiver.url}/bulk` },
      });
      expect(made.status).toBe(201);
    }
    await openTools(page);
    const toolRows = page.getByRole('table').first().locator('tbody tr');
    await expect.poll(() => toolRows.count()).toBe(25);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => toolRows.allTextContents()).toEqual([expect.stringContaining('lookup_order')]);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => toolRows.count()).toBe(25);
    await page.close();
  }, 90_000);
});

/** The browser's session cookie, to read through the API what the dashboard did. */
async function sessionHeaders(page: Page): Promise<Record<string, string>> {
  const cookies = await page.context().cookies();
  return { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') };
}
