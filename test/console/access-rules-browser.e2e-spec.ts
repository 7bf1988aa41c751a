import type { Locator, Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import {
  browserSuiteMissing,
  clean,
  CONFIRM,
  consoleBrowserSuite,
  isCall,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { createActiveUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * The access rules page of the admin console: a deny rule created in the dialog (IP ranges as tags,
 * a bad one marked, a time window, a user picked by name), the "would this login be allowed?"
 * check answered by the service at two times of the display zone, the same refusal at a real login
 * and its `denied` row in the login log, the self-lockout refusal, and the delete. As the other
 * browser suites: the real service on a real port (SQLite + memory), Debian's Chromium through
 * playwright-core, the selectors of web/TESTIDS.md, screenshots in test-results/.
 */

jest.setTimeout(120_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

/** Monday 2025-01-06 10:00 in Shanghai; Saturday 2025-01-04 10:00. */
const MONDAY_10 = '2025-01-06 10:00';
const SATURDAY_10 = '2025-01-04 10:00';

async function call<T = any>(page: Page, target: Locator, path: string): Promise<{ body: Envelope<T>; sent: any }> {
  const response = page.waitForResponse(isCall(path));
  await target.click();
  const res = await response;
  return { body: (await res.json()) as Envelope<T>, sent: res.request().postDataJSON() };
}

whenRunnable(`access rules in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, newPage, signIn, scenario, shot } = consoleBrowserSuite('access-rules', {
    start: { env: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } },
  });

  /** Picks a user by name in a remote el-select (`name` its data-test), from the options its search offers. */
  async function pickUser(page: Page, select: string, optionPrefix: string, username: string) {
    await page.locator(sel(select)).click();
    const search = page.waitForResponse(isCall('/sys/user/list'));
    await page.locator(`${sel(select)} input`).fill(username);
    await search;
    const option = page.locator(sel(`${optionPrefix}-${username}`)).filter({ visible: true });
    await option.click();
    await page.keyboard.press('Escape');
  }

  /** Types a time (the display zone's wall time) into the check's date picker. */
  async function setCheckTime(page: Page, wall: string) {
    const input = textBox(page, 'check-time');
    await input.click();
    await input.fill(wall);
    await input.press('Enter');
    await page.keyboard.press('Escape');
  }

  scenario(
    'creates a deny rule, checks a login at two times, sees the refusal in the login log, and deletes the rule',
    'deny-rule',
    async () => {
      const user = await createActiveUser(app());
      const page = await newPage('admin');
      await signIn(page, 'admin', ADMIN_PASSWORD);
      await page.locator(sel('nav-accessrules')).click();
      await page.waitForURL((url) => url.pathname === '/system/accessrules');
      await waitForText(page.locator(sel('breadcrumb')), '访问控制', 'the page title in the breadcrumb');

      // The dialog: name, deny, two ranges (one bad), a weekday window, the user by name.
      await page.locator(sel('rules-create')).click();
      const dialog = page.locator('.el-dialog').filter({ has: page.locator(sel('rule-submit')) });
      await dialog.waitFor();
      await textBox(dialog, 'rule-name').fill('实验室');
      await dialog.locator(sel('rule-action-deny')).click();
      const ip = textBox(dialog, 'rule-ip-input');
      await ip.fill('10.66.0.0/16 10.0.0.0/33');
      await ip.press('Enter');
      expect(await dialog.locator(sel('rule-ip-tag')).allTextContents()).toEqual(['10.66.0.0/16', '10.0.0.0/33']);
      await dialog.locator(sel('rule-window-add')).click();
      await pickUser(page, 'rule-users', 'rule-user-option', user.username);

      const refused = await call(page, dialog.locator(sel('rule-submit')), '/sys/accessRule/save');
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'ipRanges.1' }] } });
      expect(refused.sent).toMatchObject({
        name: '实验室',
        action: 'deny',
        ipRanges: ['10.66.0.0/16', '10.0.0.0/33'],
        timeWindows: [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' }],
        users: [user.id],
        enabled: true,
      });
      // The bad tag is marked, and its item names the rule.
      const tags = dialog.locator(sel('rule-ip-tag'));
      expect(await tags.nth(1).getAttribute('data-invalid')).toBe('true');
      expect(await tags.nth(0).getAttribute('data-invalid')).toBe('false');
      await waitForText(
        dialog.locator(`${sel('rule-item-ipRanges')} .el-form-item__error`),
        '不是IP地址或CIDR网段',
        'the ranges item to show the refusal',
      );
      await shot(page, 'access-rules-dialog-refused');
      await tags.nth(1).locator('.el-tag__close').click();
      const saved = await call(page, dialog.locator(sel('rule-submit')), '/sys/accessRule/save');
      expect(saved.body.code).toBe('OK');
      await dialog.waitFor({ state: 'hidden' });

      const row = page.locator(`${sel('rule-row')}[data-name="实验室"]`);
      await row.waitFor();
      expect(await row.locator(sel('rule-action')).getAttribute('data-action')).toBe('deny');
      const rowText = await clean(row);
      expect(rowText).toContain('10.66.0.0/16');
      expect(rowText).toContain('周一–周五 09:00–18:00');
      expect(rowText).toContain(user.username);
      await shot(page, 'access-rules-list');

      // Would this login be allowed? Monday 10:00 Shanghai from the lab: no; Saturday: yes.
      await pickUser(page, 'check-user', 'check-user-option', user.username);
      await textBox(page, 'check-ip').fill('10.66.1.1');
      await setCheckTime(page, MONDAY_10);
      const monday = await call(page, page.locator(sel('check-run')), '/sys/accessRule/check');
      expect(monday.sent).toEqual({ userId: user.id, ip: '10.66.1.1', time: '2025-01-06T02:00:00.000Z' });
      const result = page.locator(sel('check-result'));
      await waitForText(result, '拒绝登录', 'the check to refuse');
      expect(await result.getAttribute('data-allowed')).toBe('false');
      expect(await clean(result)).toContain('命中拒绝规则「实验室」');
      await shot(page, 'access-rules-check-refused');

      await setCheckTime(page, SATURDAY_10);
      const saturday = await call(page, page.locator(sel('check-run')), '/sys/accessRule/check');
      expect(saturday.sent.time).toBe('2025-01-04T02:00:00.000Z');
      await waitForText(result, '允许登录', 'the check to allow');
      expect(await result.getAttribute('data-reason')).toBe('none');

      // The login itself meets the same rule at that time: refused, logged `denied`.
      app().clock.set(Date.parse('2025-01-06T02:00:00Z'));
      try {
        const login = await app().login(user.username, user.password, { ip: '10.66.1.1' });
        expect(login.body.code).toBe('ACCESS_DENIED');
      } finally {
        app().clock.set(Date.now());
      }
      await page.locator(sel('nav-loginlog')).click();
      await textBox(page, 'log-account').fill(user.username);
      await call(page, page.locator(sel('log-search')), '/sys/loginLog/list');
      const deniedRow = page
        .locator(sel('log-row'))
        .filter({ has: page.locator('[data-status="denied"]') })
        .first();
      await waitForText(deniedRow.locator('[data-status="denied"]'), '访问规则拒绝', 'the denied status tag');
      await waitForText(
        deniedRow.locator(sel('log-reason')),
        '当前网络或时间不允许登录',
        'the reason of the denied row',
      );

      // Delete, after a confirmation.
      await page.locator(sel('nav-accessrules')).click();
      await row.waitFor();
      const gone = page.waitForResponse(isCall('/sys/accessRule/delete'));
      await row.locator(sel('rule-delete')).click();
      await page.locator(CONFIRM).click();
      expect(((await (await gone).json()) as Envelope).code).toBe('OK');
      await until(async () => (await row.count()) === 0, 'the deleted rule to leave the list');
    },
  );

  scenario('refuses a rule that would shut the administrator out, and speaks English', 'self-lockout', async () => {
    const page = await newPage('admin');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.locator(sel('header-lang')).click();
    await page.locator(sel('nav-accessrules')).click();
    await page.locator(sel('rules-create')).click();
    const dialog = page.locator('.el-dialog').filter({ has: page.locator(sel('rule-submit')) });
    await textBox(dialog, 'rule-name').fill('vpn only');
    await textBox(dialog, 'rule-ip-input').fill('10.1.0.0/16');
    const refused = await call(page, dialog.locator(sel('rule-submit')), '/sys/accessRule/save');
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    await waitForText(
      dialog.locator(sel('rule-error')),
      'Not done: afterwards you could not log in from your current IP (127.0.0.1) at this time',
      'the self-lockout refusal above the form',
    );
    await shot(page, 'access-rules-self-lockout');
    await page.keyboard.press('Escape');
    expect((await app().admin('/sys/accessRule/list')).body.data).toEqual([]);
    await waitForText(page.locator('thead'), 'Applies to', 'the English column headers');
  });
});
