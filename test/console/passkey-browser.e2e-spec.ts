import type { CDPSession, Page } from 'playwright-core';

import { Envelope } from '../../src/common/envelope';
import { stepAt, totpCode } from '../../src/mfa/totp';
import {
  browserSuiteMissing,
  CONFIRM,
  consoleBrowserSuite,
  isCall,
  sel,
  textBox,
  until,
  waitForText,
} from '../support/console-browser';
import { createActiveUser } from '../support/factories';

/*
 * Passkeys in the admin console, in Chromium with a virtual authenticator (the DevTools protocol's
 * WebAuthn domain through playwright-core's CDPSession; a platform authenticator that holds
 * discoverable credentials and verifies its user by itself): a user adds a passkey on the
 * two-factor page, logs out, logs in with 使用通行密钥登录 (no account typed: a discoverable
 * credential), sees when it was last used and deletes it.
 *
 * The page is opened at localhost rather than 127.0.0.1: a passkey's RP ID must be a domain,
 * and without RP_ID the service takes the request's host.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

whenRunnable('console: passkeys with a virtual authenticator', () => {
  const ui = consoleBrowserSuite('passkey');
  const base = () => ui.base().replace('//127.0.0.1:', '//localhost:');

  ui.scenario('register, log out, log in with the passkey, delete it', 'register-login-delete', async () => {
    const user = await createActiveUser(ui.app());
    const page = await ui.newPage('user');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);

    await page.goto(`${base()}/login`);
    await textBox(page, 'login-account').fill(user.username);
    await textBox(page, 'login-password').fill(user.password);
    await page.locator(sel('login-submit')).click();
    await waitForText(page.locator(sel('header-user')), user.username, 'header-user');

    // The two-factor page: add a passkey (the password login is the fresh proof it needs).
    await page.goto(`${base()}/me/mfa`);
    await page.locator(sel('passkey-section')).waitFor();
    await textBox(page, 'passkey-new-name').fill('Chromium 虚拟验证器');
    const registered = page.waitForResponse(isCall('/sys/me/passkey/register/verify'));
    await page.locator(sel('passkey-add')).click();
    expect(((await (await registered).json()) as Envelope).code).toBe('OK');
    await waitForText(page.locator(sel('passkey-name')).first(), 'Chromium 虚拟验证器', 'the new passkey listed');
    await waitForText(page.locator(sel('passkey-last-used')).first(), '从未使用', 'never used yet');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0].isResidentCredential).toBe(true);
    await ui.shot(page, 'passkey-registered');

    // Logged out, the login page asks for a passkey in the account field's autofill (conditional
    // UI); the virtual authenticator answers such a request by itself, so the user is back in.
    const autofilled = page.waitForResponse(isCall('/sys/login/passkey/verify'));
    await page.locator(sel('header-logout')).click();
    const viaAutofill = (await (await autofilled).json()) as Envelope<{ accessToken: string }>;
    expect(viaAutofill).toMatchObject({ code: 'OK', data: { accessToken: expect.any(String), mfaRequired: false } });
    await waitForText(page.locator(sel('header-user')), user.username, 'header-user after the autofill login');

    // A browser without autofill for passkeys: the button. No account typed: the authenticator names the user.
    await page.evaluate(() => {
      Object.defineProperty((globalThis as any).PublicKeyCredential, 'isConditionalMediationAvailable', {
        value: async () => false,
        configurable: true,
      });
    });
    await page.locator(sel('header-logout')).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await waitForText(page.locator(sel('login-passkey')), '使用通行密钥登录', 'the passkey button');
    const verified = page.waitForResponse(isCall('/sys/login/passkey/verify'));
    await page.locator(sel('login-passkey')).click();
    const login = (await (await verified).json()) as Envelope<{ accessToken: string }>;
    expect(login).toMatchObject({ code: 'OK', data: { accessToken: expect.any(String), mfaRequired: false } });
    await waitForText(page.locator(sel('header-user')), user.username, 'header-user after the passkey login');
    const rows = await ui.app().logRows(user.username);
    expect(rows.slice(-2).map((r) => [r.status, r.login_type])).toEqual([
      ['success', 'passkey'],
      ['success', 'passkey'],
    ]);

    // Last used now shows a time; delete it (the passkey login is a fresh proof too).
    await page.goto(`${base()}/me/mfa`);
    await until(
      async () => !(await page.locator(sel('passkey-last-used')).first().textContent())?.includes('从未使用'),
      'last used to show a time',
    );
    const deleted = page.waitForResponse(isCall('/sys/me/passkey/delete'));
    await page.locator(sel('passkey-delete')).first().click();
    await page.locator(CONFIRM).click();
    expect(((await (await deleted).json()) as Envelope).code).toBe('OK');
    await until(async () => (await page.locator(sel('passkey-name')).count()) === 0, 'the list to empty');
    expect(ui.errors(page)).toEqual([]);
  });

  ui.scenario(
    "mfaMode 1: a passkey finishes the second step of a TOTP user's password login",
    'second-step',
    async () => {
      const user = await createActiveUser(ui.app());
      // Mode 1 asks the users who enabled TOTP: this one enables it first (by the API; the console's
      // TOTP pages have their own test).
      const token = await ui.app().token(user.username, user.password);
      const { secret } = (await ui.app().post('/sys/me/mfa/setup', {}, { token })).body.data;
      const code = totpCode(secret, stepAt(ui.app().clock.nowMs()));
      expect((await ui.app().post('/sys/me/mfa/enable', { code }, { token })).body.code).toBe('OK');
      const page = await ui.newPage('second-step');
      await virtualAuthenticator(page);
      // No autofill here: it would sign the user in with the passkey before the password is typed.
      await page.context().addInitScript(() => {
        Object.defineProperty((globalThis as any).PublicKeyCredential, 'isConditionalMediationAvailable', {
          value: async () => false,
          configurable: true,
        });
      });
      await page.goto(`${base()}/login`);
      await textBox(page, 'login-account').fill(user.username);
      await textBox(page, 'login-password').fill(user.password);
      await page.locator(sel('login-submit')).click();
      await waitForText(page.locator(sel('header-user')), user.username, 'header-user');
      await page.goto(`${base()}/me/mfa`);
      const registered = page.waitForResponse(isCall('/sys/me/passkey/register/verify'));
      await page.locator(sel('passkey-add')).click();
      expect(((await (await registered).json()) as Envelope).code).toBe('OK');
      await ui.app().saveLoginStrategy({ mfaMode: 1 });
      try {
        await page.locator(sel('header-logout')).click();
        await page.waitForURL((url) => url.pathname === '/login');
        await textBox(page, 'login-account').fill(user.username);
        await textBox(page, 'login-password').fill(user.password);
        await page.locator(sel('login-submit')).click();
        await page.locator(sel('login-mfa-step')).waitFor();
        await waitForText(page.locator(sel('login-mfa-passkey')), '使用通行密钥验证', 'the passkey choice');
        const finished = page.waitForResponse(isCall('/sys/login/mfa'));
        await page.locator(sel('login-mfa-passkey')).click();
        expect(((await (await finished).json()) as Envelope).code).toBe('OK');
        await waitForText(page.locator(sel('header-user')), user.username, 'header-user after the second step');
      } finally {
        await ui.app().saveLoginStrategy({ mfaMode: 0 });
      }
    },
  );

  ui.scenario('a browser without passkey support gets a clear message', 'no-webauthn', async () => {
    const page = await ui.newPage('anonymous');
    // As an old browser, or a page reached over plain HTTP on another host (no secure context).
    await page.goto(`${base()}/login`);
    await page.evaluate(() => {
      Object.defineProperty(globalThis, 'PublicKeyCredential', { value: undefined, configurable: true });
    });
    await page.locator(sel('login-passkey')).click();
    await waitForText(page.locator(sel('login-message')), '此浏览器不支持通行密钥', 'the no-support message');
  });
});
