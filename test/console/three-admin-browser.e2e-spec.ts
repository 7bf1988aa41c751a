import type { Page } from 'playwright-core';

import {
  browserSuiteMissing,
  consoleBrowserSuite,
  isCall,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * ADMIN_MODE=three (三员分立) in the admin console: the system, security and audit administrators
 * each see only the menus of their own set; the role page tags each role with its set and refuses
 * a role mixing two sets before any request; the security administrator gives roles, within one set.
 * The real service on a real port (SQLite + memory), Debian's Chromium, the selectors of web/TESTIDS.md.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

/** The menu entries of the system pages, in menu order. */
const SYSTEM_MENUS = [
  'nav-strategy',
  'nav-users',
  'nav-roles',
  'nav-apikeys',
  'nav-accessrules',
  'nav-loginlog',
  'nav-online',
  'nav-auditlog',
  'nav-webhooks',
];

whenRunnable(`three administrators in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, newPage, signIn, scenario, shot } = consoleBrowserSuite('three-admin', {
    start: { env: { ADMIN_MODE: 'three' } },
    adminToken: false,
  });

  /** The calls a page makes to `path` from now on. */
  function callsTo(page: Page, path: string): string[] {
    const seen: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === path) seen.push(req.postData() ?? '');
    });
    return seen;
  }

  async function signedIn(who: string): Promise<Page> {
    const page = await newPage(who);
    await signIn(page, who, ADMIN_PASSWORD);
    return page;
  }

  scenario('1. each administrator sees the menus of its own set only', 'menus', async () => {
    const expected: Record<string, string[]> = {
      sysadmin: ['nav-users', 'nav-roles', 'nav-apikeys', 'nav-online'],
      secadmin: ['nav-strategy', 'nav-users', 'nav-roles', 'nav-accessrules', 'nav-webhooks'],
      auditadmin: ['nav-loginlog', 'nav-auditlog'],
    };
    for (const [who, menus] of Object.entries(expected)) {
      const page = await signedIn(who);
      await page.locator(sel(menus[0])).waitFor();
      const shown: string[] = [];
      for (const menu of SYSTEM_MENUS) if (await page.locator(sel(menu)).count()) shown.push(menu);
      expect({ who, shown }).toEqual({ who, shown: menus });
      await shot(page, `three-admin-menu-${who}`);
    }
  });

  scenario(
    '2. the role page tags each role with its set, keeps the built-in ones and refuses mixing two sets before the request',
    'roles',
    async () => {
      const page = await signedIn('secadmin');
      await page.locator(sel('nav-roles')).click();
      for (const [role, set] of [
        ['sysadmin', 'system'],
        ['secadmin', 'security'],
        ['auditadmin', 'audit'],
      ]) {
        const row = page.locator(sel(`role-row-${role}`));
        await row.locator(sel(`role-set-${set}`)).waitFor();
        expect(await row.locator(sel('role-builtin')).count()).toBe(1);
        expect(await row.locator(sel('role-edit')).count()).toBe(0);
        expect(await row.locator(sel('role-delete')).count()).toBe(0);
      }
      await waitForText(page.locator(sel('role-row-auditadmin')).locator(sel('role-sets')), '审计', 'the audit tag');

      const saves = callsTo(page, '/sys/role/save');
      const code = `auditor_${Date.now().toString(36)}`;
      await page.locator(sel('roles-create')).click();
      await textBox(page, 'role-code').fill(code);
      const tick = (perm: string) =>
        page
          .locator('.el-tree-node__content', { has: page.locator(sel(`perm-${perm}`)) })
          .locator('.el-checkbox')
          .first()
          .click();
      await page.locator(sel('perm-module:loginLog')).waitFor();
      // The security administrator may tick another set's codes (the set rule, not its own codes)...
      await tick('sys:loginLog:list');
      await tick('sys:strategy:login:info');
      const item = page.locator(sel('role-item-permissions'));
      // ...but not two sets at once: marked as soon as it is ticked, and nothing is sent.
      await waitForText(item.locator('.el-form-item__error'), '只能属于系统、安全、审计中的一类', 'the mixing marked');
      await page.locator(sel('role-submit')).click();
      await shot(page, 'three-admin-role-mixed');
      expect(saves).toEqual([]);

      await tick('sys:strategy:login:info');
      await until(async () => (await item.locator('.el-form-item__error').count()) === 0, 'the mark gone');
      const saved = page.waitForResponse(isCall('/sys/role/save'));
      await page.locator(sel('role-submit')).click();
      expect((await (await saved).json()).success).toBe(true);
      expect(JSON.parse(saves[0])).toEqual({ code, name: code, permissions: ['sys:loginLog:list'] });
      await page
        .locator(sel(`role-row-${code}`))
        .locator(sel('role-set-audit'))
        .waitFor();
    },
  );

  scenario(
    '3. the security administrator gives a user roles: two sets refused before the request, one set granted',
    'grant',
    async () => {
      const sysToken = await app().token('sysadmin', ADMIN_PASSWORD);
      const username = `staff_${Date.now().toString(36)}`;
      const created = await app().post(
        '/sys/user/create',
        { username, name: username, password: await app().encrypt('Passw0rd!x') },
        { token: sysToken },
      );
      expect(created.body.success).toBe(true);

      const page = await signedIn('secadmin');
      const grants = callsTo(page, '/sys/user/grant');
      await page.locator(sel('nav-users')).click();
      await textBox(page, 'users-search').fill(username);
      await page.locator(sel('users-search-btn')).click();
      const row = page.locator(sel(`user-row-${username}`)).first();
      await row.waitFor();
      // No edit (sys:user:update is the system administrator's), a grant instead.
      expect(await row.locator(sel('user-edit')).count()).toBe(0);
      await row.locator(sel('user-grant')).click();
      const dialog = page.locator('.el-dialog').filter({ has: page.locator(sel('edit-submit')) });
      await dialog.waitFor();
      expect(await dialog.locator(sel('edit-item-mobile')).count()).toBe(0);
      await dialog.locator(sel('edit-roles')).click();
      await page.locator(sel('edit-role-auditadmin')).click();
      await page.locator(sel('edit-role-sysadmin')).click();
      await dialog.locator('.el-dialog__title').click();
      await dialog.locator(sel('edit-submit')).click();
      await waitForText(
        dialog.locator(sel('edit-item-roles')).locator('.el-form-item__error'),
        '一个用户的角色只能属于',
        'the roles marked',
      );
      await shot(page, 'three-admin-grant-mixed');
      expect(grants).toEqual([]);

      await dialog.locator(sel('edit-roles')).click();
      await page.locator(sel('edit-role-sysadmin')).click();
      await dialog.locator('.el-dialog__title').click();
      const granted = page.waitForResponse(isCall('/sys/user/grant'));
      await dialog.locator(sel('edit-submit')).click();
      expect((await (await granted).json()).success).toBe(true);
      expect(JSON.parse(grants[0])).toEqual({ id: created.body.data.id, roles: ['auditadmin'] });
      await waitForText(page.locator(sel(`user-row-${username}`)).first(), '审计管理员', 'the row to show the role');
      expect(
        await page
          .locator(sel(`user-row-${username}`))
          .first()
          .locator('[data-code="auditadmin"]')
          .count(),
      ).toBe(1);
      // Not on one's own row.
      await textBox(page, 'users-search').fill('secadmin');
      await page.locator(sel('users-search-btn')).click();
      const own = page.locator(sel('user-row-secadmin')).first();
      await own.waitFor();
      expect(await own.locator(sel('user-grant')).count()).toBe(0);
    },
  );
});
