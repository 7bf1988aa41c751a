import type { Page } from 'playwright-core';

import {
  browserSuiteMissing,
  clean,
  CONFIRM,
  consoleBrowserSuite,
  isCall,
  rowAction,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { createActiveUser, createUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * The users list scans: one line per user at 1440 and 1024 px (names, roles, badges and times never
 * wrap; the table fits the page), 编辑 in the row and the other actions in its "更多" menu, role names
 * instead of codes, and the state badge as the server's `state` (what the state filter selects by).
 * The online-sessions page finds a session by name or IP and marks the caller's own (本机), whose
 * kick-out is confirmed in words that say so. Screenshots in test-results/users-list-*.png.
 */

jest.setTimeout(120_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

whenRunnable(`the users list in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, base, newPage, signIn, scenario, shot } = consoleBrowserSuite('users-list');

  /** Every row's height and whether any cell wraps; the table's overflow. */
  async function layoutOf(page: Page) {
    // Runs in the page: the DOM types are the browser's, not this file's (no DOM lib here).
    return page.locator('.users-table').evaluate((table: any) => {
      const rows: any[] = Array.from(table.querySelectorAll('tbody tr'));
      const lineHeights = rows.map((tr) => tr.getBoundingClientRect().height as number);
      const wrapped = rows.flatMap((tr) =>
        (Array.from(tr.querySelectorAll('td')) as any[])
          .filter((td) => (globalThis as any).getComputedStyle(td).whiteSpace !== 'nowrap')
          .map((td) => `${tr.getAttribute('data-test')}: ${String(td.textContent).trim().slice(0, 30)}`),
      );
      return { lineHeights, wrapped, overflow: (table.scrollWidth - table.clientWidth) as number };
    });
  }

  scenario(
    'one line per user at 1440 and 1024 px, actions under 更多, role names, the badge is the filter',
    'layout',
    async () => {
      const save = await app().admin('/sys/role/save', {
        code: 'ops_auditor',
        name: '运维审计员',
        permissions: ['sys:loginLog:list'],
      });
      expect(save.body.success).toBe(true);
      await createUser(app(), {
        username: 'ouyang_long_name',
        name: '欧阳明日·一个相当长的显示名称用于检查折行',
        roles: ['ops_auditor'],
      });
      const locked = await createActiveUser(app(), { username: 'locked_one' });
      expect((await app().admin('/sys/user/lock', { id: locked.id })).body.success).toBe(true);
      const disabled = await createActiveUser(app(), { username: 'disabled_one' });
      expect((await app().admin('/sys/user/disable', { id: disabled.id })).body.success).toBe(true);

      for (const width of [1440, 1024]) {
        const page = await newPage(`admin-${width}`, { viewport: { width, height: 900 } });
        await signIn(page, 'admin', ADMIN_PASSWORD);
        await page.goto(`${base()}/system/users`);
        await page.locator(sel('user-row-ouyang_long_name')).waitFor();
        const layout = await layoutOf(page);
        expect(layout.wrapped).toEqual([]);
        expect(layout.overflow).toBeLessThanOrEqual(1);
        // Every row as tall as one line of text and tags, all alike.
        expect(Math.max(...layout.lineHeights)).toBeLessThan(48);
        expect(Math.max(...layout.lineHeights) - Math.min(...layout.lineHeights)).toBeLessThanOrEqual(2);
        await shot(page, `users-list-${width}`);

        const row = page.locator(sel('user-row-ouyang_long_name'));
        // The role's name, not its code; the code stays on the tag for scripts.
        await waitForText(row.locator(sel('user-roles')), '运维审计员', 'the role name');
        expect(await clean(row.locator(sel('user-roles')))).not.toContain('ops_auditor');
        // 编辑 stands in the row; lock, reset, delete wait in 更多.
        await row.locator(sel('user-edit')).waitFor();
        expect(await row.locator(sel('user-lock')).isVisible()).toBe(false);
        await row.locator(sel('user-more')).click();
        for (const action of ['user-lock', 'user-disable', 'user-reset', 'user-delete'])
          await row.locator(sel(action)).waitFor({ state: 'visible' });
        await shot(page, `users-list-${width}-more`);
        await page.keyboard.press('Escape');
      }

      // The badge and the filter agree: each filtered row carries the filter's state.
      const page = await newPage('admin-filter', { viewport: { width: 1024, height: 900 } });
      await signIn(page, 'admin', ADMIN_PASSWORD);
      await page.goto(`${base()}/system/users`);
      await page.locator(sel('user-row-locked_one')).waitFor();
      for (const state of ['locked', 'disabled', 'initial'] as const) {
        await page.locator(sel('users-state')).click();
        const listed = page.waitForResponse(isCall('/sys/user/list'));
        await page.locator(sel(`state-option-${state}`)).click();
        await listed;
        await until(
          async () =>
            (await page.locator(sel('user-state')).count()) > 0 &&
            (await page.locator(sel('user-state')).evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))),
          `rows of ${state}`,
        ).then((states) => expect(new Set(states)).toEqual(new Set([state])));
        const server = (await app().admin('/sys/user/list', { pageNum: 1, pageSize: 50, state })).body.data;
        expect(await page.locator('tbody tr').count()).toBe(server.total);
        // The badge of the state is there, in its words.
        await page
          .locator(sel(`user-state-${state}`))
          .first()
          .waitFor();
      }
      // A lock from 更多 still asks first (the filter is still 初始密码, ouyang's state).
      await textBox(page, 'users-search').fill('ouyang');
      await page.locator(sel('users-search-btn')).click();
      const row = page.locator(sel('user-row-ouyang_long_name'));
      await row.waitFor();
      await (await rowAction(row, 'user-lock')).click();
      const lockCall = page.waitForResponse(isCall('/sys/user/lock'));
      await page.locator(CONFIRM).click();
      expect((await (await lockCall).json()).success).toBe(true);
    },
  );

  scenario(
    'online sessions: search by name or IP, 本机 on the own session, kicking it out says so',
    'online',
    async () => {
      const zhang = await createActiveUser(app(), { username: 'zhang_session' });
      await app().token(zhang.username, zhang.password, { ip: '10.77.0.5' });
      const page = await newPage('admin', { viewport: { width: 1024, height: 900 } });
      await signIn(page, 'admin', ADMIN_PASSWORD);
      await page.goto(`${base()}/system/online`);
      await page.locator(sel('online-row')).first().waitFor();

      // The own session carries 本机; no other does.
      const own = page.locator(`${sel('online-row')}[data-current="true"]`);
      await waitForText(own.locator(sel('online-this-device')), '本机', 'the own session');
      expect(await page.locator(sel('online-this-device')).count()).toBe(1);

      await textBox(page, 'online-search').fill('zhang');
      const searched = page.waitForResponse(isCall('/sys/online/list'));
      await page.locator(sel('online-search-btn')).click();
      expect((await (await searched).request().postDataJSON()).keyword).toBe('zhang');
      await until(async () => (await page.locator(sel('online-row')).count()) === 1, 'one row for zhang');
      await waitForText(page.locator(sel('online-row')), 'zhang_session', 'zhang found');
      await textBox(page, 'online-search').fill('10.77.');
      await page.locator(sel('online-search-btn')).click();
      await waitForText(page.locator(sel('online-row')), '10.77.0.5', 'found by IP');
      await shot(page, 'users-list-online-search');

      // Kicking out the own session: the confirmation says it is this device; cancelling keeps it.
      await textBox(page, 'online-search').fill('admin');
      await page.locator(sel('online-search-btn')).click();
      await own.waitFor();
      await own.locator(sel('online-kickout')).click();
      await waitForText(page.locator('.el-message-box__message'), '本机', 'the own-session warning');
      expect(await clean(page.locator('.el-message-box__message'))).toContain('立即退出登录');
      await shot(page, 'users-list-online-own-kickout');
      await page.locator('.el-message-box__btns .el-button:not(.el-button--primary)').click();
      await page.locator('.el-message-box').waitFor({ state: 'hidden' });
      expect(new URL(page.url()).pathname).toBe('/system/online');
      await own.locator(sel('online-this-device')).waitFor();
    },
  );
});
