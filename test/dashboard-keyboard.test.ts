import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPhone, startTestApp, type TestApp } from './helpers/app.js';
import { expectAccessible, haveBrowser, type InPage, launchBrowser, screenshot, tabTo } from './helpers/browser.js';

// The dashboard with the keyboard alone (issue 18 §4): a new user signs up, creates a simulator agent and
// places a test call without the mouse. Every step reaches its control with Tab (or the arrow keys inside
// the agent's tabs, as the ARIA tabs pattern has it) and works it with Enter, Space or typing; no
// .click() and no .fill(), so a control only the mouse can reach or work fails here.

let t: TestApp;
let browser: Browser;
let page: Page;

/** Tab to the control, then check the focus shows on it (WCAG 2.4.7): an outline or a ring around it. */
async function reach(locator: Locator, backwards = false) {
  await tabTo(page, locator, 80, backwards);
  const ring = await locator.evaluate((element) => {
    const style = (globalThis as unknown as InPage).getComputedStyle(element);
    return { outline: `${style.outlineStyle} ${style.outlineWidth}`, shadow: style.boxShadow };
  });
  expect(
    (!ring.outline.startsWith('none') && !ring.outline.endsWith(' 0px')) || ring.shadow !== 'none',
    `the focus shows on ${locator}: outline ${ring.outline}, box-shadow ${ring.shadow}`,
  ).toBe(true);
}

const focusedName = () =>
  page.evaluate(() => {
    const active = (globalThis as unknown as InPage).document.activeElement;
    return active ? (active.getAttribute('aria-label') ?? active.textContent ?? '').trim() : '';
  });

describe.runIf(haveBrowser)('the dashboard with the keyboard alone', () => {
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs up, creates a simulator agent and places a test call that ends, then finds it in the calls list', async () => {
    // Sign up: from the log-in form, "Sign up" swaps the form; Enter in the password submits it.
    await page.goto(t.url);
    await reach(page.getByRole('button', { name: 'Sign up' }));
    await page.keyboard.press('Enter');
    await reach(page.getByLabel('Organization'));
    await page.keyboard.type('Keys Only Ltd');
    await page.keyboard.press('Tab');
    const email = `keys-${Date.now()}@example.com`;
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery');
    await page.keyboard.press('Enter');
    await page.getByText('Switchboard · Keys Only Ltd').waitFor({ timeout: 10_000 });

    // Agents, then "New agent".
    await reach(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Agents' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/agents');
    await reach(page.getByRole('link', { name: 'New agent' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/agents/new');

    // The form: a name and a first message typed, the type chosen in its list with the arrow keys, a
    // checkbox ticked with Space. The provider stays the simulator (the default): nothing rings.
    await reach(page.getByLabel('Name'));
    await page.keyboard.type('Keyboard agent');
    await reach(page.getByLabel('Type'));
    const type = page.getByLabel('Type');
    expect(await type.inputValue()).toBe('click_to_call');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => type.inputValue()).not.toBe('click_to_call');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => type.inputValue()).toBe('click_to_call');
    expect(await page.getByLabel('Provider', { exact: true }).inputValue()).toBe('simulator');
    await reach(page.getByLabel('First message'));
    await page.keyboard.type('Hi {{name}}, this is a call placed with the keyboard.');
    const timestamp = page.getByLabel('Require signature timestamp');
    await reach(timestamp);
    await page.keyboard.press('Space');
    expect(await timestamp.isChecked()).toBe(true);
    await reach(page.getByRole('button', { name: 'Save' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toMatch(/\/agents\/agt_/);
    const agentId = new URL(page.url()).pathname.split('/').at(-1)!;

    // A new Click to Call agent opens on its credentials: shown with Enter, the examples' tabs change
    // language with the arrow keys.
    await reach(page.getByRole('button', { name: 'Show Credentials & Instructions' }));
    await page.keyboard.press('Enter');
    const examples = page.getByRole('tablist', { name: 'Examples' });
    await reach(examples.getByRole('tab', { selected: true }));
    expect(await focusedName()).toBe('curl');
    await page.keyboard.press('ArrowRight');
    expect(await focusedName()).toBe('Node.js');
    await expect.poll(() => page.getByTestId('example').textContent()).toContain("from 'node:crypto'");
    expect(await page.getByTestId('api-token').textContent()).toMatch(/\S{20,}/);

    // The agent's tabs: Tab reaches the selected one, the arrow keys move to "Test call".
    const tabs = page.getByRole('tablist', { name: 'Agent' });
    await reach(tabs.getByRole('tab', { selected: true }));
    for (let presses = 0; presses < 5 && (await focusedName()) !== 'Test call'; presses++) {
      await page.keyboard.press('ArrowRight');
    }
    expect(await focusedName()).toBe('Test call');
    await expect.poll(() => tabs.getByRole('tab', { name: 'Test call' }).getAttribute('aria-selected')).toBe('true');
    const panel = page.getByRole('form', { name: 'Test call' });
    await panel.waitFor({ timeout: 10_000 });
    await expectAccessible(page, 'the Test call tab, reached by keyboard');

    // A number, the script's variable, and the panel's button pressed with Enter.
    const to = nextPhone();
    await reach(panel.getByLabel('Phone number'));
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(to);
    await reach(panel.getByLabel('{{name}}'));
    await page.keyboard.type('Grace');
    await reach(panel.getByRole('button', { name: 'Test call' }));
    await screenshot(page, 'keyboard-01-test-call');
    await page.keyboard.press('Enter');

    // The call opens and is followed live to its end.
    await expect.poll(() => page.url(), { timeout: 10_000 }).toMatch(/\/calls\/call_/);
    const callId = new URL(page.url()).pathname.split('/').at(-1)!;
    const turns = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect.poll(() => turns.first().textContent(), { timeout: 15_000 }).toMatch(/Hi Grace, this is a call/);
    await expect.poll(() => page.locator('.badge').first().textContent(), { timeout: 15_000 }).toBe('ended');
    await screenshot(page, 'keyboard-02-call-ended');
    const call = await (await page.request.get(`${t.url}/v1/calls/${callId}`)).json();
    expect(call).toMatchObject({ agentId, to, status: 'ended', variables: { name: 'Grace' } });
    const agent = await (await page.request.get(`${t.url}/v1/agents/${agentId}`)).json();
    expect(agent).toMatchObject({
      name: 'Keyboard agent',
      type: 'click_to_call',
      provider: 'simulator',
      requireSignatureTimestamp: true,
    });

    // On a phone's width the sections are behind the menu: it opens with Enter, and "Calls" lists the call.
    await page.setViewportSize({ width: 390, height: 844 });
    const menu = page.getByRole('button', { name: 'Menu' });
    await reach(menu, true);
    await page.keyboard.press('Enter');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
    await reach(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Calls' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/calls');
    const row = page.getByRole('table', { name: 'Calls' }).locator('tbody tr', { hasText: to });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.textContent()).toContain('ended');
    await screenshot(page, 'keyboard-03-calls-390');

    // The row's link opens the call from the keyboard too.
    await reach(row.getByRole('link').first());
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/calls/${callId}`);
  }, 90_000);
});
