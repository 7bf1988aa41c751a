import type { Locator, Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import { browserSuiteMissing, clean, consoleBrowserSuite, isCall, sel, waitForText } from '../support/console-browser';
import { createActiveUser, createRole } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console: the audit log page's verify button (shown with sys:auditLog:verify only),
 * its answer — both logs intact, or the first bad record named — in Chinese and in English, and the
 * labels of the actions a user takes on their own credentials. As the other browser suites: the
 * real service on a real port (SQLite + memory), Debian's Chromium, the selectors of
 * web/TESTIDS.md, screenshots in test-results/.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

async function act<T = any>(page: Page, target: Locator, path: string): Promise<{ body: Envelope<T> }> {
  const response = page.waitForResponse(isCall(path));
  await target.click();
  return { body: (await (await response).json()) as Envelope<T> };
}

whenRunnable(`the logs' seals in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, newPage, signIn, scenario, shot } = consoleBrowserSuite('audit-verify');

  scenario(
    '1. verify: both logs intact; a record changed in the database is then named, in Chinese and in English',
    'verify',
    async () => {
      await createActiveUser(app());
      const page = await newPage('admin');
      await signIn(page, 'admin', ADMIN_PASSWORD);
      await page.locator(sel('nav-auditlog')).click();
      const button = page.locator(sel('audit-verify'));
      await waitForText(button, '完整性校验', 'the verify button');

      const good = await act<any>(page, button, '/sys/auditLog/verify');
      expect(good.body.data).toMatchObject({ ok: true, firstBad: null });
      const result = page.locator(sel('audit-verify-result'));
      await waitForText(result, `两份日志均完整：已校验 ${good.body.data.checked} 条已签封记录。`, 'the ok answer');
      expect(await result.getAttribute('data-ok')).toBe('true');
      // The verification is audited, and the list shows it at the top with its label.
      const top = page.locator(sel('audit-row')).first();
      await waitForText(top, '校验日志完整性', 'the verification row');
      expect(await top.getAttribute('data-action')).toBe('auditLog.verify');
      // The user's own password change, labelled.
      const own = page.locator(`${sel('audit-row')}[data-action="me.password.change"]`).first();
      expect(await clean(own)).toContain('修改本人密码');
      await shot(page, 'audit-verify-ok');

      const [{ id }] = await app().db.query(
        'SELECT id FROM sys_login_log WHERE seal_seq IS NOT NULL ORDER BY seal_seq LIMIT 1',
      );
      const [{ ip }] = await app().db.query('SELECT ip FROM sys_login_log WHERE id = ?', [id]);
      await app().db.query("UPDATE sys_login_log SET ip = '203.0.113.7' WHERE id = ?", [id]);
      try {
        const bad = await act<any>(page, button, '/sys/auditLog/verify');
        expect(bad.body.data.firstBad).toEqual({ table: 'sys_login_log', id: String(id), reason: 'altered' });
        await waitForText(result, `登录日志第 ${id} 条记录未通过校验：记录被修改。`, 'the bad record in Chinese');
        expect(await result.getAttribute('data-ok')).toBe('false');
        await shot(page, 'audit-verify-bad');

        await page.locator(sel('header-lang')).click();
        await waitForText(button, 'Verify', 'the button in English');
        await act(page, button, '/sys/auditLog/verify');
        await waitForText(
          result,
          `Record ${id} of the login log fails the check: it was changed.`,
          'the bad record in English',
        );
        await waitForText(page.locator(sel('audit-row')).first(), 'Logs verified', 'the label in English');
      } finally {
        await app().db.query('UPDATE sys_login_log SET ip = ? WHERE id = ?', [ip, id]);
      }
    },
  );

  scenario('2. no verify button without sys:auditLog:verify', 'no-code', async () => {
    await createRole(app(), 'audit_reader', ['sys:auditLog:list']);
    const reader = await createActiveUser(app(), { roles: ['audit_reader'] });
    const page = await newPage('reader');
    await signIn(page, reader.username, reader.password);
    await page.locator(sel('nav-auditlog')).click();
    await page.locator(sel('audit-search')).waitFor();
    await page.locator(sel('audit-row')).first().waitFor();
    expect(await page.locator(sel('audit-verify')).count()).toBe(0);
  });
});
