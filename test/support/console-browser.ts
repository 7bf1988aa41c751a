import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Locator, Page, Response } from 'playwright-core';

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
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
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

/** Matches the response of a POST to `path`. */
export const isCall = (path: string) => (res: Response) =>
  res.request().method() === 'POST' && new URL(res.url()).pathname === path;

/** The element's text with white space collapsed. */
export async function clean(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Polls a condition (DOM state, API state) until it holds; never a fixed sleep. */
export async function until<T>(probe: () => Promise<T | false | null | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
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
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (${String(lastError)})` : ''}`);
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
    throw new Error(`${(err as Error).message}; last text: "${seen}"`);
  }
}
