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
import { createActiveUser, createRole } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * The admin console (web/, served by the service at /) driven in a real browser against
 * the real service on a real port: Nest app from startApp (SQLite + memory, fake clock that stands
 * still), Debian's Chromium through playwright-core. Selectors and routes are the console's
 * data-test contract. Setup that is not the point of a test (users, strategy values) goes through
 * the API; every test makes its own users and browser contexts.
 *
 * Screenshots of every page land in test-results/ (git-ignored).
 */

jest.setTimeout(60_000);

// Without Chromium or a built console there is nothing to drive, and the suite is skipped, as the
// static-console suite is. .ci/run installs Debian's chromium and runs `npm run build:web` first,
// so in CI it always runs.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

const WRONG = 'Wrong#pass1';
const MSG = {
  badCredentials: '用户名或密码错误',
  locked: '用户已被锁定',
  kickedOut: '账号已在其他地方登录',
  notLoggedIn: '未登录或登录已过期',
  /** The console's text when a session with time left answers NOT_LOGGED_IN. */
  endedByAdmin: '您的会话已被管理员结束',
};

/** The number the header badge shows; 0 when it is hidden or empty. */
async function unreadCount(page: Page): Promise<number> {
  const badge = page.locator(sel('header-unread'));
  if (!(await badge.count())) return 0;
  const content = badge.locator('.el-badge__content');
  const target = (await content.count()) ? content.first() : badge.first();
  if (!(await target.isVisible())) return 0;
  const n = Number.parseInt(await clean(target), 10);
  return Number.isNaN(n) ? 0 : n;
}

interface Acted<T> {
  body: Envelope<T>;
  sent: any;
}

/** Clicks (and confirms, when asked) and returns the envelope of the API call it causes. */
async function act<T = any>(
  page: Page,
  target: Locator,
  path: string,
  opts: { confirm?: boolean } = {},
): Promise<Acted<T>> {
  const response = page.waitForResponse(isCall(path));
  await target.click();
  if (opts.confirm) await page.locator(CONFIRM).click();
  const res = await response;
  return { body: (await res.json()) as Envelope<T>, sent: res.request().postDataJSON() };
}

