import {
  browserSuiteMissing,
  consoleBrowserSuite,
  isCall,
  sel,
  textBox,
  waitForText,
} from '../support/console-browser';
import { createActiveUser } from '../support/factories';
import { waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

/*
 * One-time codes in the admin console: logging in on the "短信验证码登录" tab and resetting a
 * forgotten password, with the codes read from the SMS webhook's sink (what the user's phone would
 * show). As in browser.e2e-spec.ts: the real service on a real port, Debian's Chromium through
 * playwright-core, the data-test selectors of web/TESTIDS.md.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

whenRunnable(`one-time codes in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const sms = new WebhookSink();
  // Filled before the suite's own beforeAll starts the service (hooks run in the order they are registered).
  const env: Record<string, string> = {};
  beforeAll(async () => {
    await sms.start();
    env.SMS_WEBHOOK_URL = sms.url;
  });
  afterAll(() => sms.stop());

  const { app, base, newPage, scenario, shot, signIn } = consoleBrowserSuite('otp', { start: { env }, checkCsp: true });

  const codeTo = async (mobile: string, nth: number): Promise<string> => {
    const text = await waitFor(() => sms.accepted.filter((m) => m.to === mobile)[nth - 1], `text ${nth} to ${mobile}`);
    return /验证码是(\d{6})/.exec(text.text)![1];
  };

  scenario('logs in with a code texted to the mobile number', 'login', async () => {
    await app().saveLoginStrategy({ otpLogin: true });
    const user = await createActiveUser(app());
    const page = await newPage('login-by-code');
    await page.goto(`${base()}/login`);
    await page.locator(sel('tab-code')).click();
    await textBox(page, 'login-code-account').fill(user.mobile);
    const sent = page.waitForResponse(isCall('/sys/otp/send'));
    await page.locator(sel('login-code-send')).click();
    expect((await (await sent).json()).data.sentTo).toBe(`${user.mobile.slice(0, 3)}****${user.mobile.slice(-4)}`);
    await waitForText(page.locator(sel('login-code-sent-to')), /\*{4}/, 'the masked number');
    // The send button counts down before it can send again.
    await waitForText(page.locator(sel('login-code-send')), /\d+ 秒后重发/, 'the countdown');
    await textBox(page, 'login-code-code').fill(await codeTo(user.mobile, 1));
    await shot(page, 'otp-login-by-code');
    const login = page.waitForResponse(isCall('/sys/login/otp'));
    await page.locator(sel('login-code-submit')).click();
    expect((await (await login).json()).success).toBe(true);
    await page.waitForURL((url) => url.pathname !== '/login');
    await waitForText(page.locator(sel('header-user')), user.username, 'the header names the user');
  });

  scenario('resets a forgotten password with a texted code, then logs in with it', 'forgot', async () => {
    await app().saveUserStrategy({ selfServiceReset: true });
    const user = await createActiveUser(app());
    const page = await newPage('forgot');
    await page.goto(`${base()}/login`);
    await page.locator(sel('login-forgot')).click();
    await page.waitForURL((url) => url.pathname === '/forgot');
    await textBox(page, 'forgot-account').fill(user.username);
    await page.locator(sel('forgot-send')).click();
    await waitForText(page.locator(sel('forgot-sent-to')), /\*{4}/, 'the masked number');
    await textBox(page, 'forgot-code').fill(await codeTo(user.mobile, 1));
    // A password the rules refuse keeps the code usable.
    await textBox(page, 'forgot-new').fill('ab1!');
    await textBox(page, 'forgot-confirm').fill('ab1!');
    await page.locator(sel('forgot-submit')).click();
    await waitForText(page.locator(sel('forgot-message')), /密码长度/, 'the rule that refused it');
    await textBox(page, 'forgot-new').fill('Renewed#77a');
    await textBox(page, 'forgot-confirm').fill('Renewed#77a');
    const reset = page.waitForResponse(isCall('/sys/password/reset'));
    await page.locator(sel('forgot-submit')).click();
    expect((await (await reset).json()).success).toBe(true);
    await page.locator(sel('forgot-done')).waitFor();
    await shot(page, 'otp-forgot-done');
    await page.locator(sel('forgot-to-login')).click();
    await signIn(page, user.username, 'Renewed#77a');
  });
});
