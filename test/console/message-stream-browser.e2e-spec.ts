import type { Page } from 'playwright-core';

import { browserSuiteMissing, clean, consoleBrowserSuite, sel, until, waitForText } from '../support/console-browser';
import { createActiveUser } from '../support/factories';

/*
 * In the admin console: a session keeps at most 5 open message
 * streams, so the sixth tab of one session pushes out the first tab's stream. The first tab stays
 * logged in (being pushed out is not the end of the session), and the newest tab still receives
 * new messages live. As the other browser suites: the real service on a real port (SQLite +
 * memory), Debian's Chromium, data-test selectors of web/TESTIDS.md.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

/** The number the header badge shows; 0 when it is hidden or empty. */
async function unreadCount(page: Page): Promise<number> {
  const badge = page.locator(sel('header-unread'));
  if (!(await badge.count())) return 0;
  const content = badge.locator('.el-badge__content');
  const target = (await content.count()) ? content.first() : badge.first();
  if (!(await target.isVisible())) return 0;
  const n = Number.parseInt(await clean(target), 10);
  return Number.isNaN(n) ? 0 : n;
}

whenRunnable(`message streams of several tabs in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, base, newPage, signIn, scenario } = consoleBrowserSuite('message-stream');

  scenario(
    'six tabs of one session: the first keeps its session, the newest receives a new message live',
    'six-tabs',
    async () => {
      const user = await createActiveUser(app());
      const first = await newPage('tab-1');
      const streamOpened = (page: Page) =>
        page.waitForResponse((res) => new URL(res.url()).pathname === '/sys/message/stream');
      const opened = streamOpened(first);
      await signIn(first, user.username, user.password);
      expect((await opened).status()).toBe(200);

      // Five more tabs of the same browser: the same session (the token is in localStorage).
      const tabs = [first];
      for (let i = 2; i <= 6; i++) {
        const tab = await first.context().newPage();
        const streamed = streamOpened(tab);
        await tab.goto(`${base()}/messages`);
        await waitForText(tab.locator(sel('header-user')), user.username, `tab ${i}: header-user`);
        expect((await streamed).status()).toBe(200);
        tabs.push(tab);
      }

      // The first tab's stream ended with RATE_LIMITED: it stays where it was, still logged in.
      await first.waitForTimeout(1500);
      expect(new URL(first.url()).pathname).not.toBe('/login');
      const token = await first.evaluate<string | null>("localStorage.getItem('Admin-Token')");
      expect(token).toEqual(expect.any(String));
      expect((await app().post('/sys/me/info', {}, { token: token! })).body.success).toBe(true);
      await waitForText(first.locator(sel('header-user')), user.username, 'tab 1: header-user');

      // A new site message reaches the newest tab live.
      await app().saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
      try {
        await app().login(user.username, 'Wrong#pass1', { ip: '10.71.0.1' });
        await until(async () => (await unreadCount(tabs[5])) === 1, 'the newest tab to show one unread message');
      } finally {
        await app().saveLoginStrategy({ sendMsgWhenErrorLogin: '' });
      }
      for (const tab of tabs) expect(new URL(tab.url()).pathname).not.toBe('/login');
    },
  );
});
