import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

// The dashboard in a real browser (docs/interface.md#dashboard): Debian's Chromium, driven by playwright-core.
export const CHROMIUM = '/usr/bin/chromium';
export const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.CI === 'true') {
  throw new Error(`The dashboard tests need ${CHROMIUM} in CI: apt-get install -y chromium`);
}
if (!haveBrowser) {
  console.warn(`dashboard tests skipped: no ${CHROMIUM} (install it with: apt-get install -y chromium)`);
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots of each screen, for a reviewer to look at (not committed). */
export const SCREENS = `${ROOT}test-results/screens`;

/**
 * Chromium for the dashboard's tests. Each page it opens is watched for Content-Security-Policy
 * violations (Chromium reports each one on the console), and closing the browser fails the tests
 * that used it if there was any: the pages must work under their policy (decision 0030).
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const violations: string[] = [];
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage(options);
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(`${page.url()}: ${message.text()}`);
    });
    return page;
  };
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    await close(options);
    expect(violations, 'Content-Security-Policy violations').toEqual([]);
  };
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
}

/** Signs a new organization up through the dashboard's own form; the page is then signed in. */
export async function signUpInBrowser(page: Page, baseUrl: string, organization = 'Acme UI'): Promise<string> {
  await page.goto(baseUrl);
  await page.getByRole('button', { name: 'Sign up' }).click();
  const email = `ui-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.getByLabel('Organization').fill(organization);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign up' }).first().click();
  await expect.poll(() => page.getByText(`Switchboard · ${organization}`).isVisible()).toBe(true);
  return email;
}

/**
 * The page's globals, as the functions the tests run inside the page use them. The tests compile without
 * the DOM's types (they run on Node), so each such function reads `globalThis as unknown as InPage`.
 */
export interface InPage {
  innerWidth: number;
  axe?: { run(context: unknown, options: object): Promise<{ violations: AxeViolation[] }> };
  document: {
    documentElement: { scrollWidth: number };
    activeElement: PageElement | null;
    body: PageElement & {
      querySelectorAll(selector: string): Iterable<PageElement>;
      querySelector(selector: string): PageElement | null;
      append(child: unknown): void;
    };
    createElement(tag: string): PageElement & Record<string, unknown>;
  };
  getComputedStyle(element: unknown): {
    outlineStyle: string;
    outlineWidth: string;
    boxShadow: string;
  };
}
interface PageElement {
  tagName: string;
  matches(selector: string): boolean;
  checkVisibility(options: { contentVisibilityAuto?: boolean; visibilityProperty?: boolean }): boolean;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  className: unknown;
  outerHTML: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number; width: number };
}

const AXE_SOURCE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));
/** The WCAG 2.0 and 2.1 A and AA rules, and axe's best practices (issue 18 §4). */
const AXE_RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * axe-core on the page as it is now: no serious or critical violation. axe is evaluated through the
 * DevTools protocol (as page.evaluate runs), which the page's script-src does not govern, so the page keeps
 * its Content-Security-Policy and launchBrowser() still fails on any violation of it. A failure names each
 * rule, what it asks and the first elements that break it, so the message says what to fix.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const loaded = await page.evaluate(() => (globalThis as unknown as InPage).axe !== undefined);
  if (!loaded) await page.evaluate(readFileSync(AXE_SOURCE, 'utf8'));
  const violations = await page.evaluate(async (runOnly) => {
    const { axe, document } = globalThis as unknown as InPage;
    if (!axe) throw new Error('axe-core did not load');
    const results = await axe.run(document, { runOnly, resultTypes: ['violations'] });
    return results.violations;
  }, AXE_RULES);
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.length} element(s): ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(' | ')}`,
    );
  expect(serious, `axe on ${label} (${page.url()}):\n  ${serious.join('\n  ')}\n`).toEqual([]);
}

/**
 * The page fits its viewport: the document never scrolls sideways. A failure lists the elements that
 * reach past either edge, innermost last, so the one that spills is easy to find.
 */