whenRunnable(`admin console in Chromium against the running service${missing ? ` (skipped: ${missing})` : ''}`, () => {
  // The API helpers keep the normal admin token, so they still work while a test has made initial
  // passwords (the admin's included) give temporary tokens. Each scenario's browser contexts are its
  // own, closed at its end, photographed when it fails (failure-<slug>-*), and the console must work
  // under its Content-Security-Policy: nothing it does is refused.
  const { app, base, newPage, scenario, shot } = consoleBrowserSuite('', { checkCsp: true });
  const goto = async (page: Page, path: string): Promise<void> => {
    await page.goto(`${base()}${path}`);
  };

  // Every test starts from the same strategy, whatever the one before it saved.
  beforeEach(async () => {
    await app().saveLoginStrategy({
      maxFailureTimes: 5,
      maxFailureInterval: 24,
      lockMinutes: 1440,
      multiOnline: true,
      bindIp: false,
      sendMsgWhenErrorLogin: '',
      sendMsgWhenErrorIp: '',
    });
    await app().saveUserStrategy({
      forceUpdatePassword: false,
      minPasswordLength: 6,
      maxPasswordLength: 20,
      includeLowerCase: true,
      includeUpperCase: false,
      includeNumber: true,
      includeSymbol: true,
    });
  });

  // ------------------------------------------------------------------ console steps

  /**
   * Fills the password tab of the login page and submits (the button, or Enter in the password box);
   * the envelope of /sys/login.
   */
  async function submitLogin(
    page: Page,
    account: string,
    password: string,
    via: 'click' | 'enter' = 'click',
  ): Promise<Envelope<any>> {
    if (new URL(page.url()).pathname !== '/login') await goto(page, '/login');
    await textBox(page, 'login-account').fill(account);
    await textBox(page, 'login-password').fill(password);
    if (via === 'click') return (await act(page, page.locator(sel('login-submit')), '/sys/login')).body;
    const response = page.waitForResponse(isCall('/sys/login'));
    await textBox(page, 'login-password').press('Enter');
    return (await (await response).json()) as Envelope<any>;
  }

  /** The live checklist of the password page: [data-rule, data-ok] in the order shown. */
  async function checklist(page: Page): Promise<string[][]> {
    return page
      .locator(sel('pass-rule'))
      .evaluateAll((els) => els.map((el) => [el.getAttribute('data-rule') ?? '', el.getAttribute('data-ok') ?? '']));
  }

  async function expectChecklist(page: Page, password: string, expected: string[][]): Promise<void> {
    await textBox(page, 'pass-new').fill(password);
    let seen: string[][] = [];
    await until(
      async () => {
        seen = await checklist(page);
        return JSON.stringify(seen) === JSON.stringify(expected);
      },
      `the checklist for ${JSON.stringify(password)}`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; shown ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
    });
  }

  async function expectLoggedIn(page: Page, username: string): Promise<void> {
    await page.waitForURL((url) => url.pathname !== '/login' && url.pathname !== '/password');
    await waitForText(page.locator(sel('header-user')), username, `header-user to show ${username}`);
  }

  async function loginAs(page: Page, username: string, password: string): Promise<void> {
    const res = await submitLogin(page, username, password);
    expect(res).toMatchObject({ success: true, data: { tempUser: false } });
    await expectLoggedIn(page, username);
  }

  async function adminPage(): Promise<Page> {
    const page = await newPage('admin');
    await loginAs(page, 'admin', ADMIN_PASSWORD);
    return page;
  }

  /** The Users page filtered to one user; the user's row. */
  async function userRow(page: Page, username: string): Promise<Locator> {
    if (new URL(page.url()).pathname !== '/system/users') await goto(page, '/system/users');
    await textBox(page, 'users-search').fill(username);
    await act(page, page.locator(sel('users-search-btn')), '/sys/user/list');
    const row = page.locator(sel(`user-row-${username}`));
    await row.first().waitFor();
    return row.first();
  }

  /** Another page of the console, reached through the menu (client-side, no reload). */
  async function nextAction(page: Page): Promise<void> {
    const here = new URL(page.url()).pathname;
    await page.locator(sel(here === '/me/devices' ? 'nav-messages' : 'nav-devices')).click();
  }

  async function expectBackOnLogin(page: Page, message: string): Promise<void> {
    await page.waitForURL((url) => url.pathname === '/login');
    await waitForText(page.locator(sel('login-message')), message, `login-message "${message}"`);
    expect(await page.evaluate('localStorage.getItem("Admin-Token")')).toBeNull();
  }

  // ------------------------------------------------------------------ scenarios

  scenario(
    '1. an administrator changes the strategy on the System strategy page and the next login follows it',
    'strategy',
    async () => {
      const user = await createActiveUser(app());
      const page = await adminPage();

      await goto(page, '/system/strategy');
      await page.locator(sel('strategy-tab-login')).click();
      const maxFailures = textBox(page, 'field-maxFailureTimes');
      await until(async () => (await maxFailures.inputValue()) === '5', 'maxFailureTimes to load as 5');
      // Meaning, unit, allowed range (the service's limits) and the service's default, at the field.
      const maxFailuresItem = page.locator('.el-form-item').filter({ has: page.locator(sel('field-maxFailureTimes')) });
      await waitForText(maxFailuresItem, '取值范围 1 – 1000 次', 'the range of maxFailureTimes');
      expect(await clean(page.locator(sel('default-maxFailureTimes')))).toBe('默认 5 次');
      expect(await clean(page.locator(sel('default-loginStrategyWhenExpire')))).toBe('默认 禁止');
      expect(await clean(page.locator(sel('default-multiOnline')))).toBe('默认 是');
      await shot(page, 'strategy-login');

      // A value the service refuses: its message appears at the field, and nothing is saved.
      await maxFailures.fill('0');
      await maxFailures.press('Tab');
      const refused = await act(page, page.locator(sel('strategy-save-login')), '/sys/strategy/login/save');
      expect(refused.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      await waitForText(page.locator(sel('error-maxFailureTimes')), refused.body.message, 'the field error');
      expect((await app().admin('/sys/strategy/login/info')).body.data).toMatchObject({ maxFailureTimes: 5 });

      await maxFailures.fill('2');
      await maxFailures.press('Tab');
      const saved = await act(page, page.locator(sel('strategy-save-login')), '/sys/strategy/login/save');
      expect(saved.body).toMatchObject({ success: true, code: 'OK' });
      expect(saved.sent).toMatchObject({ maxFailureTimes: 2 });
      expect((await app().admin('/sys/strategy/login/info')).body.data).toMatchObject({ maxFailureTimes: 2 });
      // What the page shows after a reload is what the service kept.
      await page.reload();
      await until(
        async () => (await textBox(page, 'field-maxFailureTimes').inputValue()) === '2',
        'maxFailureTimes to reload as 2',
      );

      // The next logins: two wrong passwords now lock the account, and the right one is refused.
      expect((await app().login(user.username, WRONG, { ip: '10.1.0.1' })).body.code).toBe('BAD_CREDENTIALS');
      expect((await app().login(user.username, WRONG, { ip: '10.1.0.1' })).body.code).toBe('BAD_CREDENTIALS');
      expect((await app().login(user.username, user.password, { ip: '10.1.0.1' })).body).toMatchObject({
        code: 'ACCOUNT_LOCKED',
        message: MSG.locked,
      });
      // ...and the login page of another browser says so.
      const userPage = await newPage('user');
      expect(await submitLogin(userPage, user.username, user.password)).toMatchObject({
        success: false,
        code: 'ACCOUNT_LOCKED',
      });
      await waitForText(userPage.locator(sel('login-message')), MSG.locked, 'the locked message on the login page');

      // The account strategy tab saves on its own and reaches the rules every client reads.
      await page.locator(sel('strategy-tab-user')).click();
      const minLength = textBox(page, 'field-minPasswordLength');
      await minLength.waitFor();
      await until(async () => (await minLength.inputValue()) === '6', 'minPasswordLength to load as 6');
      const maxLengthItem = page.locator('.el-form-item').filter({ has: page.locator(sel('field-maxPasswordLength')) });
      await waitForText(maxLengthItem, '取值范围 0 – 72 个字符', 'the range of maxPasswordLength (BCrypt: 72)');
      expect(await clean(page.locator(sel('default-passwordExpireDays')))).toBe('默认 90 天');
      await minLength.fill('8');
      await minLength.press('Tab');
      const savedUser = await act(page, page.locator(sel('strategy-save-user')), '/sys/strategy/user/save');
      expect(savedUser.body).toMatchObject({ success: true });
      expect(savedUser.sent).toMatchObject({ minPasswordLength: 8 });
      expect((await app().admin('/sys/strategy/user/rules')).body.data).toMatchObject({ minPasswordLength: 8 });
      await shot(page, 'strategy-user');

      // Both saves are in the audit log.
      await page.locator(sel('nav-auditlog')).click();
      await page.waitForURL((url) => url.pathname === '/system/auditlog');
      await page
        .locator(`${sel('audit-row')}[data-action="strategy.login.save"]`)
        .first()
        .waitFor();
      await page
        .locator(`${sel('audit-row')}[data-action="strategy.user.save"]`)
        .first()
        .waitFor();
      // Each action under its label, not only its code.
      expect(
        await page
          .locator(`${sel('audit-row')}[data-action="strategy.login.save"]`)
          .first()
          .innerText(),
      ).toContain('保存登录策略');
      await shot(page, 'auditlog');
    },
  );

  scenario(
    '2. three wrong passwords lock the account on the login page; the administrator unlocks it in Users; the user logs in',
    'lockout',
    async () => {
      await app().saveLoginStrategy({ maxFailureTimes: 3 });
      const user = await createActiveUser(app());
      const page = await newPage('user');
      await goto(page, '/login');

      for (let attempt = 1; attempt <= 3; attempt += 1) {
        // The second one by Enter: it must count once, like a click.
        const res = await submitLogin(page, user.username, WRONG, attempt === 2 ? 'enter' : 'click');
        expect(res).toMatchObject({ success: false, code: 'BAD_CREDENTIALS' });
        await waitForText(
          page.locator(sel('login-message')),
          MSG.badCredentials,
          `the wrong-password message (attempt ${attempt})`,
        );
      }
      const locked = await submitLogin(page, user.username, user.password);
      expect(locked).toMatchObject({ success: false, code: 'ACCOUNT_LOCKED' });
      await waitForText(page.locator(sel('login-message')), MSG.locked, 'the locked message');
      expect(new URL(page.url()).pathname).toBe('/login');
      await shot(page, 'login');

      const admin = await adminPage();
      const row = await userRow(admin, user.username);
      await waitForText(row.locator(sel('user-state')), /锁定|locked/i, 'the locked badge');
      await shot(admin, 'users');

      const unlocked = await act(admin, await rowAction(row, 'user-unlock'), '/sys/user/unlock', { confirm: true });
      expect(unlocked.body).toMatchObject({ success: true });
      await until(
        async () => !/锁定|locked/i.test(await clean(row.locator(sel('user-state')))),
        'the locked badge to go',
      );
      await row.locator(sel('user-lock')).waitFor({ state: 'attached' });
      expect(await row.locator(sel('user-unlock')).count()).toBe(0);

      await loginAs(page, user.username, user.password);

      // Every attempt is in the login log.
      await goto(admin, '/system/loginlog');
      await textBox(admin, 'log-account').fill(user.username);
      await act(admin, admin.locator(sel('log-search')), '/sys/loginLog/list');
      await until(
        async () => (await admin.locator(sel('log-row')).count()) >= 5,
        'five log rows (3 wrong, 1 locked, 1 success)',
      );
      // Exactly those (plus the setup login of createActiveUser), each with the status tag the page
      // shows: an Enter that submitted twice would show a fourth passwrong.
      expect(await admin.locator(sel('log-row')).count()).toBe(6);
      const tagged = (status: string) => admin.locator(`${sel('log-row')} [data-status="${status}"]`).count();
      expect([await tagged('passwrong'), await tagged('locked'), await tagged('success')]).toEqual([3, 1, 2]);
      expect(await clean(admin.locator(`${sel('log-row')} [data-status="passwrong"]`).first())).toBe('密码错误');
      await shot(admin, 'loginlog');

      // The audit log names the unlocked user, not only its id.
      await goto(admin, '/system/auditlog');
      const unlockRow = admin.locator(`${sel('audit-row')}[data-action="user.unlock"]`).first();
      await waitForText(
        unlockRow.locator(sel('audit-target-name')),
        user.username,
        "the unlocked user's name in the audit log",
      );
    },
  );

  scenario(
    '3. a user created by the administrator must change the initial password at first login, then logs in with the new one',
    'first-login',
    async () => {
      const admin = await adminPage();
      const username = `first_${Date.now().toString(36)}`;
      await goto(admin, '/system/users');
      await admin.locator(sel('users-create')).click();
      await textBox(admin, 'create-username').fill(username);
      await textBox(admin, 'create-mobile').fill(`137${String(Date.now() % 1e8).padStart(8, '0')}`);
      await textBox(admin, 'create-email').fill(`${username}@example.com`);
      const created = await act<{ id: string; password?: string }>(
        admin,
        admin.locator(sel('create-submit')),
        '/sys/user/create',
      );
      expect(created.body).toMatchObject({
        success: true,
        data: { id: expect.any(String), password: expect.any(String) },
      });
      const initial = created.body.data!.password!;
      await waitForText(admin.locator(sel('create-password')), initial, 'the generated password, shown once');

      await app().saveUserStrategy({ forceUpdatePassword: true });

      const page = await newPage('user');
      const login = await submitLogin(page, username, initial);
      expect(login).toMatchObject({ success: true, data: { tempUser: true, forceUpdatePassword: true } });
      await page.waitForURL((url) => url.pathname === '/password');
      await waitForText(page.locator(sel('login-tip')), login.data.tip, 'the login tip on the password page');
      // A temporary token has no menu: the password page is the only way on.
      expect(await page.locator('[data-test^="nav-"]').count()).toBe(0);

      await textBox(page, 'pass-old').fill(initial);
      const newPass = textBox(page, 'pass-new');
      const rules = page.locator(sel('pass-rule'));
      await newPass.fill('abc');
      await until(
        async () =>
          (await rules.count()) > 0 && (await page.locator(`${sel('pass-rule')}[data-ok="false"]`).count()) > 0,
        'a rule not met by "abc"',
      );
      // In its order, only the rules the strategy requires (upper case is off), with the
      // character classes: length in code points, a symbol is neither letter, digit nor space.
      await expectChecklist(page, 'abc', [
        ['min', 'false'],
        ['max', 'true'],
        ['digit', 'false'],
        ['lower', 'true'],
        ['symbol', 'false'],
      ]);
      await expectChecklist(page, 'abcdef1 ', [
        ['min', 'true'],
        ['max', 'true'],
        ['digit', 'true'],
        ['lower', 'true'],
        ['symbol', 'false'],
      ]);
      await expectChecklist(page, '密码abcd1', [
        ['min', 'true'],
        ['max', 'true'],
        ['digit', 'true'],
        ['lower', 'true'],
        ['symbol', 'false'],
      ]);
      await expectChecklist(page, '😀😀😀1a', [
        ['min', 'false'],
        ['max', 'true'],
        ['digit', 'true'],
        ['lower', 'true'],
        ['symbol', 'true'],
      ]);
      await expectChecklist(page, 'ABCDEF٣!', [
        ['min', 'true'],
        ['max', 'true'],
        ['digit', 'false'],
        ['lower', 'false'],
        ['symbol', 'true'],
      ]);
      await expectChecklist(page, 'a1!'.repeat(7), [
        ['min', 'true'],
        ['max', 'false'],
        ['digit', 'true'],
        ['lower', 'true'],
        ['symbol', 'true'],
      ]);

      // The first unmet rule of the checklist is the one the service names, shown verbatim.
      await expectChecklist(page, 'abcdefg!', [
        ['min', 'true'],
        ['max', 'true'],
        ['digit', 'false'],
        ['lower', 'true'],
        ['symbol', 'true'],
      ]);
      await textBox(page, 'pass-confirm').fill('abcdefg!');
      const weak = await act(page, page.locator(sel('pass-submit')), '/sys/me/pass/update');
      expect(weak.body).toMatchObject({ success: false, code: 'PASSWORD_NEEDS_DIGIT', message: '密码应包含数字' });
      await waitForText(
        page.locator(sel('pass-message')),
        weak.body.message,
        'the service message on the password page',
      );
      expect(new URL(page.url()).pathname).toBe('/password');
      await newPass.fill('Fresh#pass9');
      await textBox(page, 'pass-confirm').fill('Fresh#pass9');
      await until(
        async () =>
          (await page.locator(`${sel('pass-rule')}[data-ok="false"]`).count()) === 0 &&
          (await page.locator(`${sel('pass-rule')}[data-ok="true"]`).count()) === (await rules.count()),
        'every rule met',
      );
      await shot(page, 'password');

      const changed = await act(page, page.locator(sel('pass-submit')), '/sys/me/pass/update');
      expect(changed.body).toMatchObject({ success: true });
      await page.waitForURL((url) => url.pathname === '/login');

      expect(await submitLogin(page, username, initial)).toMatchObject({ success: false, code: 'BAD_CREDENTIALS' });
      await loginAs(page, username, 'Fresh#pass9');
      expect(new URL(page.url()).pathname).not.toBe('/password');
    },
  );

  scenario(
    '4. QR login: a code generated in My devices of one browser logs the same user in on another',
    'qrcode',
    async () => {
      const user = await createActiveUser(app());
      const phone = await newPage('logged-in');
      await loginAs(phone, user.username, user.password);
      await phone.locator(sel('nav-devices')).click();
      await phone.waitForURL((url) => url.pathname === '/me/devices');
      await phone.locator(sel('device-row')).first().waitFor();

      const generated = await act<{ code: string; expiresIn: number }>(
        phone,
        phone.locator(sel('qrcode-generate')),
        '/auth/qrcode/generate',
      );
      expect(generated.body).toMatchObject({ success: true, data: { code: expect.any(String) } });
      const code = generated.body.data!.code;
      await waitForText(phone.locator(sel('qrcode-code')), code, 'the code shown');
      await phone.locator(sel('qrcode-canvas')).waitFor();
      // The canvas is in the page before any code: it must hold a drawn QR code (dark modules on white).
      const drawn = await phone.locator(sel('qrcode-canvas')).evaluate((el) => {
        // Runs in the page; the test project has no DOM types, so the canvas's shape is spelled out.
        const c = el as unknown as {
          width: number;
          height: number;
          getContext(
            kind: '2d',
          ): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
        };
        const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
        let dark = 0;
        let light = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] > 200 && data[i] < 60) dark += 1;
          else if (data[i + 3] > 200 && data[i] > 200) light += 1;
        }
        return { width: c.width, dark, light };
      });
      expect(drawn.width).toBeGreaterThanOrEqual(200);
      expect(drawn.dark).toBeGreaterThan(drawn.width * 10);
      expect(drawn.light).toBeGreaterThan(drawn.width * 10);
      await waitForText(phone.locator(sel('qrcode-countdown')), /^[45]:\d{2} 后失效$/, 'the countdown from 5 minutes');
      await shot(phone, 'devices');

      const desk = await newPage('new-device');
      await goto(desk, '/login');
      await desk.locator(sel('tab-qrcode')).click();
      await textBox(desk, 'qrcode-input').fill(code);
      await shot(desk, 'login-qrcode');
      const verified = await act(desk, desk.locator(sel('qrcode-submit')), '/auth/qrcode/verify');
      expect(verified.body).toMatchObject({
        success: true,
        data: { accessToken: expect.any(String), tempUser: false },
      });
      await expectLoggedIn(desk, user.username);

      // The first browser now lists both sessions of the user.
      await phone.reload();
      await until(async () => (await phone.locator(sel('device-row')).count()) === 2, 'two device rows');
      // Only the other device can be sent away from here.
      const current = phone.locator(`${sel('device-row')}[data-current="true"]`);
      const other = phone.locator(`${sel('device-row')}[data-current="false"]`);
      expect([await current.count(), await other.count()]).toEqual([1, 1]);
      expect(await current.locator(sel('device-kickout')).count()).toBe(0);
      expect(await other.locator(sel('device-kickout')).count()).toBe(1);
    },
  );

  scenario(
    '5. a site message reaches the logged-in browser live: unread badge and message list update without a reload',
    'site-message',
    async () => {
      const user = await createActiveUser(app());
      await app().saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });

      const page = await newPage('user');
      await goto(page, '/login');
      const streamOpen = page.waitForResponse((res) => new URL(res.url()).pathname === '/sys/message/stream', {
        timeout: 15_000,
      });
      await loginAs(page, user.username, user.password);
      await page.locator(sel('nav-messages')).click();
      await page.waitForURL((url) => url.pathname === '/messages');
      const stream = await streamOpen;
      expect(stream.status()).toBe(200);
      // Opened with a one-time ticket, never with the token in the URL.
      const streamUrl = new URL(stream.url());
      expect(streamUrl.searchParams.get('ticket')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(streamUrl.searchParams.has('token')).toBe(false);
      expect(await unreadCount(page)).toBe(0);
      expect(await page.locator(sel('message-row')).count()).toBe(0);
      await page.evaluate('window.__sameDocument = true');

      // Someone else tries the user's account with a wrong password, in another browser.
      const intruder = await newPage('intruder');
      expect(await submitLogin(intruder, user.username, WRONG)).toMatchObject({ code: 'BAD_CREDENTIALS' });

      await until(async () => (await unreadCount(page)) === 1, 'the header badge to show 1 unread');
      const row = page.locator(sel('message-row'));
      await until(async () => (await row.count()) === 1, 'the message in the list');
      expect(await row.first().getAttribute('data-read')).toBe('false');
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      await shot(page, 'messages');

      const read = await act(page, row.first().locator(sel('message-read')), '/sys/message/read');
      expect(read.body).toMatchObject({ success: true });
      await until(async () => (await row.first().getAttribute('data-read')) === 'true', 'the message marked read');
      await until(async () => (await unreadCount(page)) === 0, 'the badge to clear');
    },
  );

  scenario(
    '6a. with multiOnline = false a second login kicks the first browser out: its next action lands on /login with the message',
    'kicked-by-login',
    async () => {
      await app().saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app());
      const page = await newPage('first');
      // Its message stream hangs (a proxy that never answers), so the stream's end event cannot
      // bring it back (6c): the API answer of its next action alone must.
      await page.route(
        (url) => url.pathname === '/sys/message/stream',
        () => undefined,
      );
      await loginAs(page, user.username, user.password);

      const second = await newPage('second');
      await loginAs(second, user.username, user.password);

      await nextAction(page);
      await expectBackOnLogin(page, MSG.kickedOut);
      await expectLoggedIn(second, user.username);
    },
  );

  scenario(
    '6c. a kicked-out browser left idle lands on /login with the message once the service ends its message stream',
    'kicked-idle',
    async () => {
      await app().saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app());
      const page = await newPage('first');
      const streamOpen = page.waitForResponse((res) => new URL(res.url()).pathname === '/sys/message/stream');
      await loginAs(page, user.username, user.password);
      expect((await streamOpen).status()).toBe(200);

      await app().token(user.username, user.password, { ip: '10.6.0.1' });
      // No action, no heartbeat: the service ends the stream within a second of the kick-out.
      const kicked = Date.now();
      await expectBackOnLogin(page, MSG.kickedOut);
      expect(Date.now() - kicked).toBeLessThan(3_000);
    },
  );

  scenario(
    '6b. an administrator kicks a session out in Online sessions: that browser lands on /login with the message by itself',
    'kicked-by-admin',
    async () => {
      const user = await createActiveUser(app());
      const page = await newPage('user');
      await loginAs(page, user.username, user.password);

      const admin = await adminPage();
      await admin.locator(sel('nav-online')).click();
      await admin.waitForURL((url) => url.pathname === '/system/online');
      const row = admin.locator(sel('online-row')).filter({ hasText: user.username });
      await row.first().waitFor();
      expect(await row.count()).toBe(1);
      await shot(admin, 'online');
      const kicked = await act(admin, row.first().locator(sel('online-kickout')), '/sys/online/kickout', {
        confirm: true,
      });
      expect(kicked.body).toMatchObject({ success: true });
      await until(async () => (await row.count()) === 0, 'the session to leave the list');

      // Without any action of its own: the service ends the session's message stream within a
      // second, with the code and message an API call would get.
      await expectBackOnLogin(page, MSG.endedByAdmin);
    },
  );
  scenario('7. a user who may create users is offered only the roles whose codes it holds', 'grants', async () => {
    const narrow = `narrow_${Date.now().toString(36)}`;
    const within = `within_${Date.now().toString(36)}`;
    await createRole(app(), narrow, ['sys:user:list', 'sys:user:create', 'sys:role:list']);
    await createRole(app(), within, ['sys:user:list']);
    const user = await createActiveUser(app(), { roles: [narrow] });
    const page = await newPage('narrow');
    await loginAs(page, user.username, user.password);
    await goto(page, '/system/users');
    await page.locator(sel('users-create')).click();
    await page.locator(sel('create-roles')).click();
    const offered = page.locator('[data-test^="create-role-"]');
    await offered.first().waitFor();
    const codes = (await offered.evaluateAll((els) => els.map((el) => el.getAttribute('data-test') ?? ''))).map((t) =>
      t.slice('create-role-'.length),
    );
    expect(codes).toEqual(expect.arrayContaining([narrow, within]));
    expect(codes).not.toContain('admin');
    await shot(page, 'create-roles');
  });
  scenario(
    "8. the Users page offers no lock, disable or reset on the administrator's own row",
    'self-row',
    async () => {
      const other = await createActiveUser(app());
      const page = await adminPage();
      const own = await userRow(page, 'admin');
      for (const action of ['lock', 'disable', 'reset'])
        expect(await own.locator(sel(`user-${action}`)).count()).toBe(0);
      const theirs = await userRow(page, other.username);
      for (const action of ['lock', 'disable', 'reset'])
        expect(await theirs.locator(sel(`user-${action}`)).count()).toBe(1);
    },
  );

  scenario(
    '9. every field the service refuses (data.errors) is marked at its form item, not only the one its message names',
    'field-errors',
    async () => {
      const page = await adminPage();
      const errorsOf = (body: Envelope<any>) =>
        Object.fromEntries((body.data?.errors ?? []).map((e: any) => [e.field, e.message]));

      // Strategy: two values the form lets through and the service refuses, saved at once.
      await goto(page, '/system/strategy');
      await page.locator(sel('strategy-tab-login')).click();
      const maxFailures = textBox(page, 'field-maxFailureTimes');
      await until(async () => (await maxFailures.inputValue()) === '5', 'maxFailureTimes to load as 5');
      await maxFailures.fill('0');
      await maxFailures.press('Tab');
      await textBox(page, 'field-lockMinutes').fill('0');
      await textBox(page, 'field-lockMinutes').press('Tab');
      const refused = await act(page, page.locator(sel('strategy-save-login')), '/sys/strategy/login/save');
      expect(refused.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      const strategyErrors = errorsOf(refused.body);
      expect(Object.keys(strategyErrors).sort()).toEqual(['lockMinutes', 'maxFailureTimes']);
      for (const [field, message] of Object.entries(strategyErrors)) {
        await waitForText(page.locator(sel(`error-${field}`)), message as string, `the error at ${field}`);
      }
      // Fields the service did not name stay unmarked.
      expect(await page.locator(sel('error-sessionExpireMinutes')).count()).toBe(0);
      expect((await app().admin('/sys/strategy/login/info')).body.data).toMatchObject({
        maxFailureTimes: 5,
        lockMinutes: 1440,
      });
      await shot(page, 'strategy-field-errors');

      // Create user: a mobile and an e-mail the dialog does not check, marked at their inputs.
      await goto(page, '/system/users');
      await page.locator(sel('users-create')).click();
      await textBox(page, 'create-username').fill(`marks_${Date.now().toString(36)}`);
      await textBox(page, 'create-mobile').fill('12-34');
      await textBox(page, 'create-email').fill('not an e-mail');
      const created = await act(page, page.locator(sel('create-submit')), '/sys/user/create');
      expect(created.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      const createErrors = errorsOf(created.body);
      expect(Object.keys(createErrors).sort()).toEqual(['email', 'mobile']);
      for (const [field, message] of Object.entries(createErrors)) {
        const item = page.locator(sel(`create-item-${field}`));
        await until(
          async () => (await item.getAttribute('class'))?.includes('is-error'),
          `the ${field} item to be marked`,
        );
        await waitForText(item.locator('.el-form-item__error'), message as string, `the error under ${field}`);
      }
      expect(await page.locator(sel('create-item-username')).getAttribute('class')).not.toContain('is-error');
      await shot(page, 'create-field-errors');
    },
  );
});
