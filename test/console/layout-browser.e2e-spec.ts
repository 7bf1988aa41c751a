import type { Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import {
  browserSuiteMissing,
  clean,
  consoleBrowserSuite,
  isCall,
  sel,
  until,
  waitForText,
} from '../support/console-browser';
import { createActiveUser } from '../support/factories';
import { ADMIN_PASSWORD, sha256hex, tokenKey } from '../support/test-app';

/*
 * Console polish as RuoYi users expect it: breadcrumbs, a sidebar that folds and stays
 * folded after a reload, every page usable at 1024 px wide (no horizontal scroll), a warning before
 * the session expires with "stay logged in" (which renews it), and the landing message of a session
 * an administrator ended. The real service on a real port (SQLite + memory, a fake clock that only
 * moves when told), Debian's Chromium; the browser's clock is Playwright's, moved together with the
 * service's for the expiry warning. Screenshots in test-results/layout-*.png.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

const PAGES = [
  '/system/strategy',
  '/system/users',
  '/system/roles',
  '/system/loginlog',
  '/system/online',
  '/system/auditlog',
  '/me/devices',
  '/me/mfa',
  '/messages',
];

whenRunnable(`console layout in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, base, newPage, signIn: login, scenario, shot } = consoleBrowserSuite('layout', { fullPage: false });

  const asideWidth = (page: Page) => page.locator(sel('sidebar')).evaluate((el) => el.getBoundingClientRect().width);

  scenario(
    'breadcrumbs name the group and the page; the sidebar folds and stays folded after a reload',
    'sidebar',
    async () => {
      const page = await newPage('admin');
      await login(page, 'admin', ADMIN_PASSWORD);
      await page.goto(`${base()}/system/users`);
      await waitForText(page.locator(sel('breadcrumb')), '首页', 'breadcrumb home');
      expect(await clean(page.locator(sel('breadcrumb')))).toMatch(/首页\s*\/\s*系统管理\s*\/\s*用户管理/);
      // The Roles page (h17-users) sits in the same group, reached from its own menu entry.
      await page.locator(sel('nav-roles')).click();
      await waitForText(page.locator(sel('breadcrumb')), '角色管理', 'breadcrumb of Roles');
      expect(await clean(page.locator(sel('breadcrumb')))).toMatch(/首页\s*\/\s*系统管理\s*\/\s*角色管理/);
      await page.locator(sel('nav-devices')).click();
      await waitForText(page.locator(sel('breadcrumb')), '我的设备', 'breadcrumb of My devices');
      expect(await clean(page.locator(sel('breadcrumb')))).toMatch(/首页\s*\/\s*个人中心\s*\/\s*我的设备/);
      await shot(page, 'layout-breadcrumb');

      expect(await asideWidth(page)).toBeGreaterThan(200);
      await page.locator(sel('sidebar-toggle')).click();
      await until(async () => (await asideWidth(page)) <= 64, 'the sidebar to fold');
      // Folded: icons only, the group headings hidden, the menu still works.
      expect(await page.locator('.el-menu-item-group__title').filter({ visible: true }).count()).toBe(0);
      await page.reload();
      await waitForText(page.locator(sel('header-user')), 'admin', 'header after reload');
      expect(await asideWidth(page)).toBeLessThanOrEqual(64);
      await page.locator(sel('nav-users')).click();
      await page.waitForURL((url) => url.pathname === '/system/users');
      await shot(page, 'layout-sidebar-folded');
      await page.locator(sel('sidebar-toggle')).click();
      await until(async () => (await asideWidth(page)) > 200, 'the sidebar to unfold');
      await page.reload();
      await waitForText(page.locator(sel('header-user')), 'admin', 'header after reload');
      expect(await asideWidth(page)).toBeGreaterThan(200);
    },
  );

  scenario('every page works at 1024 × 768 without horizontal scrolling, sidebar open and folded', '1024', async () => {
    const page = await newPage('admin-1024', { viewport: { width: 1024, height: 768 } });
    await login(page, 'admin', ADMIN_PASSWORD);
    const overflow = () =>
      page.evaluate(`(() => {
      const main = document.querySelector('.el-main');
      return {
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        main: main.scrollWidth - main.clientWidth,
      };
    })()`) as Promise<{ page: number; main: number }>;
    for (const folded of [false, true]) {
      for (const path of PAGES) {
        await page.goto(`${base()}${path}`);
        await waitForText(page.locator(sel('header-user')), 'admin', `${path} header`);
        await page.waitForLoadState('networkidle');
        expect({ path, folded, ...(await overflow()) }).toEqual({ path, folded, page: 0, main: 0 });
        if (path === '/system/users' || path === '/system/loginlog' || path === '/system/strategy') {
          await shot(page, `layout-1024${folded ? '-folded' : ''}${path.replace(/\//g, '-')}`);
        }
      }
      if (!folded) await page.locator(sel('sidebar-toggle')).click();
    }
  });

  scenario('a warning before the session expires; "stay logged in" renews the session', 'expiry', async () => {
    await app().saveLoginStrategy({ sessionExpireMinutes: 10 });
    try {
      const user = await createActiveUser(app());
      const page = await newPage('user', { fakeClock: true });
      await login(page, user.username, user.password);
      const token = (await page.evaluate('localStorage.getItem("Admin-Token")')) as string;
      const warning = page.locator(sel('session-expiring'));
      expect(await warning.count()).toBe(0);

      // 8 of 10 minutes later, idle: 2 minutes left, under the warning's threshold (a quarter of the validity).
      await page.clock.fastForward(7 * 60_000);
      await page.clock.runFor(2_000);
      expect(await warning.count()).toBe(0);
      app().clock.advance(8 * 60_000);
      await page.clock.fastForward(60_000);
      await page.clock.runFor(2_000);
      await warning.waitFor();
      expect(await clean(warning)).toMatch(/登录即将过期.*[12]:\d\d/);
      await shot(page, 'layout-session-expiring');

      const renewed = page.waitForResponse(isCall('/sys/me/info'));
      await page.locator(sel('session-stay')).click();
      const me = ((await (await renewed).json()) as Envelope<any>).data;
      expect(me.expireAt).toBe(app().clock.nowMs() + 10 * 60_000);
      expect(JSON.parse((await app().store.get(tokenKey(token)))!).expireAt).toBe(me.expireAt);
      await page.clock.runFor(2_000);
      await until(async () => (await warning.count()) === 0, 'the warning to go');

      // Left idle past the end: the session expired, and the login page says that, not "an administrator".
      // The browser's clock moves first: the message stream ends within a second of the service seeing
      // the end, and a browser still behind would measure time left and blame an administrator.
      await page.clock.fastForward(11 * 60_000);
      app().clock.advance(11 * 60_000);
      await clickUnlessOnLogin(page, 'nav-messages');
      await page.waitForURL((url) => url.pathname === '/login');
      await waitForText(page.locator(sel('login-message')), '未登录或登录已过期', 'the expiry message');
    } finally {
      await app().saveLoginStrategy({ sessionExpireMinutes: 30 });
    }
  });

  /**
   * The next request after the session ended: a click on a menu entry. The message stream may notice
   * the end first and take the console to /login on its own, removing the entry: then there is
   * nothing to click, and the landing is the same.
   */
  async function clickUnlessOnLogin(page: Page, testId: string): Promise<void> {
    const onLogin = page.waitForURL((url) => url.pathname === '/login', { timeout: 15_000 });
    await Promise.race([onLogin, page.locator(sel(testId)).click({ timeout: 15_000 })]).catch(() => undefined);
    await onLogin;
  }

  scenario('a session an administrator ended lands on the login page saying so', 'kicked', async () => {
    const user = await createActiveUser(app());
    const page = await newPage('user');
    await login(page, user.username, user.password);
    const token = (await page.evaluate('localStorage.getItem("Admin-Token")')) as string;
    expect((await app().admin('/sys/online/kickout', { tokenId: sha256hex(token) })).body.success).toBe(true);
    await clickUnlessOnLogin(page, 'nav-messages');
    await page.waitForURL((url) => url.pathname === '/login');
    // The service deletes the session (NOT_LOGGED_IN, as for an expired one); the console's session
    // still had time left, so it says who ended it. A kick-out by another login (KICKED_OUT) keeps the
    // service's text (browser.e2e-spec 6a).
    await waitForText(
      page.locator(sel('login-message')),
      '您的会话已被管理员结束',
      'the ended-by-an-administrator message',
    );
    await shot(page, 'layout-kicked-out');
  });
});
