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
 * 个人中心 in the admin console: reached from the user menu in the header, the user changes their
 * name at once and their mobile once the code texted to the new number is typed in (read from the
 * SMS webhook's sink: what the new phone would show), and sees their own login history and the
 * links to password, two-factor and devices. The real service on a real port, Debian's Chromium.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

whenRunnable(`own profile in the admin console, in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const sms = new WebhookSink();
  const env: Record<string, string> = {};
  beforeAll(async () => {
    await sms.start();
    env.SMS_WEBHOOK_URL = sms.url;
  });
  afterAll(() => sms.stop());

  const { app, newPage, scenario, shot, signIn } = consoleBrowserSuite('profile', { start: { env }, checkCsp: true });

  scenario('changes the name and, with the texted code, the mobile; shows the own login history', 'edit', async () => {
    const user = await createActiveUser(app());
    // A wrong password first: the history shows it to its owner.
    await app().login(user.username, 'Wrong#pass1');
    const page = await newPage('profile');
    await signIn(page, user.username, user.password);

    await page.locator(sel('header-user-menu')).click();
    await page.locator(sel('header-profile')).click();
    await page.waitForURL((url) => url.pathname === '/profile');
    await waitForText(page.locator(sel('profile-username')), user.username, 'the user name');
    await page.locator(sel('profile-log-row')).first().waitFor();
    const statuses = await page
      .locator(`${sel('profile-log-row')} [data-status]`)
      .evaluateAll((tags) => tags.map((t) => t.getAttribute('data-status')));
    expect(statuses).toContain('passwrong');
    expect(statuses).toContain('success');
    for (const link of ['profile-link-password', 'profile-link-mfa', 'profile-link-devices']) {
      await page.locator(sel(link)).waitFor();
    }

    // The name is saved at once; the new mobile waits for its code.
    const mobile = `136${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    await textBox(page, 'profile-name').fill('王小明');
    await textBox(page, 'profile-mobile').fill(mobile);
    const saved = page.waitForResponse(isCall('/sys/me/profile/update'));
    await page.locator(sel('profile-save')).click();
    expect((await (await saved).json()).data.pending).toEqual([
      { channel: 'sms', sentTo: `${mobile.slice(0, 3)}****${mobile.slice(-4)}` },
    ]);
    await waitForText(page.locator(sel('profile-pending-sms')), /\*{4}/, 'the masked new number');
    const text = await waitFor(() => sms.accepted.find((m) => m.to === mobile), `the text to ${mobile}`);
    await textBox(page, 'profile-code-sms').fill(/验证码是(\d{6})/.exec(text.text)![1]);
    await shot(page, 'profile');
    const confirmed = page.waitForResponse(isCall('/sys/me/profile/confirm'));
    await page.locator(sel('profile-confirm-sms')).click();
    expect((await (await confirmed).json()).data).toMatchObject({ name: '王小明', mobile });
    await page.locator(sel('profile-pending-sms')).waitFor({ state: 'detached' });
    expect(await textBox(page, 'profile-mobile').inputValue()).toBe(mobile);
    // The account now logs in with the new number.
    expect((await app().login(mobile, user.password)).body.code).toBe('OK');
  });

  scenario("another user's e-mail: the field says why, nothing is sent", 'taken', async () => {
    const user = await createActiveUser(app());
    const other = await createActiveUser(app());
    const page = await newPage('profile-taken');
    await signIn(page, user.username, user.password);
    await page.goto(page.url().replace(/\/[^/]*$/, '/profile'));
    await textBox(page, 'profile-email').fill(other.email);
    await page.locator(sel('profile-save')).click();
    await waitForText(page.locator('.el-form-item__error'), /已被其他用户/, 'the field refusal');
    expect(await page.locator(sel('profile-pending-email')).count()).toBe(0);
  });
});
