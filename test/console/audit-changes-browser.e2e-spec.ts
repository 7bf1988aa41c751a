import { browserSuiteMissing, clean, consoleBrowserSuite, sel, waitForText } from '../support/console-browser';
import { createUser } from '../support/factories';
import { ADMIN_PASSWORD } from '../support/test-app';

/*
 * The audit log shows what an action changed: only the fields whose value changed, each under its
 * label in the console's language (the strategy page's words for strategy fields), old → new.
 * Screenshots in test-results/audit-changes-*.png.
 */

jest.setTimeout(90_000);

// Skipped only where Chromium or web/dist is missing (browserSuiteMissing names which); .ci/run
// installs the one and builds the other, so CI runs this suite.
const missing = browserSuiteMissing();
const whenRunnable = missing ? describe.skip : describe;

whenRunnable(`audit log changes in Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const { app, base, newPage, signIn, scenario, shot } = consoleBrowserSuite('audit-changes');

  scenario('a save lists only the changed fields, by their labels, in Chinese and in English', 'labels', async () => {
    const current = (await app().admin('/sys/strategy/login/info')).body.data;
    // Two fields sent, one of them unchanged.
    await app().saveLoginStrategy({
      maxFailureTimes: current.maxFailureTimes + 2,
      sessionExpireMinutes: current.sessionExpireMinutes,
    });
    const user = await createUser(app(), { name: '张三' });
    const mobile = (await app().admin('/sys/user/list', { keyword: user.username })).body.data.rows[0].mobile;
    expect((await app().admin('/sys/user/update', { id: user.id, name: '张三丰', mobile })).body.success).toBe(true);

    const page = await newPage('admin');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto(`${base()}/system/auditlog`);
    const save = page.locator(`${sel('audit-row')}[data-action="strategy.login.save"]`).first();
    await save.waitFor();
    const fields = () =>
      save
        .locator(`${sel('audit-changes')} tbody tr`)
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-field')));
    expect(await fields()).toEqual(['maxFailureTimes']);
    const change = save.locator(`${sel('audit-changes')} tbody tr`).first();
    expect(await clean(change)).toContain('最大失败次数');
    expect(await clean(change)).not.toContain('maxFailureTimes');
    expect(await clean(change)).toContain(String(current.maxFailureTimes + 2));

    const update = page.locator(`${sel('audit-row')}[data-action="user.update"]`).first();
    const updated = await update
      .locator(`${sel('audit-changes')} tbody tr`)
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-field')));
    expect(updated).toEqual(['name']);
    expect(await clean(update.locator(sel('audit-changes')))).toContain('张三丰');
    await shot(page, 'audit-changes-zh');

    await page.locator(sel('header-lang')).click();
    await waitForText(
      save.locator(`${sel('audit-changes')} tbody tr`).first(),
      'Failures before lock',
      'the English label',
    );
    await shot(page, 'audit-changes-en');
  });
});
