import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Page, Request } from 'playwright-core';

import { browserSuiteMissing, consoleBrowserSuite, RESULTS, sel, textBox } from '../support/console-browser';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console: the Export button of the login-log and audit-log pages
 * downloads the CSV of the filters on screen (all records, not the page). Skipped where Chromium or
 * web/dist is missing, like the other browser suites.
 */

jest.setTimeout(90_000);

const isRequest = (path: string) => (req: Request) => req.method() === 'POST' && new URL(req.url()).pathname === path;

const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

whenRunnable(`log export buttons in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, base, newPage, login, scenario } = consoleBrowserSuite('export', { adminToken: false });

  async function signIn(page: Page) {
    await login(page, 'admin', ADMIN_PASSWORD);
    await page.waitForURL((url) => url.pathname !== '/login');
  }

  async function downloaded(page: Page, button: string): Promise<{ name: string; text: Buffer }> {
    const download = page.waitForEvent('download');
    await page.locator(sel(button)).click();
    const file = await download;
    const path = join(RESULTS, file.suggestedFilename());
    await file.saveAs(path);
    return { name: file.suggestedFilename(), text: readFileSync(path) };
  }

  scenario('downloads the login log of the filters on screen, with BOM, in both languages', 'loginlog', async () => {
    // Attempts from two IPs; the filter keeps one.
    await app().login('nobody-a', 'Wrong#pass1', { ip: '10.201.1.1' });
    await app().login('nobody-b', 'Wrong#pass1', { ip: '10.202.2.2' });
    const page = await newPage('admin', { acceptDownloads: true });
    await signIn(page);
    await page.goto(`${base()}/system/loginlog`);
    const button = page.locator(sel('log-export'));
    await button.waitFor();
    expect((await button.textContent())?.trim()).toBe('导出 CSV');
    // A prefix, as the list takes it: the export sends the same filter.
    await textBox(page, 'log-ip').fill('10.201.');
    await page.screenshot({ path: join(RESULTS, 'loginlog-export.png') });

    const sent = page.waitForRequest(isRequest('/sys/loginLog/export'));
    const { name, text } = await downloaded(page, 'log-export');
    expect((await sent).postDataJSON()).toEqual({ ip: '10.201.' });

    expect(name).toMatch(/^login-log-\d{8}-\d{6}\.csv$/);
    expect([...text.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = text.subarray(3).toString('utf8').trim().split('\r\n');
    expect(lines[0]).toBe('id,account,userName,loginType,status,ip,browser,os,loginTime,failureReason,failureCode');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['nobody-a']);

    await page.evaluate("localStorage.setItem('lang', 'en')");
    await page.goto(`${base()}/system/auditlog`);
    const auditButton = page.locator(sel('audit-export'));
    await auditButton.waitFor();
    expect((await auditButton.textContent())?.trim()).toBe('Export CSV');
    // The date shortcut of the list narrows the export too.
    await page
      .locator(`${sel('audit-range')} input`)
      .first()
      .click();
    await page.locator('.el-picker-panel__shortcut', { hasText: 'Today' }).click();
    await page.keyboard.press('Escape').catch(() => undefined);
    const auditSent = page.waitForRequest(isRequest('/sys/auditLog/export'));
    const audit = await downloaded(page, 'audit-export');
    const auditBody = (await auditSent).postDataJSON();
    expect(Date.parse(auditBody.beginTime)).toBeLessThanOrEqual(Date.now());
    expect(Math.abs(Date.parse(auditBody.endTime) - Date.now())).toBeLessThan(60_000);
    expect(audit.name).toMatch(/^audit-log-\d{8}-\d{6}\.csv$/);
    // The login-log export just made is in it, recorded before its first byte.
    expect(audit.text.toString('utf8')).toContain('loginLog.export');
  });
});
