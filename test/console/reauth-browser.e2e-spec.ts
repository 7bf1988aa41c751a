import { join } from 'node:path';

import { Secret, TOTP } from 'otpauth';
import type { Locator, Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import {
  browserSuiteMissing,
  clean,
  CONFIRM,
  consoleBrowserSuite,
  isCall,
  RESULTS,
  rowAction,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { createActiveUser, TestUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console: an answer REAUTH_REQUIRED, on any page, opens one dialog that
 * asks for the password (or a code) and then repeats the refused request. A session made by a QR
 * code, or one whose password login is older than reauthMinutes (the service's fake clock moved),
 * starts TOTP enrolment on the two-factor page, gets the dialog, gives the password, and the
 * enrolment proceeds; with reauthForAdmin the users page asks the same before a lock.
 *
 * As the other browser suites: the real service on a real port (SQLite + memory, a fake clock that
 * moves only when told), Debian's Chromium through playwright-core, the data-test selectors of
 * web/TESTIDS.md, screenshots in test-results/.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

const MINUTE = 60_000;
const MSG = {
  badCredentials: '用户名或密码错误',
  reauthRequired: '请先验证身份',
};

/** Clicks (and confirms, when asked) and returns the envelope of the API call it causes. */
async function act<T = any>(
  page: Page,
  target: Locator,
  path: string,
  opts: { confirm?: boolean } = {},
): Promise<Envelope<T>> {
  const response = page.waitForResponse(isCall(path));
  await target.click();
  if (opts.confirm) await page.locator(CONFIRM).click();
  return (await (await response).json()) as Envelope<T>;
}

whenRunnable(
  `fresh proof (step-up) in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    const { app, base, newPage, signIn, scenario, shot } = consoleBrowserSuite('reauth', { checkCsp: true });

    afterEach(async () => {
      // The suite's admin token may be past its proof while reauthForAdmin is on: it proves it again first.
      const token = await app().adminToken();
      await app().post('/sys/me/reauth', { password: await app().encrypt(ADMIN_PASSWORD) }, { token, ip: '10.9.9.9' });
      await app().saveLoginStrategy({ reauthForAdmin: false, reauthMinutes: 5 });
    });

    const totp = (secret: string) =>
      new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
        timestamp: app().clock.nowMs(),
      });
    const dialogOf = (page: Page) => page.locator('.el-dialog').filter({ has: page.locator(sel('reauth-dialog')) });

    /** A session of `user` made by a QR code that a password login generated, signed in on a new page. */
    async function qrSession(user: TestUser): Promise<Page> {
      const token = await app().token(user.username, user.password);
      const { code } = (await app().post('/auth/qrcode/generate', {}, { token })).body.data;
      const page = await newPage('qr-device');
      await page.goto(`${base()}/login`);
      await page.locator(sel('tab-qrcode')).click();
      await textBox(page, 'qrcode-input').fill(code);
      expect(await act(page, page.locator(sel('qrcode-submit')), '/auth/qrcode/verify')).toMatchObject({
        success: true,
      });
      await waitForText(page.locator(sel('header-user')), user.username, 'header-user');
      return page;
    }

    async function openTwoFactorPage(page: Page): Promise<void> {
      await page.locator(sel('nav-mfa')).click();
      await page.waitForURL((url) => url.pathname === '/me/mfa');
      await until(
        async () => (await page.locator(sel('mfa-status')).getAttribute('data-enabled')) === 'false',
        'status off',
      );
    }

    /** Types into the dialog and submits; the envelope of /sys/me/reauth. */
    async function prove(page: Page, password: string): Promise<Envelope<any>> {
      const dialog = dialogOf(page);
      await dialog.waitFor({ state: 'visible' });
      await textBox(dialog, 'reauth-password').fill(password);
      return act(page, dialog.locator(sel('reauth-submit')), '/sys/me/reauth');
    }

    scenario(
      'a QR-login session starts enrolment, gets the dialog, gives the password, and the enrolment proceeds',
      'qr',
      async () => {
        const user = await createActiveUser(app());
        const page = await qrSession(user);
        await openTwoFactorPage(page);
        // Opening the page asks for nothing: the passkey list, which needs a fresh proof, waits for a click.
        await page.locator(sel('passkey-hidden')).waitFor();
        expect(await dialogOf(page).isVisible()).toBe(false);

        // The setup is refused and then repeated once the password is proven: both calls are watched.
        const setups: number[] = [];
        page.on('response', (res) => {
          if (new URL(res.url()).pathname === '/sys/me/mfa/setup') setups.push(res.status());
        });
        await page.locator(sel('mfa-setup')).click();
        const dialog = dialogOf(page);
        await dialog.waitFor({ state: 'visible' });
        // The page's own setup button keeps loading while the dialog holds its request: no shot() here.
        await page.screenshot({ path: join(RESULTS, 'reauth-dialog.png') });

        // A wrong password: the service's message in the dialog, which stays open.
        expect(await prove(page, 'Wrong#pass1')).toMatchObject({ success: false, code: 'BAD_CREDENTIALS' });
        await waitForText(dialog.locator(sel('reauth-message')), MSG.badCredentials, 'the wrong-password message');
        expect(await dialog.isVisible()).toBe(true);

        const proven = await prove(page, user.password);
        expect(proven).toMatchObject({ success: true, data: { reauthUntil: app().clock.nowMs() + 5 * MINUTE } });
        await dialog.waitFor({ state: 'hidden' });
        // The enrolment went on by itself: the secret is shown, and a code from it turns TOTP on.
        const secret = (await clean(page.locator(sel('mfa-secret')))).replace(/\s+/g, '');
        expect(secret).toMatch(/^[A-Z2-7]{32}$/);
        expect(setups).toEqual([403, 200]);
        await textBox(page, 'mfa-code').fill(totp(secret));
        expect(await act(page, page.locator(sel('mfa-enable')), '/sys/me/mfa/enable')).toMatchObject({ success: true });
        await until(async () => (await page.locator(sel('mfa-recovery-code')).count()) === 10, 'ten recovery codes');
        await shot(page, 'reauth-enrolled');
        // Proven now: the page opened again shows the passkey list at once, without a dialog.
        await page.reload();
        await page.locator(sel('passkey-table')).waitFor();
        expect(await page.locator(sel('passkey-hidden')).count()).toBe(0);
        expect(await dialogOf(page).isVisible()).toBe(false);
      },
    );

    scenario(
      'a password session past reauthMinutes: cancel leaves the refusal, the password lets the enrolment proceed',
      'expired',
      async () => {
        const user = await createActiveUser(app());
        const page = await newPage('user');
        await signIn(page, user.username, user.password);
        await openTwoFactorPage(page);
        app().clock.advance(6 * MINUTE);

        await page.locator(sel('mfa-setup')).click();
        const dialog = dialogOf(page);
        await dialog.waitFor({ state: 'visible' });
        await dialog.locator(sel('reauth-cancel')).click();
        await dialog.waitFor({ state: 'hidden' });
        await waitForText(page.locator(sel('mfa-message')), MSG.reauthRequired, 'the refusal on the page');
        expect(await page.locator(sel('mfa-secret')).isVisible()).toBe(false);

        await page.locator(sel('mfa-setup')).click();
        expect(await prove(page, user.password)).toMatchObject({ success: true });
        await page.locator(sel('mfa-secret')).waitFor({ state: 'visible' });

        // Past the proof again, the page opened anew hides the passkey list until asked; asked, the
        // dialog comes, and the password shows the list.
        app().clock.advance(6 * MINUTE);
        await page.reload();
        await page.locator(sel('passkey-hidden')).waitFor();
        await page.locator(sel('passkey-show')).click();
        expect(await prove(page, user.password)).toMatchObject({ success: true });
        await page.locator(sel('passkey-table')).waitFor();
      },
    );

    scenario('reauthForAdmin: the users page asks for the password before a lock, then locks', 'admin', async () => {
      const user = await createActiveUser(app());
      await app().saveLoginStrategy({ reauthForAdmin: true });
      const page = await newPage('admin');
      await signIn(page, 'admin', ADMIN_PASSWORD);
      app().clock.advance(6 * MINUTE);
      await page.goto(`${base()}/system/users`);
      const row = page.locator(sel(`user-row-${user.username}`));
      await textBox(page, 'users-search').fill(user.username);
      await page.locator(sel('users-search-btn')).click();
      await row.waitFor();

      await (await rowAction(row, 'user-lock')).click();
      await page.locator(CONFIRM).click();
      const locked = page.waitForResponse((res) => isCall('/sys/user/lock')(res) && res.status() === 200);
      expect(await prove(page, ADMIN_PASSWORD)).toMatchObject({ success: true });
      expect(await (await locked).json()).toMatchObject({ success: true });
      await row.locator(sel('user-unlock')).waitFor({ state: 'attached' });
      expect(Number((await app().userRow(user.id)).locked)).toBe(1);
    });
  },
);
