import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Browser, BrowserContext, chromium, Locator, Page, Response } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import { sqliteMemory } from './backends';
import { listenOnLocalPort, startApp, StartOptions, TestApp } from './test-app';

/**
 * Browser tests of the admin console drive Debian's Chromium through playwright-core; a browser is
 * never downloaded. `.ci/run` installs the `chromium` package and builds web/dist before the tests.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CONSOLE_DIST = join(__dirname, '..', '..', 'web', 'dist');

/** Why the browser suite cannot run here, or null when it can. */
export function browserSuiteMissing(): string | null {
  if (!existsSync(CHROMIUM_PATH)) return `${CHROMIUM_PATH} is missing (apt-get install chromium)`;
  if (!existsSync(join(CONSOLE_DIST, 'index.html'))) return 'web/dist is not built (npm run build:web)';
  return null;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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
}

/** Where the browser suites put their screenshots (git-ignored). */
export const RESULTS = join(__dirname, '..', '..', 'test-results');

/** The primary button of an ElMessageBox confirmation. */
export const CONFIRM = '.el-message-box__btns .el-button--primary';

/** The console's data-test selector (web/TESTIDS.md). */
export const sel = (name: string) => `[data-test="${name}"]`;

/** The text box of a data-test input, whether the attribute sits on the <input> or on its wrapper. */
export function textBox(scope: Page | Locator, name: string): Locator {
  const s = sel(name);
  return scope.locator(`input${s}, textarea${s}, ${s} input, ${s} textarea`).first();
}

/**
 * A user row's action: 编辑 stands in the row, the others sit in its "更多" menu, which this opens
 * first. Returns the action's element, visible, for the caller to click.
 */
export async function rowAction(row: Locator, name: string): Promise<Locator> {
  const action = row.locator(sel(name));
  if (!(await action.isVisible())) {
    await row.locator(sel('user-more')).click();
    await action.waitFor({ state: 'visible' });
  }
  return action;
}

/** Matches the response of a POST to `path`. */
export const isCall = (path: string) => (res: Response) =>
  res.request().method() === 'POST' && new URL(res.url()).pathname === path;

/** The element's text with white space collapsed. */
export async function clean(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Polls a condition (DOM state, API state) until it holds; never a fixed sleep. */
export async function until<T>(
  probe: () => Promise<T | false | null | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (${String(lastError)})` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the element's text contains `expected`; the error names the last text seen. */
export async function waitForText(locator: Locator, expected: string | RegExp, what: string): Promise<string> {
  let seen = '';
  try {
    return await until(async () => {
      seen = await clean(locator);
      return (typeof expected === 'string' ? seen.includes(expected) : expected.test(seen)) && seen;
    }, what);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last text: "${seen}"`, { cause: err });
  }
}

/** What one page of a browser suite is opened with; the defaults are the console's desktop in Chinese. */
export interface ConsolePageOptions {
  viewport?: { width: number; height: number };
  locale?: string;
  timezoneId?: string;
  /** Installs Playwright's clock at the service's (fake) time, so that both can be moved together. */
  fakeClock?: boolean;
  acceptDownloads?: boolean;
}

export interface ConsoleBrowserSuiteOptions {
  /** Options of startApp (e.g. env). */
  start?: StartOptions;
  /** Logs the admin in through the API before the browser starts (app.admin() keeps the token); default true. */
  adminToken?: boolean;
  /** Full-page screenshots from shot(); default true. */
  fullPage?: boolean;
  /**
   * true (default): pages are closed after each test and the failure notes name that test's pages;
   * false: pages live until the end of the suite (e.g. a page opened in beforeAll).
   */
  pagesPerTest?: boolean;
  /** Defaults of every newPage(). */
  page?: ConsolePageOptions;
  /**
   * Collects the Content-Security-Policy violations of the pages (there must be none);
   * a scenario whose body passed then expects none.
   */
  checkCsp?: boolean;
}

export interface ConsoleBrowserSuite {
  app(): TestApp;
  base(): string;
  newPage(label: string, options?: ConsolePageOptions): Promise<Page>;
  /** The page errors and console errors the page has shown so far. */
  errors(page: Page): string[];
  /** Fills the login form and returns the envelope of /sys/login (no waiting for the landing page). */
  login(page: Page, account: string, password: string): Promise<Envelope<any>>;
  /** login() that must succeed, then waits for the landing page and the header to name the account. */
  signIn(page: Page, account: string, password: string): Promise<Envelope<any>>;
  /**
   * A test that, when it fails, screenshots every page it opened to failure[-<suite>][-<slug>]-<i>-<label>.png
   * and writes their URLs and errors to failure[-<suite>][-<slug>].log.
   */
  scenario(name: string, slug: string, body: () => Promise<void>): void;
  /** Waits for the loading indicators to go, then screenshots to test-results/<name>.png. */
  shot(page: Page, name: string): Promise<void>;
}

