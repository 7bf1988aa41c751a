import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import ExcelJS from 'exceljs';
import type { Page, Request } from 'playwright-core';

import { browserSuiteMissing, consoleBrowserSuite, RESULTS, sel, textBox } from '../support/console-browser';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console: the two export buttons of the login-log and audit-log pages download
 * the rows of the filters on screen (all records, not the page): Excel with labels for people, CSV
 * of the row fields for scripts. Skipped where Chromium or
 * web/dist is missing, like the other browser suites.
 */

jest.setTimeout(90_000);

const isRequest = (path: string) => (req: Request) => req.method() === 'POST' && new URL(req.url()).pathname === path;

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
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
    expect((await button.textContent())?.trim()).toBe('导出 Excel');
    expect((await page.locator(sel('log-export-fields')).textContent())?.trim()).toBe('导出 CSV（字段名）');
    // A prefix, as the list takes it: the export sends the same filter.
    await textBox(page, 'log-ip').fill('10.201.');
    await page.screenshot({ path: join(RESULTS, 'loginlog-export.png') });

    const sentForPeople = page.waitForRequest(isRequest('/sys/loginLog/export'));
    const forPeople = await downloaded(page, 'log-export');
    expect((await sentForPeople).postDataJSON()).toEqual({ ip: '10.201.', format: 'xlsx', columns: 'labels' });
    expect(forPeople.name).toMatch(/^login-log-\d{8}-\d{6}\.xlsx$/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(forPeople.text as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    expect(sheet.getRow(1).getCell(2).value).toBe('账号');
    expect(String(sheet.getRow(1).getCell(sheet.columnCount).value)).toMatch(/^登录时间 \(.+\)$/);
    expect(sheet.getRow(2).getCell(2).value).toBe('nobody-a');
    expect(sheet.getRow(2).getCell(5).value).toBe('密码错误');
    expect(sheet.rowCount).toBe(2);

    const sent = page.waitForRequest(isRequest('/sys/loginLog/export'));
    const { name, text } = await downloaded(page, 'log-export-fields');
    expect((await sent).postDataJSON()).toEqual({ ip: '10.201.', format: 'csv', columns: 'fields' });

    expect(name).toMatch(/^login-log-\d{8}-\d{6}\.csv$/);
    expect([...text.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = text.subarray(3).toString('utf8').trim().split('\r\n');
    expect(lines[0]).toBe('id,account,userName,loginType,status,ip,browser,os,loginTime,failureReason,failureCode');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['nobody-a']);

    await page.evaluate("localStorage.setItem('lang', 'en')");
    await page.goto(`${base()}/system/auditlog`);
    const auditButton = page.locator(sel('audit-export'));
    await auditButton.waitFor();
    expect((await auditButton.textContent())?.trim()).toBe('Export Excel');
    // The date shortcut of the list narrows the export too.
    await page
      .locator(`${sel('audit-range')} input`)
      .first()
      .click();
    await page.locator('.el-picker-panel__shortcut', { hasText: 'Today' }).click();
    await page.keyboard.press('Escape').catch(() => undefined);
    const auditSent = page.waitForRequest(isRequest('/sys/auditLog/export'));
    const audit = await downloaded(page, 'audit-export-fields');
    const auditBody = (await auditSent).postDataJSON();
    expect(Date.parse(auditBody.beginTime)).toBeLessThanOrEqual(Date.now());
    expect(Math.abs(Date.parse(auditBody.endTime) - Date.now())).toBeLessThan(60_000);
    expect(audit.name).toMatch(/^audit-log-\d{8}-\d{6}\.csv$/);
    // The login-log export just made is in it, recorded before its first byte.
    expect(audit.text.toString('utf8')).toContain('loginLog.export');
  });
});
