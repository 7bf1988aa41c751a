import type { Page } from 'playwright-core';

import { browserSuiteMissing, consoleBrowserSuite, isCall, sel, textBox, until } from '../support/console-browser';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * "every page the service serves carries a CSP, /docs included; the console follows
 * only same-origin paths after login". Every scenario also expects no CSP violation of its pages.
 * Skipped, like the other browser suites, where Chromium or web/dist is missing.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

whenRunnable(`page policies in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { base, newPage, scenario } = consoleBrowserSuite('page-policy', { checkCsp: true });

  /** The login form of /login?redirect=<target>, as a link someone was sent would open it. */
  async function loginVia(page: Page, target: string): Promise<void> {
    await page.goto(`${base()}/login?redirect=${encodeURIComponent(target)}`);
    await textBox(page, 'login-account').fill('admin');
    await textBox(page, 'login-password').fill(ADMIN_PASSWORD);
    const response = page.waitForResponse(isCall('/sys/login'));
    await page.locator(sel('login-submit')).click();
    expect((await (await response).json()).success).toBe(true);
  }

  scenario('/docs renders its operations under its CSP, with no violation', 'docs', async () => {
    const page = await newPage('docs');
    const reply = await page.goto(`${base()}/docs`);
    expect(reply!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.opblock').first().waitFor();
    await until(async () => (await page.locator('.opblock').count()) > 20, 'the operations of /docs');
    await page.locator('.opblock-summary', { hasText: '/sys/login' }).first().click();
    await page.locator('.opblock-body').first().waitFor();
  });

  for (const target of [
    '//evil.example',
    '/\\evil.example',
    'https://evil.example',
    'javascript:alert(1)',
    '/\t/evil.example',
  ]) {
    scenario(
      `a login with ?redirect=${target} lands on the console's home`,
      `redirect-${target.replace(/\W+/g, '-')}`,
      async () => {
        const page = await newPage('login');
        const evil: string[] = [];
        page.on('request', (r) => {
          if (/evil\.example/.test(new URL(r.url(), base()).host)) evil.push(r.url());
        });
        await loginVia(page, target);
        await page.waitForURL((url) => url.pathname !== '/login' || url.origin !== base(), { timeout: 15_000 });
        await page.locator(sel('header-user')).waitFor();
        expect(new URL(page.url()).origin).toBe(base());
        expect(evil).toEqual([]);
      },
    );
  }

  scenario('a same-origin path in ?redirect= is still followed', 'redirect-same-origin', async () => {
    const page = await newPage('login');
    await loginVia(page, '/system/loginlog?x=1');
    await page.waitForURL((url) => url.pathname === '/system/loginlog');
  });
});
