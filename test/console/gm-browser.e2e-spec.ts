import { browserSuiteMissing, consoleBrowserSuite, isCall, sel, textBox } from '../support/console-browser';
import { createUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * Under CRYPTO_SUITE=gm the console reads the algorithm from /sys/publicKey and sends every
 * password field as SM2 ciphertext (C1C3C2, hex): the administrator logs in, and a user created
 * with an initial password changes it on the password page and logs in with the new one.
 *
 * As the other browser suites: the real service on a real port (SQLite + memory), Debian's
 * Chromium through playwright-core, the data-test selectors of web/TESTIDS.md.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

const SM2_CIPHERTEXT = /^[0-9a-f]{192,}$/;

whenRunnable(`the console under CRYPTO_SUITE=gm, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, newPage, errors, login, signIn, scenario } = consoleBrowserSuite('gm', {
    start: { env: { CRYPTO_SUITE: 'gm' } },
    checkCsp: true,
  });

  scenario('the administrator logs in with an SM2-encrypted password; a wrong one is refused', 'login', async () => {
    const page = await newPage('admin');
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === '/sys/login');
    const wrong = await login(page, 'admin', 'Wrong#pass1');
    expect(wrong).toMatchObject({ success: false, code: 'BAD_CREDENTIALS' });
    expect((await sent).postDataJSON().password).toMatch(SM2_CIPHERTEXT);
    await signIn(page, 'admin', ADMIN_PASSWORD);
    // The browser reports the refused login's 401 itself; nothing else may have failed.
    expect(errors(page).filter((e) => !e.includes('status of 401'))).toEqual([]);
  });

  scenario(
    'a new user changes the initial password on the password page, then logs in with it',
    'password',
    async () => {
      await app().saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app(), { password: 'Initial#1a' });
      const page = await newPage('user');
      expect(await login(page, user.username, 'Initial#1a')).toMatchObject({
        success: true,
        data: { forceUpdatePassword: true },
      });
      await page.waitForURL((url) => url.pathname === '/password');
      await textBox(page, 'pass-old').fill('Initial#1a');
      await textBox(page, 'pass-new').fill('Fresh#pass9');
      await textBox(page, 'pass-confirm').fill('Fresh#pass9');
      const request = page.waitForRequest((r) => new URL(r.url()).pathname === '/sys/me/pass/update');
      const response = page.waitForResponse(isCall('/sys/me/pass/update'));
      await page.locator(sel('pass-submit')).click();
      const body = (await request).postDataJSON();
      expect(body.oldPass).toMatch(SM2_CIPHERTEXT);
      expect(body.newPass).toMatch(SM2_CIPHERTEXT);
      expect((await (await response).json()).success).toBe(true);
      await page.waitForURL((url) => url.pathname === '/login');
      await signIn(page, user.username, 'Fresh#pass9');
      expect(errors(page)).toEqual([]);
    },
  );
});
