import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { sqliteMemory } from '../test/support/backends';
import { browserSuiteMissing, isCall, launchChromium, sel, textBox, until } from '../test/support/console-browser';
import { ADMIN_PASSWORD, listenOnLocalPort, startApp, TestApp } from '../test/support/test-app';

/**
 * `npm run docs:screenshots`: the console pages the README's tour shows, as PNGs in docs/images/.
 * Starts the service the way the browser tests do (SQLite in a temporary folder, the in-memory
 * store, the built console), with the captcha on as in production, fills it with a few users and
 * login attempts, and photographs the pages in Debian's Chromium (/usr/bin/chromium). Needs
 * web/dist (npm run build:web). Re-run it after a change to the console and commit the images.
 * Names after `--` take only those pictures (`npm run docs:screenshots -- profile dashboard`).
 */
const OUT = join(__dirname, '..', 'docs', 'images');
const VIEWPORT = { width: 1280, height: 800 };
/** The pictures asked for; none named: all of them. */
const ONLY = new Set(process.argv.slice(2));

/** A login through the API with the captcha read back from the store, as only a test can. */
async function apiToken(app: TestApp, account: string, password: string, ip = '10.20.0.5'): Promise<string | null> {
  const { imgId } = (await app.post('/sys/captcha', {}, { ip })).body.data;
  const imgCode = await app.store.get(`CAPTCHA:${imgId}`);
  const res = await app.post('/sys/login', { account, password: await app.encrypt(password), imgId, imgCode }, { ip });
  return res.body.success ? res.body.data.accessToken : null;
}

async function seed(app: TestApp): Promise<void> {
  const admin = (await apiToken(app, 'admin', ADMIN_PASSWORD))!;
  const call = async (path: string, body: unknown) => {
    const res = await app.post(path, body, { token: admin, ip: '10.20.0.5' });
    if (!res.body.success) throw new Error(`${path}: ${res.body.code} ${res.body.message}`);
    return res.body.data;
  };
  await call('/sys/role/save', {
    code: 'auditor',
    name: '审计员',
    permissions: ['sys:loginLog:list', 'sys:auditLog:list'],
  });
  const people = [
    ['zhangwei', '张伟', '13800138001', ['auditor']],
    ['lina', '李娜', '13800138002', []],
    ['wangfang', '王芳', '13800138003', []],
    ['liuyang', '刘洋', '13800138004', []],
  ] as const;
  for (const [username, name, mobile, roles] of people) {
    await call('/sys/user/create', {
      username,
      name,
      mobile,
      email: `${username}@example.com`,
      password: await app.encrypt('Initial#1a'),
      roles: [...roles],
    });
  }
  // A first login with its forced change, a few wrong passwords, and an account locked by them.
  const first = await apiToken(app, 'lina', 'Initial#1a', '10.20.3.14');
  await app.post(
    '/sys/me/pass/update',
    { oldPass: await app.encrypt('Initial#1a'), newPass: await app.encrypt('Changed#2b') },
    { token: first!, ip: '10.20.3.14' },
  );
  await apiToken(app, 'lina', 'Changed#2b', '10.20.3.14');
  for (let i = 0; i < 5; i += 1) await apiToken(app, 'liuyang', 'Wrong#pass1', '203.0.113.7');
  await apiToken(app, 'wangfang', 'Wrong#pass1', '10.20.7.31');
  await apiToken(app, 'nobody', 'Wrong#pass1', '198.51.100.23');
}

async function settle(page: Page, name: string): Promise<void> {
  if (ONLY.size && !ONLY.has(name)) return;
  await until(
    async () => (await page.locator('.el-button.is-loading, .el-loading-mask').filter({ visible: true }).count()) === 0,
    `${name}: loading to finish`,
    10_000,
  );
  await page.screenshot({ path: join(OUT, `${name}.png`), animations: 'disabled' });
  console.log(`docs/images/${name}.png`);
}

async function main(): Promise<void> {
  const missing = browserSuiteMissing();
  if (missing) throw new Error(`cannot take the screenshots: ${missing}`);
  mkdirSync(OUT, { recursive: true });
  const app = await startApp(sqliteMemory, { env: { CAPTCHA_ENABLED: 'true', DISPLAY_TIMEZONE: 'Asia/Shanghai' } });
  const browser = await launchChromium();
  try {
    const base = await listenOnLocalPort(app);
    await seed(app);
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'zh-CN', timezoneId: 'Asia/Shanghai' });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();

    const captcha = page.waitForResponse(isCall('/sys/captcha'));
    await page.goto(`${base}/login`);
    const { imgId } = (await (await captcha).json()).data;
    await page.locator(sel('login-captcha-img')).waitFor();
    await textBox(page, 'login-account').fill('admin');
    await textBox(page, 'login-password').fill(ADMIN_PASSWORD);
    await settle(page, 'login');
    await textBox(page, 'login-captcha').fill((await app.store.get(`CAPTCHA:${imgId}`))!);
    await page.locator(sel('login-submit')).click();
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.locator(sel('header-user')).waitFor();

    for (const [path, name, ready] of [
      ['/dashboard', 'dashboard', '[data-test="dash-users"]'],
      ['/system/users', 'users', '[data-test="user-state"]'],
      ['/system/strategy', 'strategy', 'form'],
      ['/system/loginlog', 'login-log', '[data-test="log-search"]'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.locator(ready).first().waitFor();
      // The dashboard's charts grow in on a canvas, which the screenshot's animations: 'disabled' cannot stop.
      if (name === 'dashboard') await page.waitForTimeout(2_000);
      await settle(page, name);
    }

    await page.goto(`${base}/system/users`);
    await page.locator(sel('users-import')).click();
    await page.locator(sel('users-import-template')).waitFor();
    await settle(page, 'users-import');

    await page.goto(`${base}/profile`);
    await page.locator(sel('profile-log-row')).first().waitFor();
    await settle(page, 'profile');

    await page.goto(`${base}/me/mfa`);
    await page.locator(sel('mfa-setup')).click();
    await page.locator(sel('mfa-secret')).waitFor();
    await settle(page, 'mfa-enrolment');
  } finally {
    await browser.close();
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
