import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import ExcelJS from 'exceljs';
import type { Page } from 'playwright-core';

import { browserSuiteMissing, consoleBrowserSuite, RESULTS, rowAction, sel, textBox } from '../support/console-browser';
import { createUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console's users page: the import dialog (template, file, dry run with per-row
 * errors, then the import), the export of the list's filters, and a reset with a typed password.
 * Skipped where Chromium or web/dist is missing, like the other browser suites.
 */

jest.setTimeout(120_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

async function xlsxFile(name: string, rows: unknown[][]): Promise<string> {
  const book = new ExcelJS.Workbook();
  const ws = book.addWorksheet('users');
  ws.addRow(['用户名', '姓名', '手机号', '邮箱', '角色']);
  for (const r of rows) ws.addRow(r);
  const path = join(RESULTS, name);
  writeFileSync(path, Buffer.from(await book.xlsx.writeBuffer()));
  return path;
}

async function sheetOf(path: string): Promise<ExcelJS.Worksheet> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(readFileSync(path) as unknown as ArrayBuffer);
  return book.worksheets[0];
}

whenRunnable(`users import and export in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, base, newPage, login, scenario } = consoleBrowserSuite('user-import', { adminToken: false });

  async function signIn(page: Page) {
    await login(page, 'admin', ADMIN_PASSWORD);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto(`${base()}/system/users`);
    await page.locator(sel('users-import')).waitFor();
  }

  async function download(page: Page, button: string): Promise<string> {
    const pending = page.waitForEvent('download');
    await page.locator(sel(button)).click();
    const file = await pending;
    const path = join(RESULTS, `user-import-${file.suggestedFilename()}`);
    await file.saveAs(path);
    return path;
  }

  scenario('imports users after a dry run that lists each row error', 'users-import', async () => {
    const page = await newPage('admin', { acceptDownloads: true });
    await signIn(page);
    await page.locator(sel('users-import')).click();
    const dialog = page.locator(sel('users-import-dialog'));
    await dialog.waitFor();

    const template = await download(page, 'users-import-template');
    expect((await sheetOf(template)).getRow(1).getCell(1).value).toBe('用户名');

    // A file with two bad rows: nothing can be imported, each error names its row.
    const stamp = Date.now().toString(36);
    const bad = await xlsxFile('import-bad.xlsx', [
      [`imp_a${stamp}`, '甲', '13712345678', null, null],
      ['x', '太短', '13712345679', null, null],
      [`imp_c${stamp}`, '无联系方式', null, null, null],
    ]);
    await page.locator(sel('users-import-file')).setInputFiles(bad);
    const errors = page.locator(`${sel('users-import-errors')} .el-table__body tr`);
    await errors.nth(1).waitFor();
    expect(await errors.count()).toBe(2);
    expect(await errors.nth(0).textContent()).toContain('3');
    expect(await errors.nth(1).textContent()).toContain('手机号和邮箱至少填写一项');
    expect(await page.locator(sel('users-import-submit')).isDisabled()).toBe(true);
    await page.screenshot({ path: join(RESULTS, 'users-import-errors.png') });

    const good = await xlsxFile('import-good.xlsx', [
      [`imp_a${stamp}`, '甲', '13712345678', null, null],
      [`imp_b${stamp}`, '乙', null, `imp_b${stamp}@example.com`, null],
    ]);
    await page.locator(sel('users-import-file')).setInputFiles(good);
    await page.locator(sel('users-import-checked')).waitFor();
    expect(await page.locator(sel('users-import-checked')).textContent()).toContain('2');
    await page.locator(sel('users-import-submit')).click();
    await page.locator(sel(`user-row-imp_b${stamp}`)).waitFor();
    await page.locator(sel(`user-row-imp_a${stamp}`)).waitFor();
    await page.screenshot({ path: join(RESULTS, 'users-imported.png') });

    // The export takes the filters on screen.
    await page.locator(sel('users-search')).fill(`imp_b${stamp}`);
    await page.locator(sel('users-search-btn')).click();
    const exported = await download(page, 'users-export');
    expect(exported).toMatch(/users-\d{8}-\d{6}\.xlsx$/);
    const sheet = await sheetOf(exported);
    expect(sheet.getRow(1).getCell(2).value).toBe('用户名');
    expect(sheet.getRow(2).getCell(2).value).toBe(`imp_b${stamp}`);
    expect(sheet.rowCount).toBe(2);
  });

  scenario(
    'resets a password the administrator types, with the rules checked as it is typed',
    'users-reset',
    async () => {
      const user = await createUser(app());
      const page = await newPage('admin');
      await signIn(page);
      await page.locator(sel('users-search')).fill(user.username);
      await page.locator(sel('users-search-btn')).click();
      const row = page.locator(sel(`user-row-${user.username}`));
      await row.waitFor();
      await (await rowAction(row, 'user-reset')).click();
      await page.locator(sel('reset-dialog')).waitFor();
      await page.locator(sel('reset-mode-type')).click();
      await page.screenshot({ path: join(RESULTS, 'users-reset-dialog.png') });
      await textBox(page, 'reset-typed').fill('short');
      expect(await page.locator(sel('reset-submit')).isDisabled()).toBe(true);
      expect(await page.locator(`${sel('pass-rule')}[data-rule="min"]`).getAttribute('data-ok')).toBe('false');
      await textBox(page, 'reset-typed').fill('Typed#Pass9x');
      expect(await page.locator(`${sel('pass-rule')}[data-rule="min"]`).getAttribute('data-ok')).toBe('true');
      await page.screenshot({ path: join(RESULTS, 'users-reset-typed.png') });
      await page.locator(sel('reset-submit')).click();
      await page.locator(sel('reset-dialog')).waitFor({ state: 'hidden' });
      expect((await app().login(user.username, 'Typed#Pass9x')).body.success).toBe(true);
    },
  );
});