/**
 * The scaffold every console browser suite shares: inside its describe, registers the hooks that
 * start the real service on SQLite + memory on a local port, launch Chromium and close the pages,
 * and returns the helpers over them.
 */
export function consoleBrowserSuite(suite: string, options: ConsoleBrowserSuiteOptions = {}): ConsoleBrowserSuite {
  const perTest = options.pagesPerTest ?? true;
  let app: TestApp;
  let base: string;
  let browser: Browser;
  let contexts: BrowserContext[] = [];
  let pages: { label: string; page: Page; errors: string[] }[] = [];
  let cspViolations: string[] = [];

  const closeContexts = async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  };

  beforeAll(async () => {
    mkdirSync(RESULTS, { recursive: true });
    app = await startApp(sqliteMemory, options.start);
    base = await listenOnLocalPort(app);
    if (options.adminToken ?? true) await app.adminToken();
    browser = await launchChromium();
  });
  afterAll(async () => {
    if (!perTest) await closeContexts();
    await browser?.close();
    await app?.close();
  });
  if (perTest) {
    beforeEach(() => {
      contexts = [];
      pages = [];
      cspViolations = [];
    });
    afterEach(closeContexts);
  }

  async function newPage(label: string, pageOptions: ConsolePageOptions = {}): Promise<Page> {
    const opts = { ...options.page, ...pageOptions };
    const context = await browser.newContext({
      viewport: opts.viewport ?? { width: 1366, height: 900 },
      locale: opts.locale ?? 'zh-CN',
      ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}),
      ...(opts.acceptDownloads ? { acceptDownloads: true } : {}),
    });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    if (options.checkCsp) {
      await context.exposeBinding('__reportCspViolation', (_source, text: string) => {
        cspViolations.push(text);
      });
      await context.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => window.__reportCspViolation(
        e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber));`);
    }
    const page = await context.newPage();
    if (opts.fakeClock) await page.clock.install({ time: app.clock.nowMs() });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      if (options.checkCsp && /Content Security Policy/i.test(m.text())) cspViolations.push(`console: ${m.text()}`);
    });
    pages.push({ label, page, errors });
    return page;
  }

  function errors(page: Page): string[] {
    const entry = pages.find((p) => p.page === page);
    if (!entry) throw new Error('errors(): not a page of this suite');
    return entry.errors;
  }

  async function login(page: Page, account: string, password: string): Promise<Envelope<any>> {
    await page.goto(`${base}/login`);
    await textBox(page, 'login-account').fill(account);
    await textBox(page, 'login-password').fill(password);
    const response = page.waitForResponse(isCall('/sys/login'));
    await page.locator(sel('login-submit')).click();
    return (await (await response).json()) as Envelope<any>;
  }

  async function signIn(page: Page, account: string, password: string): Promise<Envelope<any>> {
    const body = await login(page, account, password);
    expect(body.success).toBe(true);
    await page.waitForURL((url) => url.pathname !== '/login');
    await waitForText(page.locator(sel('header-user')), account, `header-user ${account}`);
    return body;
  }

  function scenario(name: string, slug: string, body: () => Promise<void>): void {
    const stem = ['failure', suite, slug].filter(Boolean).join('-');
    it(name, async () => {
      try {
        await body();
        // Everything above ran under the console's Content-Security-Policy without a refusal.
        if (options.checkCsp) expect(cspViolations).toEqual([]);
      } catch (err) {
        const notes: string[] = [];
        for (const [i, { label, page, errors: seen }] of pages.entries()) {
          notes.push(`[${label}] ${page.url()}`, ...seen.map((e) => `  ${e}`));
          await page
            .screenshot({ path: join(RESULTS, `${stem}-${i}-${label}.png`), fullPage: true })
            .catch(() => undefined);
        }
        writeFileSync(join(RESULTS, `${stem}.log`), `${notes.join('\n')}\n`);
        throw err;
      }
    });
  }

  async function shot(page: Page, name: string): Promise<void> {
    await until(
      async () =>
        (await page.locator('.el-button.is-loading, .el-loading-mask').filter({ visible: true }).count()) === 0,
      `${name}: loading to finish`,
      5_000,
    );
    await page.screenshot({
      path: join(RESULTS, `${name}.png`),
      fullPage: options.fullPage ?? true,
      animations: 'disabled',
    });
  }

  return { app: () => app, base: () => base, newPage, errors, login, signIn, scenario, shot };
}
