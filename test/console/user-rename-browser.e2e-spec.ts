import type { Locator, Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import {
  browserSuiteMissing,
  consoleBrowserSuite,
  isCall,
  sel,
  textBox,
  waitForText,
} from '../support/console-browser';
import { createUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console: the Users page's edit dialog changes a user's user name (only what changed
 * is sent); a name another user holds is marked at its input. As the other browser suites: the real
 * service on a real port (SQLite + memory), Debian's Chromium, the selectors of web/TESTIDS.md,
 * screenshots in test-results/.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

async function act<T = any>(page: Page, target: Locator, path: string): Promise<{ body: Envelope<T>; sent: any }> {
  const response = page.waitForResponse(isCall(path));
  await target.click();
  const res = await response;
  return { body: (await res.json()) as Envelope<T>, sent: res.request().postDataJSON() };
}

whenRunnable(`renaming a user in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, newPage, signIn, scenario, shot } = consoleBrowserSuite('user-rename');

  async function openEdit(page: Page, username: string): Promise<Locator> {
    await textBox(page, 'users-search').fill(username);
    await act(page, page.locator(sel('users-search-btn')), '/sys/user/list');
    const row = page.locator(sel(`user-row-${username}`)).first();
    await row.locator(sel('user-edit')).click();
    const dialog = page.locator('.el-dialog').filter({ has: page.locator(sel('edit-submit')) });
    await dialog.waitFor();
    return dialog;
  }

  scenario('1. the edit dialog renames; a name taken is marked at the input', 'rename', async () => {
    const user = await createUser(app());
    const other = await createUser(app());
    const page = await newPage('admin');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.locator(sel('nav-users')).click();

    let dialog = await openEdit(page, user.username);
    expect(await textBox(dialog, 'edit-username').inputValue()).toBe(user.username);
    await textBox(dialog, 'edit-username').fill(other.username);
    const refused = await act(page, dialog.locator(sel('edit-submit')), '/sys/user/update');
    expect(refused.sent).toEqual({ id: user.id, username: other.username });
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    await waitForText(
      dialog.locator(`${sel('edit-item-username')} .el-form-item__error`),
      /./,
      'the user name marked as taken',
    );
    await shot(page, 'user-rename-taken');

    const renamed = `${user.username}_x`;
    await textBox(dialog, 'edit-username').fill(renamed);
    const saved = await act(page, dialog.locator(sel('edit-submit')), '/sys/user/update');
    expect(saved.sent).toEqual({ id: user.id, username: renamed });
    expect(saved.body.success).toBe(true);
    expect((await app().userRow(user.id)).username).toBe(renamed);

    // The row goes by its new name, and the dialog offers it next time.
    dialog = await openEdit(page, renamed);
    expect(await textBox(dialog, 'edit-username').inputValue()).toBe(renamed);
    await shot(page, 'user-rename-done');
  });
});