export async function expectFits(page: Page, label: string): Promise<void> {
  const { scrollWidth, width, wider } = await page.evaluate(() => {
    const { document, innerWidth: limit } = globalThis as unknown as InPage;
    const spilling: string[] = [];
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && (box.right > limit + 0.5 || box.left < -0.5)) {
        const classes = typeof element.className === 'string' && element.className ? `.${element.className}` : '';
        spilling.push(`${element.tagName.toLowerCase()}${classes} ${Math.round(box.left)}–${Math.round(box.right)}`);
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, width: limit, wider: spilling };
  });
  expect(
    scrollWidth,
    `${label} is ${scrollWidth} px wide in ${width} px; past the edge: ${wider.slice(-8).join(', ')}`,
  ).toBeLessThanOrEqual(width);
}

/**
 * Presses Tab (Shift+Tab when `backwards`) until the focused element is the one `locator` finds, so a test
 * proves a control is reachable by keyboard before it types into or presses it. Fails after `limit` presses.
 */
export async function tabTo(page: Page, locator: Locator, limit = 80, backwards = false): Promise<void> {
  const target = await locator.elementHandle({ timeout: 10_000 });
  if (!target) throw new Error(`tabTo: nothing matches ${locator}`);
  const focused = () =>
    target.evaluate((element) => element === (globalThis as unknown as InPage).document.activeElement);
  for (let presses = 0; presses < limit; presses++) {
    if (await focused()) return;
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  if (await focused()) return;
  const active = await page.evaluate(() =>
    (globalThis as unknown as InPage).document.activeElement?.outerHTML.slice(0, 200),
  );
  throw new Error(`${limit} presses of Tab did not reach ${locator}; focus is on ${active}`);
}

/**
 * Every control on the page as it shows is reached by pressing Tab: links, buttons, fields, `summary`,
 * anything given `tabindex="0"`. Not counted: what is hidden or disabled, a tab list's unselected tabs and
 * a radio group's unchecked radios (the arrow keys reach those, as their ARIA patterns have it). A failure
 * names each control Tab never reached.
 */
export async function expectKeyboardReach(page: Page, label: string): Promise<void> {
  const count = await page.evaluate(() => {
    const { document } = globalThis as unknown as InPage;
    const selector = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]';
    let index = 0;
    for (const element of document.body.querySelectorAll('[data-reach]')) element.removeAttribute('data-reach');
    for (const element of document.body.querySelectorAll(selector)) {
      const tabindex = element.getAttribute('tabindex');
      const native = element.matches('a[href], button, input, select, textarea, summary');
      const radio = element.matches('input[type="radio"]:not(:checked)[name]');
      // Not shown: display none, visibility hidden, or inside a closed <details> (content-visibility).
      const skip =
        !element.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }) ||
        element.matches(':disabled') ||
        (element.getAttribute('role') === 'tab' && element.getAttribute('aria-selected') !== 'true') ||
        (!native && tabindex === '-1') ||
        (radio &&
          document.body.querySelector(`input[type="radio"][name="${element.getAttribute('name')}"]:checked`) !== null);
      if (!skip) element.setAttribute('data-reach', String(index++));
    }
    (document.activeElement as { blur?: () => void } | null)?.blur?.();
    return index;
  });
  const reached = new Set<string>();
  // Tab also stops on what the list leaves out (a scrolling box Chromium makes focusable): room for those.
  for (let presses = 0; presses < 2 * count + 20; presses++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(
      () => (globalThis as unknown as InPage).document.activeElement?.getAttribute('data-reach') ?? null,
    );
    if (at !== null) reached.add(at);
    if (reached.size === count) break;
  }
  const missed = await page.evaluate(
    (seen) => {
      const { document } = globalThis as unknown as InPage;
      return [...document.body.querySelectorAll('[data-reach]')]
        .filter((element) => !seen.includes(element.getAttribute('data-reach') ?? ''))
        .map((element) => element.outerHTML.slice(0, 160));
    },
    [...reached],
  );
  expect(missed, `controls on ${label} that Tab never reaches:\n  ${missed.join('\n  ')}\n`).toEqual([]);
}
