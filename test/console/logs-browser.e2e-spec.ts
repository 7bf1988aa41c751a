import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import {
  browserSuiteMissing,
  clean,
  consoleBrowserSuite,
  isCall,
  RESULTS,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { createUser, TestUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console: the login log searched by a prefix of the account and of the IP,
 * failure reasons shown from their codes in the console's language (zh, then English), the failure
 * that locked an account marked, date shortcuts, times in DISPLAY_TIMEZONE, and the audit log's
 * detail as old → new per field. As the other browser suites: the real service on a real port
 * (SQLite + memory, fake clock), Debian's Chromium, data-test selectors of web/TESTIDS.md,
 * screenshots in test-results/.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

const ZONE = 'Asia/Shanghai';
/** The instant as wall time in UTC+08:00 (Shanghai keeps +08:00 all year), worked out by hand. */
const shanghaiWall = (d: Date | string) =>
  new Date(new Date(d).getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

whenRunnable(`logs in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const {
    app,
    base,
    newPage,
    errors: errorsOf,
    shot: pageShot,
  } = consoleBrowserSuite('logs', {
    start: { env: { DISPLAY_TIMEZONE: ZONE } },
    adminToken: false,
    pagesPerTest: false,
  });
  let page: Page;
  let errors: string[];
  let user: TestUser;
  const prefix = `logpfx${Date.now().toString(36).slice(-4)}_`;

  beforeAll(async () => {
    user = await createUser(app(), { username: `${prefix}zhang` });
    // Three wrong passwords lock the account (the third is the locking failure), from 127.0.0.1.
    await app().saveLoginStrategy({ maxFailureTimes: 3 });
    for (let i = 0; i < 3; i++) {
      app().clock.advance(1_000);
      await app().login(user.username, 'Wrong#pass1', { ip: '127.0.0.1' });
    }
    await app().saveLoginStrategy({ maxFailureTimes: 5 });
    // A role saved twice: the second save changes its name and its codes.
    await app().admin('/sys/role/save', { code: `${prefix}role`, name: 'Log role', permissions: ['sys:user:list'] });
    await app().admin('/sys/role/save', {
      code: `${prefix}role`,
      name: 'Log readers',
      permissions: ['sys:user:list', 'sys:loginLog:list'],
    });
    // A browser in another zone than DISPLAY_TIMEZONE (and than the server's UTC): what it shows must not follow it.
    page = await newPage('logs', { timezoneId: 'America/New_York' });
    errors = errorsOf(page);
  });

  async function step(name: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (err) {
      await page.screenshot({ path: join(RESULTS, `failure-logs-${name}.png`), fullPage: true }).catch(() => undefined);
      writeFileSync(join(RESULTS, `failure-logs-${name}.log`), `${page.url()}\n${errors.join('\n')}\n`);
      throw err;
    }
  }

  const shot = (name: string) => pageShot(page, name);

  /** Clicks and returns the request body and the envelope of the API call it causes. */
  async function act<T = any>(
    target: ReturnType<Page['locator']>,
    path: string,
  ): Promise<{ sent: any; body: Envelope<T> }> {
    const response = page.waitForResponse(isCall(path));
    await target.click();
    const res = await response;
    return { sent: res.request().postDataJSON(), body: (await res.json()) as Envelope<T> };
  }

  const rows = () => page.locator(sel('log-row'));

  it('searches the login log by a prefix, shows reasons from their codes in zh and in English, and the audit detail old → new', async () => {
    await step('login', async () => {
      await page.goto(`${base()}/login`);
      await textBox(page, 'login-account').fill('admin');
      await textBox(page, 'login-password').fill(ADMIN_PASSWORD);
      expect((await act(page.locator(sel('login-submit')), '/sys/login')).body.success).toBe(true);
      await waitForText(page.locator(sel('header-user')), 'admin', 'the header to show admin');
    });

    await step('prefix', async () => {
      await page.goto(`${base()}/system/loginlog`);
      await textBox(page, 'log-account').fill(prefix);
      const listed = await act(page.locator(sel('log-search')), '/sys/loginLog/list');
      expect(listed.sent.account).toBe(prefix);
      await until(async () => (await rows().count()) === 3, 'three rows of the prefix');
      for (const text of await rows().allInnerTexts()) expect(text).toContain(user.username);
      // The IP by its prefix too, combined.
      await textBox(page, 'log-ip').fill('127.0');
      const both = await act(page.locator(sel('log-search')), '/sys/loginLog/list');
      expect(both.body.data.rows.map((r: any) => r.ip)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
      await until(async () => (await rows().count()) === 3, 'three rows of both prefixes');

      // zh: the reasons from their codes; the newest failure locked the account, and says so.
      const reasons = await page.locator(sel('log-reason')).allInnerTexts();
      expect(reasons.map((r) => r.trim())).toEqual(['用户名或密码错误', '用户名或密码错误', '用户名或密码错误']);
      expect(await page.locator(sel('log-locked-by')).count()).toBe(1);
      expect(await clean(rows().first().locator(sel('log-locked-by')))).toBe('失败次数达到上限,本次失败锁定了账号');
      // Times in DISPLAY_TIMEZONE (Asia/Shanghai), whatever the browser's zone.
      const newest = both.body.data.rows[0];
      expect(await rows().first().innerText()).toContain(shanghaiWall(newest.loginTime));
      expect(await clean(page.locator(sel('log-zone')))).toContain(`${ZONE}(UTC+08:00)`);
      await shot('loginlog-prefix-zh');
    });

    await step('shortcut', async () => {
      // The "today" shortcut fills the range from midnight in the display zone to now.
      await page
        .locator(`${sel('log-range')} input`)
        .first()
        .click();
      await page.locator('.el-picker-panel__shortcut', { hasText: '今天' }).click();
      await page.keyboard.press('Escape').catch(() => undefined);
      const searched = await act(page.locator(sel('log-search')), '/sys/loginLog/list');
      const now = Date.now();
      const today = shanghaiWall(new Date(now)).slice(0, 10);
      const midnight = new Date(`${today}T00:00:00+08:00`).getTime();
      // The picker shows Shanghai's midnight, not New York's or UTC's.
      expect(
        await page
          .locator(`${sel('log-range')} input`)
          .first()
          .inputValue(),
      ).toBe(`${today} 00:00:00`);
      expect(Date.parse(searched.sent.beginTime)).toBe(midnight);
      expect(Math.abs(Date.parse(searched.sent.endTime) - now)).toBeLessThan(60_000);
      await shot('loginlog-shortcut');
      await act(page.locator(sel('log-reset')), '/sys/loginLog/list');
    });

    await step('english', async () => {
      await page.locator(sel('header-lang')).click();
      await textBox(page, 'log-account').fill(prefix);
      await act(page.locator(sel('log-search')), '/sys/loginLog/list');
      await until(async () => (await rows().count()) === 3, 'three rows again');
      await waitForText(rows().first(), 'Wrong password', 'the status in English');
      const reasons = await page.locator(sel('log-reason')).allInnerTexts();
      expect(reasons.map((r) => r.trim())).toEqual([
        'Wrong user name or password',
        'Wrong user name or password',
        'Wrong user name or password',
      ]);
      expect(await clean(rows().first().locator(sel('log-locked-by')))).toBe(
        'Too many failures: this one locked the account',
      );
      await shot('loginlog-prefix-en');
    });

    await step('audit', async () => {
      await page.goto(`${base()}/system/auditlog`);
      await textBox(page, 'audit-target').fill(prefix);
      await act(page.locator(sel('audit-search')), '/sys/auditLog/list');
      const roleRow = page.locator(`${sel('audit-row')}[data-action="role.save"]`).first();
      await roleRow.waitFor();
      const name = roleRow.locator(`${sel('audit-change')}[data-field="name"]`);
      expect(await clean(name.locator(sel('audit-old')))).toBe('Log role');
      expect(await clean(name.locator(sel('audit-new')))).toBe('Log readers');
      const codes = roleRow.locator(`${sel('audit-change')}[data-field="permissions"]`);
      expect(await clean(codes.locator(sel('audit-old')))).toBe('sys:user:list');
      expect(await clean(codes.locator(sel('audit-new')))).toBe('sys:user:list, sys:loginLog:list');
      expect(await clean(name)).toMatch(/Name\s*Log role\s*→\s*Log readers/);
      // The lock by failures: by system, marked, locked false → true.
      const lockRow = page.locator(`${sel('audit-row')}[data-action="user.lock"]`).first();
      await waitForText(lockRow.locator(sel('audit-target-name')), user.username, 'the locked user by name');
      expect(await clean(lockRow.locator(sel('audit-by-failures')))).toBe('too many failures (3)');
      const locked = lockRow.locator(`${sel('audit-change')}[data-field="locked"]`);
      expect([await clean(locked.locator(sel('audit-old'))), await clean(locked.locator(sel('audit-new')))]).toEqual([
        'No',
        'Yes',
      ]);
      await shot('auditlog-detail-en');
    });
    expect(errors).toEqual([]);
  });
});
