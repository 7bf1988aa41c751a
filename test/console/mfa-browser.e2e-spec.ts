import { readFileSync } from 'node:fs';

import { Secret, TOTP } from 'otpauth';
import type { Locator, Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import {
  browserSuiteMissing,
  clean,
  CONFIRM,
  consoleBrowserSuite,
  isCall,
  rowAction,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { createActiveUser, TestUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * In the admin console (the second factor): a user enrols on the
 * Two-factor authentication page (the test reads the secret from the page and computes the code
 * as an authenticator app would), then logs in with the second step; mfaMode 2 sends a user
 * without a second factor to the enrolment; the administrator sets mfaMode on the strategy page
 * and resets a user's second factor on the users page.
 *
 * As in browser.e2e-spec.ts: the real service on a real port (SQLite + memory, a fake clock that
 * stands still), Debian's Chromium through playwright-core, the data-test selectors of
 * web/TESTIDS.md, screenshots in test-results/. TOTP codes are computed with otpauth (the library
 * the service uses) at the app's clock, which the test moves by one 30-second step whenever a code
 * of the current step was already accepted (a used step is refused).
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

const STEP_MS = 30_000;
const MSG = {
  codeInvalid: '动态验证码错误',
  tokenInvalid: '验证已过期,请重新登录',
  forbidden: '没有权限',
  setupTip: '请先绑定双因素认证',
};

/** Clicks (and confirms, when asked) and returns the envelope of the API call it causes. */
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

whenRunnable(`second factor in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  // The API helpers keep the admin token; the admin never enrols, so it stays valid in every mode.
  // Every scenario also expects no Content-Security-Policy violation of its pages.
  const { app, base, newPage, scenario, shot } = consoleBrowserSuite('mfa', {
    page: { acceptDownloads: true },
    checkCsp: true,
  });

  beforeEach(async () => {
    await setMfaMode(0);
  });

  async function setMfaMode(mode: 0 | 1 | 2): Promise<void> {
    const res = await app().admin('/sys/strategy/login/save', { mfaMode: mode });
    if (!res.body.success) throw new Error(`mfaMode ${mode} refused: ${res.body.code} ${res.body.message}`);
  }

  /** The code an authenticator app shows for `secret` at the app's clock, `steps` 30-second steps from now. */
  function totp(secret: string, steps = 0): string {
    return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
      timestamp: app().clock.now().getTime() + steps * STEP_MS,
    });
  }

  /** A 6-digit code that is not the right one at any step the service accepts now. */
  function wrongCode(secret: string): string {
    const taken = new Set([-1, 0, 1].map((s) => totp(secret, s)));
    for (let n = 0; ; n += 1) {
      const code = String((Number(totp(secret)) + 500_000 + n) % 1_000_000).padStart(6, '0');
      if (!taken.has(code)) return code;
    }
  }

  async function submitLogin(page: Page, account: string, password: string): Promise<Envelope<any>> {
    if (new URL(page.url()).pathname !== '/login') await page.goto(`${base()}/login`);
    await textBox(page, 'login-account').fill(account);
    await textBox(page, 'login-password').fill(password);
    return (await act(page, page.locator(sel('login-submit')), '/sys/login')).body;
  }

  async function expectLoggedIn(page: Page, username: string): Promise<void> {
    await page.waitForURL((url) => !['/login', '/password', '/me/mfa'].includes(url.pathname));
    await waitForText(page.locator(sel('header-user')), username, `header-user to show ${username}`);
  }

  async function logout(page: Page): Promise<void> {
    await page.locator(sel('header-logout')).click();
    await page.waitForURL((url) => url.pathname === '/login');
  }

  /** Setup on the two-factor page: the secret as the page shows it (and as the service gave it). */
  async function startSetup(page: Page): Promise<string> {
    const setup = await act<{ secret: string; otpauthUrl: string }>(
      page,
      page.locator(sel('mfa-setup')),
      '/sys/me/mfa/setup',
    );
    expect(setup.body).toMatchObject({ success: true });
    const secret = (await clean(page.locator(sel('mfa-secret')))).replace(/\s+/g, '');
    expect(secret).toBe(setup.body.data!.secret);
    expect(setup.body.data!.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    // The QR code was drawn (a blank canvas is all one colour).
    const canvas = page.locator(sel('mfa-qrcode'));
    await canvas.waitFor();
    const colours = await canvas.evaluate((el) => {
      const c = el as unknown as {
        width: number;
        height: number;
        getContext(k: '2d'): { getImageData(...a: number[]): { data: Uint8ClampedArray } };
      };
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const seen = new Set<number>();
      for (let i = 0; i < data.length; i += 4) seen.add(data[i]);
      return seen.size;
    });
    expect(colours).toBeGreaterThan(1);
    return secret;
  }

  /** Types the current code and turns it on; the recovery codes the page shows. */
  async function enableWith(page: Page, secret: string): Promise<string[]> {
    await textBox(page, 'mfa-code').fill(totp(secret));
    const enabled = await act<{ recoveryCodes: string[] }>(page, page.locator(sel('mfa-enable')), '/sys/me/mfa/enable');
    expect(enabled.body).toMatchObject({ success: true });
    const shown = page.locator(sel('mfa-recovery-code'));
    await until(async () => (await shown.count()) === 10, 'ten recovery codes');
    const codes = (await shown.allTextContents()).map((c) => c.trim());
    expect(codes).toEqual(enabled.body.data!.recoveryCodes);
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}$/i);
    // The step of that code is used now: the next code comes from the next step.
    app().clock.advance(STEP_MS);
    return codes;
  }

  /** Password, then the second step with `code`; the envelope of /sys/login/mfa. */
  async function secondStep(page: Page, code: string): Promise<Envelope<any>> {
    await textBox(page, 'login-mfa-code').fill(code);
    return (await act(page, page.locator(sel('login-mfa-submit')), '/sys/login/mfa')).body;
  }

  scenario(
    'the page tells the truth about mfaMode, names the apps people use, and lists recovery codes one per line',
    'mode',
    async () => {
      const user = await createActiveUser(app());
      const page = await newPage('user');
      expect(await submitLogin(page, user.username, user.password)).toMatchObject({ success: true });
      await expectLoggedIn(page, user.username);
      await page.goto(`${base()}/me/mfa`);
      // Mode 0: nothing asks for a code, and the page says so instead of promising it.
      const mode = page.locator(sel('mfa-mode'));
      await waitForText(mode, '您的登录目前不会要求动态验证码', 'the mode-0 warning');
      expect(await clean(mode)).toContain('管理员尚未');
      expect(await mode.getAttribute('data-mode')).toBe('0');
      expect(await clean(page.locator('.intro').first())).toContain('腾讯身份验证器');

      const secret = await startSetup(page);
      await enableWith(page, secret);
      // One code a line: every code starts at the same left edge, each below the one before.
      const boxes = await page
        .locator(sel('mfa-recovery-code'))
        .evaluateAll((els) =>
          els.map((el) =>
            (el as unknown as { getBoundingClientRect(): { x: number; y: number } }).getBoundingClientRect(),
          ),
        );
      expect(new Set(boxes.map((b) => Math.round(b.x))).size).toBe(1);
      for (let i = 1; i < boxes.length; i += 1) expect(boxes[i].y).toBeGreaterThan(boxes[i - 1].y);
      await shot(page, 'mfa-mode-0-codes');
      await page.locator(sel('mfa-recovery-done')).click();
      await waitForText(mode, '您已绑定身份验证器，但您的登录目前不会要求动态验证码', 'enabled, mode 0');

      // Mode 1 turned on by an administrator: the page now says logins ask for the code.
      await setMfaMode(1);
      await page.reload();
      await until(async () => (await mode.getAttribute('data-mode')) === '1', 'mode 1 shown');
      await waitForText(mode, '使用密码登录时须输入动态验证码', 'the mode-1 text');
      await shot(page, 'mfa-mode-1');
    },
  );

  scenario(
    '1. a user enrols on the two-factor page, then logs in with the password and a code from the app',
    'enrol',
    async () => {
      const user = await createActiveUser(app());
      const page = await newPage('user');
      expect(await submitLogin(page, user.username, user.password)).toMatchObject({
        success: true,
        data: { tempUser: false },
      });
      await expectLoggedIn(page, user.username);

      // My account → Two-factor authentication: off.
      await page.locator(sel('nav-mfa')).click();
      await page.waitForURL((url) => url.pathname === '/me/mfa');
      await until(
        async () => (await page.locator(sel('mfa-status')).getAttribute('data-enabled')) === 'false',
        'status off',
      );
      await shot(page, 'mfa-off');

      const secret = await startSetup(page);
      await shot(page, 'mfa-setup');

      // A wrong code is refused with the service's message, and nothing is turned on.
      await textBox(page, 'mfa-code').fill(wrongCode(secret));
      const refused = await act(page, page.locator(sel('mfa-enable')), '/sys/me/mfa/enable');
      expect(refused.body).toMatchObject({ success: false, code: 'MFA_CODE_INVALID' });
      await waitForText(page.locator(sel('mfa-message')), MSG.codeInvalid, 'the wrong-code message');
      expect(
        (
          await app().post(
            '/sys/me/info',
            {},
            { token: (await page.evaluate('localStorage.getItem("Admin-Token")')) as string },
          )
        ).body.data,
      ).toMatchObject({ mfaEnabled: false });

      const recovery = await enableWith(page, secret);
      await shot(page, 'mfa-recovery-codes');

      // Download: a .txt with every code.
      const download = page.waitForEvent('download');
      await page.locator(sel('mfa-recovery-download')).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/\.txt$/);
      const text = readFileSync((await file.path())!, 'utf8');
      expect(text).toContain(user.username);
      for (const code of recovery) expect(text).toContain(code);

      await page.locator(sel('mfa-recovery-done')).click();
      await until(
        async () => (await page.locator(sel('mfa-status')).getAttribute('data-enabled')) === 'true',
        'status on',
      );
      await page.locator(sel('mfa-recovery-codes')).waitFor({ state: 'detached' });
      await page.locator(sel('mfa-disable')).waitFor();
      await shot(page, 'mfa-on');

      // Enrolled users must give a code from now on.
      await setMfaMode(1);
      await logout(page);

      const first = await submitLogin(page, user.username, user.password);
      expect(first).toMatchObject({ success: true, data: { accessToken: null, mfaRequired: true } });
      await page.locator(sel('login-mfa-step')).waitFor();
      expect(new URL(page.url()).pathname).toBe('/login');
      await shot(page, 'login-mfa-step');

      // A wrong code: the message, and the second step stays.
      expect(await secondStep(page, wrongCode(secret))).toMatchObject({ success: false, code: 'MFA_CODE_INVALID' });
      await waitForText(
        page.locator(sel('login-message')),
        MSG.codeInvalid,
        'the wrong-code message on the login page',
      );
      await page.locator(sel('login-mfa-code')).waitFor();

      // The right code: the login goes on as any login does, to the first page the user may see.
      expect(await secondStep(page, totp(secret))).toMatchObject({ success: true, data: { tempUser: false } });
      await expectLoggedIn(page, user.username);
      app().clock.advance(STEP_MS);

      // A recovery code instead of the app.
      await logout(page);
      expect((await submitLogin(page, user.username, user.password)).data).toMatchObject({ mfaRequired: true });
      await page.locator(sel('login-mfa-switch')).click();
      await shot(page, 'login-mfa-recovery');
      expect(await secondStep(page, recovery[0])).toMatchObject({ success: true });
      await expectLoggedIn(page, user.username);

      // The second step outlives no mfaToken: after its 5 minutes the page goes back to the password, with the message.
      await logout(page);
      expect((await submitLogin(page, user.username, user.password)).data).toMatchObject({ mfaRequired: true });
      app().clock.advance(5 * 60_000 + 1_000);
      expect(await secondStep(page, totp(secret))).toMatchObject({ success: false, code: 'MFA_TOKEN_INVALID' });
      await waitForText(page.locator(sel('login-message')), MSG.tokenInvalid, 'the expired-token message');
      await page.locator(sel('login-mfa-step')).waitFor({ state: 'detached' });
      await textBox(page, 'login-password').waitFor();
    },
  );

  scenario(
    '2. with mfaMode 2 a user without a second factor is sent to enrol, then logs in again with a code',
    'forced',
    async () => {
      const user = await createActiveUser(app());
      await setMfaMode(2);
      const page = await newPage('user');

      const first = await submitLogin(page, user.username, user.password);
      expect(first).toMatchObject({ success: true, data: { tempUser: true, mfaSetupRequired: true } });
      await page.waitForURL((url) => url.pathname === '/me/mfa');
      await page.locator(sel('mfa-forced')).waitFor();
      await waitForText(page.locator(sel('login-tip')), MSG.setupTip, 'the enrolment tip');
      // A temporary session: no menu, and other pages lead back here.
      expect(await page.locator(sel('nav-devices')).count()).toBe(0);
      await page.goto(`${base()}/me/devices`);
      await page.waitForURL((url) => url.pathname === '/me/mfa');
      await shot(page, 'mfa-forced');

      const secret = await startSetup(page);
      await enableWith(page, secret);
      await shot(page, 'mfa-forced-recovery-codes');
      await page.locator(sel('mfa-relogin')).click();
      await page.waitForURL((url) => url.pathname === '/login');
      expect(await page.evaluate('localStorage.getItem("Admin-Token")')).toBeNull();

      expect((await submitLogin(page, user.username, user.password)).data).toMatchObject({ mfaRequired: true });
      expect(await secondStep(page, totp(secret))).toMatchObject({ success: true, data: { tempUser: false } });
      await expectLoggedIn(page, user.username);
      app().clock.advance(STEP_MS);

      // Turning it off is not allowed while everyone must have it: the page says why.
      await page.locator(sel('nav-mfa')).click();
      await textBox(page, 'mfa-disable-code').fill(totp(secret));
      const off = await act(page, page.locator(sel('mfa-disable')), '/sys/me/mfa/disable', { confirm: true });
      expect(off.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
      await waitForText(page.locator(sel('mfa-message')), MSG.forbidden, 'the FORBIDDEN message');
      await waitForText(page.locator(sel('mfa-message-hint')), '双因素认证模式 = 2', 'the explanation of FORBIDDEN');
      expect(await page.locator(sel('mfa-status')).getAttribute('data-enabled')).toBe('true');
      await shot(page, 'mfa-disable-forbidden');
    },
  );

  scenario(
    "3. an administrator sets mfaMode on the strategy page and resets a user's second factor on the users page",
    'admin',
    async () => {
      // A user enrolled through the API, as the page does it.
      const user: TestUser = await createActiveUser(app());
      const token = await app().token(user.username, user.password);
      const { secret } = (await app().post('/sys/me/mfa/setup', {}, { token })).body.data;
      expect((await app().post('/sys/me/mfa/enable', { code: totp(secret) }, { token })).body).toMatchObject({
        success: true,
      });
      app().clock.advance(STEP_MS);

      const page = await newPage('admin');
      expect(await submitLogin(page, 'admin', ADMIN_PASSWORD)).toMatchObject({ success: true });
      await expectLoggedIn(page, 'admin');

      await page.goto(`${base()}/system/strategy`);
      await page.locator(sel('strategy-tab-login')).click();
      const field = page.locator(sel('field-mfaMode'));
      await field.waitFor();
      expect(await clean(page.locator(sel('default-mfaMode')))).toBe('默认 关闭');
      await waitForText(field, '强制：所有用户都须输入', 'the meaning of mode 2');
      await page.locator(sel('mfa-1')).click();
      const saved = await act(page, page.locator(sel('strategy-save-login')), '/sys/strategy/login/save');
      expect(saved.body).toMatchObject({ success: true });
      expect(saved.sent).toMatchObject({ mfaMode: 1 });
      expect((await app().admin('/sys/strategy/login/info')).body.data).toMatchObject({ mfaMode: 1 });
      await shot(page, 'strategy-mfa-mode');

      // Users: the badge, and the reset.
      await page.goto(`${base()}/system/users`);
      await textBox(page, 'users-search').fill(user.username);
      await act(page, page.locator(sel('users-search-btn')), '/sys/user/list');
      const row = page.locator(sel(`user-row-${user.username}`)).first();
      await row.locator(sel('user-mfa')).waitFor();
      await shot(page, 'users-mfa-badge');
      const reset = await act(page, await rowAction(row, 'user-mfa-reset'), '/sys/user/mfa/reset', { confirm: true });
      expect(reset.body).toMatchObject({ success: true });
      expect(reset.sent).toEqual({ id: user.id });
      await row.locator(sel('user-mfa')).waitFor({ state: 'detached' });
      expect(await row.locator(sel('user-mfa-reset')).count()).toBe(0);

      // The user's session ended, and the next login needs the password only.
      expect((await app().post('/sys/me/info', {}, { token })).body.success).toBe(false);
      const again = await app().login(user.username, user.password);
      expect(again.body).toMatchObject({ success: true, data: { mfaRequired: false } });
      expect(again.body.data!.accessToken).toEqual(expect.any(String));
    },
  );
});
