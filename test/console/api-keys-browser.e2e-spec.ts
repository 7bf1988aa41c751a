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
import { NOT_LOGGED_IN } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * The API keys page of the admin console: a key made in the dialog with a permission tree, expiry
 * and address ranges, shown exactly once with its warning and copy button, used by a service, seen
 * in the list by its prefix and last use, revoked after a confirmation and shown as revoked. As the
 * other browser suites: the real service on a real port (SQLite + memory), Debian's Chromium
 * through playwright-core, the selectors of web/TESTIDS.md, screenshots in test-results/.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;
const KEY = /^lps_[0-9A-Za-z]{43}$/;

async function act<T = any>(
  page: Page,
  target: Locator,
  path: string,
  opts: { confirm?: boolean } = {},
): Promise<{ body: Envelope<T>; sent: any }> {
  const response = page.waitForResponse(isCall(path));
  await target.click();
  if (opts.confirm) await page.locator(CONFIRM).click();
  const res = await response;
  return { body: (await res.json()) as Envelope<T>, sent: res.request().postDataJSON() };
}

whenRunnable(`API keys in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, newPage, signIn, scenario, shot } = consoleBrowserSuite('api-keys');

  /** A service's call with the key, as a gateway would make it. */
  const callWith = (key: string) =>
    app().post('/sys/user/list', { pageNum: 1, pageSize: 5 }, { ip: '10.1.2.3', headers: { 'x-api-key': key } });

  async function openPage(page: Page): Promise<void> {
    await page.locator(sel('nav-apikeys')).click();
    await page.waitForURL((url) => url.pathname === '/system/apikeys');
  }

  /** Opens the create dialog and fills it; returns the dialog. */
  async function fillDialog(page: Page, name: string, codes: string[], ranges: string): Promise<Locator> {
    await page.locator(sel('apikeys-create')).click();
    const dialog = page.locator('.el-dialog').filter({ has: page.locator(sel('apikey-submit')) });
    await dialog.waitFor();
    await textBox(dialog, 'apikey-name').fill(name);
    for (const code of codes) {
      await dialog
        .locator('.el-tree-node__content', { has: page.locator(sel(`perm-${code}`)) })
        .locator('.el-checkbox')
        .first()
        .click();
    }
    await textBox(dialog, 'apikey-ip-ranges').fill(ranges);
    return dialog;
  }

  scenario('1. create a key, see it once, use it, revoke it, see it revoked', 'lifecycle', async () => {
    const page = await newPage('admin');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await openPage(page);
    const name = `gateway-${Date.now().toString(36)}`;

    const dialog = await fillDialog(page, name, ['sys:user:list', 'sys:user:lock'], '10.0.0.0/8\n2001:db8::/32');
    // The keys' own codes are not offered.
    expect(await dialog.locator(sel('perm-sys:apiKey:create')).count()).toBe(0);
    await textBox(dialog, 'apikey-expires-days').fill('30');
    await shot(page, 'api-keys-create');
    const created = await act(page, dialog.locator(sel('apikey-submit')), '/sys/apiKey/create');
    expect(created.sent).toEqual({
      name,
      permissions: ['sys:user:list', 'sys:user:lock'],
      expiresInDays: 30,
      ipRanges: ['10.0.0.0/8', '2001:db8::/32'],
    });
    expect(created.body.success).toBe(true);
    const key: string = created.body.data.key;
    expect(key).toMatch(KEY);

    // Shown once, with the warning and a copy button.
    const shown = page.locator(sel('apikey-created-dialog'));
    await shown.waitFor();
    expect(await clean(shown.locator(sel('apikey-key')))).toBe(key);
    await waitForText(shown.locator(sel('apikey-warning')), '只显示这一次', 'the warning that it is shown once');
    await page.locator(sel('apikey-copy')).click();
    await shot(page, 'api-keys-shown-once');
    await page.locator(sel('apikey-done')).click();
    await until(async () => !(await page.content()).includes(key), 'the key gone from the page once closed');

    // Listed by its prefix, never the key; never used yet.
    const row = page.locator(sel(`apikey-row-${name}`));
    await row.waitFor();
    expect(await clean(row.locator(sel('apikey-prefix')))).toBe(`${key.slice(0, 8)}…`);
    expect(await clean(row.locator(sel('apikey-last-used')))).toBe('从未使用');
    expect(await row.locator(sel('apikey-state')).getAttribute('data-state')).toBe('active');
    await waitForText(row.locator(sel('apikey-permissions')), '查看用户', 'the code names in the row');
    expect(await clean(row.locator(sel('apikey-ranges')))).toBe('10.0.0.0/8, 2001:db8::/32');

    // A service uses it; the list then shows when.
    expect((await callWith(key)).body.success).toBe(true);
    await act(page, page.locator(sel('apikeys-refresh')), '/sys/apiKey/list');
    await waitForText(row.locator(sel('apikey-last-used')), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'a last-used time');

    // Revoked after a confirmation: the row says so and the key is refused.
    const revoked = await act(page, row.locator(sel('apikey-revoke')), '/sys/apiKey/revoke', { confirm: true });
    expect(revoked.sent).toEqual({ id: created.body.data.id });
    expect(revoked.body.success).toBe(true);
    await until(
      async () => (await row.locator(sel('apikey-state')).getAttribute('data-state')) === 'revoked',
      'the row shown as revoked',
    );
    expect(await clean(row.locator(sel('apikey-state')))).toBe('已吊销');
    expect(await row.locator(sel('apikey-revoke')).count()).toBe(0);
    expect((await callWith(key)).body).toEqual(NOT_LOGGED_IN);
    await shot(page, 'api-keys');
  });

  scenario(
    '2. a bad address range is marked at its field in the caller’s language; nothing is made',
    'refused',
    async () => {
      const page = await newPage('admin');
      await signIn(page, 'admin', ADMIN_PASSWORD);
      await openPage(page);
      const before = (await app().admin('/sys/apiKey/list')).body.data.length;

      let dialog = await fillDialog(page, `bad-${Date.now().toString(36)}`, ['sys:user:list'], '10.0.0.0/33');
      const refused = await act(page, dialog.locator(sel('apikey-submit')), '/sys/apiKey/create');
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      await waitForText(
        dialog.locator(sel('apikey-item-ipRanges')).locator('.el-form-item__error'),
        '每一项应为IP地址或CIDR网段',
        'the ranges marked in Chinese',
      );
      expect(await page.locator(sel('apikey-created-dialog')).count()).toBe(0);
      expect((await app().admin('/sys/apiKey/list')).body.data.length).toBe(before);

      // In English, the page and the refusal speak English.
      await dialog.locator('.el-dialog__headerbtn').click();
      await page.locator(sel('header-lang')).click();
      await waitForText(page.locator(sel('nav-apikeys')), 'API keys', 'the menu in English');
      dialog = await fillDialog(page, `bad-${Date.now().toString(36)}`, ['sys:user:list'], 'not-a-range');
      await act(page, dialog.locator(sel('apikey-submit')), '/sys/apiKey/create');
      await waitForText(
        dialog.locator(sel('apikey-item-ipRanges')).locator('.el-form-item__error'),
        'each entry must be an IP address or a CIDR range',
        'the ranges marked in English',
      );
    },
  );

  scenario(
    '3. the menu follows sys:apiKey:list; creating and revoking need their own codes',
    'permissions',
    async () => {
      const role = `keyreader_${Date.now().toString(36)}`;
      await createRole(app(), role, ['sys:apiKey:list']);
      const reader = await createUser(app(), { roles: [role] });
      const nobody = await createUser(app());
      expect(
        (await app().admin('/sys/apiKey/create', { name: `r-${role}`, permissions: ['sys:user:list'] })).body.success,
      ).toBe(true);

      const page = await newPage('reader');
      await signIn(page, reader.username, reader.password);
      await openPage(page);
      await page.locator(sel(`apikey-row-r-${role}`)).waitFor();
      expect(await page.locator(sel('apikeys-create')).count()).toBe(0);
      expect(await page.locator(sel('apikey-revoke')).count()).toBe(0);

      const other = await newPage('nobody');
      await signIn(other, nobody.username, nobody.password);
      await other.locator(sel('nav-devices')).waitFor();
      expect(await other.locator(sel('nav-apikeys')).count()).toBe(0);
    },
  );
});
