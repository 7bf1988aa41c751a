import { loadImage } from '@napi-rs/canvas';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { UnusualIpEvent } from '../../src/auth/login/login.events';
import { LoginFailedEvent } from '../../src/user-account/account.events';
import { BACKENDS } from '../support/backends';
import { BAD_CREDENTIALS, CAPTCHA_INVALID } from '../support/envelopes';
import { createActiveUser, createUser } from '../support/factories';
import { sqlDuring } from '../support/sql-trace';
import { startApp, TestApp } from '../support/test-app';

/** A statement as `VERB table`, the first table it names, without either database's quotes. */
const shapeOf = (sql: string) =>
  `${sql.trimStart().split(/\s/)[0].toUpperCase()} ${/(?:FROM|INTO|UPDATE)\s+[`"]?(\w+)/i.exec(sql)?.[1]}`;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.each(BACKENDS)('login pipeline on $name', (backend) => {
  let app: TestApp;
  const failed: LoginFailedEvent[] = [];
  const unusual: UnusualIpEvent[] = [];

  beforeAll(async () => {
    app = await startApp(backend);
    const events = app.app.get(EventEmitter2);
    events.on(LoginFailedEvent.NAME, (e: LoginFailedEvent) => failed.push(e));
    events.on(UnusualIpEvent.NAME, (e: UnusualIpEvent) => unusual.push(e));
  });
  afterAll(() => app.close());

  it('a password login with the default policy runs these statements and no more: each one costs every login', async () => {
    const user = await createActiveUser(app);
    await app.token(user.username, user.password);
    const sql = await sqlDuring(app.db, () => app.token(user.username, user.password));
    expect(sql.map(shapeOf)).toEqual([
      'SELECT sys_user_identifier',
      // The proof reads the row, and the tail reads it again once the proof is in (a change meanwhile counts).
      'SELECT sys_user',
      'SELECT sys_user',
      // Whether TOTP is on, for the session's profile; with the second factor off nothing else about it.
      'SELECT sys_user_mfa',
      'SELECT sys_role',
      'UPDATE sys_user',
      // The last successful IPs, for the unusual-IP notice; then the attempt's own row.
      'SELECT sys_login_log',
      'INSERT sys_login_log',
    ]);
  });

  it('logs a known user in with a token that opens protected operations, and logs the attempt', async () => {
    const user = await createActiveUser(app);
    const res = await app.login(user.username, user.password, { ip: '10.1.1.1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, code: 'OK', message: '操作成功' });
    expect(res.body.data).toEqual({
      accessToken: expect.any(String),
      tempUser: false,
      forceUpdatePassword: false,
      tip: expect.any(String),
      mfaRequired: false,
      mfaToken: null,
      mfaSetupRequired: false,
    });
    expect(res.body.data!.accessToken.length).toBeGreaterThanOrEqual(43);
    const me = await app.post('/sys/me/info', {}, { token: res.body.data!.accessToken });
    expect(me.body.data).toMatchObject({ id: user.id, username: user.username, tempUser: false });
    const logs = await app.logRows(user.username);
    expect(logs.at(-1)).toMatchObject({
      status: 'success',
      login_type: 'account',
      ip: '10.1.1.1',
      user_id: user.id,
      browser: expect.stringContaining('Chrome'),
      os: expect.stringContaining('Windows'),
    });
  });

  it('finds the account by mobile number and by e-mail, logging the field that matched', async () => {
    const user = await createActiveUser(app);
    expect((await app.login(user.mobile, user.password)).body.success).toBe(true);
    expect((await app.login(user.email, user.password)).body.success).toBe(true);
    const types = (
      await app.db.query('SELECT login_type FROM sys_login_log WHERE user_id = ? AND status = ? ORDER BY id', [
        user.id,
        'success',
      ])
    ).map((r: any) => r.login_type);
    expect(types.slice(-2)).toEqual(['mobile', 'email']);
  });

  it('step 2: an unknown account gets the same message as a wrong password, and is logged without a user id', async () => {
    const user = await createActiveUser(app);
    const unknown = await app.login('nobody_here', 'Whatever#1');
    const wrong = await app.login(user.username, 'Wrong#pass1');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(BAD_CREDENTIALS);
    expect(wrong.body).toEqual(unknown.body);
    const [row] = await app.logRows('nobody_here');
    expect(row).toMatchObject({ status: 'passwrong', user_id: null });
  });

  it('step 3: a wrong password is logged as passwrong and emits the abnormal-login event with account, IP and time', async () => {
    const user = await createActiveUser(app);
    failed.length = 0;
    const before = app.clock.now();
    await app.login(user.username, 'Wrong#pass1', { ip: '10.3.3.3' });
    const logs = await app.logRows(user.username);
    expect(logs.at(-1)).toMatchObject({ status: 'passwrong', failure_reason: '用户名或密码错误' });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ userId: user.id, account: user.username, ip: '10.3.3.3', time: before });
    expect(failed[0].hint.zh).toContain('异常登录');
  });

  it('step 5: a disabled account with the right password is refused; with a wrong one it still answers BAD_CREDENTIALS', async () => {
    const user = await createActiveUser(app);
    await app.admin('/sys/user/disable', { id: user.id });
    const right = await app.login(user.username, user.password);
    expect(right.status).toBe(403);
    expect(right.body).toMatchObject({ code: 'ACCOUNT_DISABLED', message: '用户已被禁用' });
    const wrongPassword = await app.login(user.username, 'Wrong#pass1');
    expect(wrongPassword.body.code).toBe('BAD_CREDENTIALS');
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body).toEqual(BAD_CREDENTIALS);
    expect((await app.logRows(user.username)).map((r) => r.status).slice(-2)).toEqual(['disabled', 'passwrong']);
    await app.admin('/sys/user/enable', { id: user.id });
    expect((await app.login(user.username, user.password)).body.success).toBe(true);
  });

  it('step 7: an initial password gives a normal login with a tip when forceUpdatePassword is off', async () => {
    const user = await createUser(app);
    const res = await app.login(user.username, user.password);
    expect(res.body.data).toMatchObject({
      tempUser: false,
      forceUpdatePassword: false,
      tip: '您的密码为初始密码,请尽快修改密码',
    });
  });

  it('step 10: a login from none of the latest 3 successful IPs emits the unusual-IP event; a known IP does not', async () => {
    const user = await createActiveUser(app);
    for (const ip of ['10.5.0.1', '10.5.0.2', '10.5.0.3']) await app.token(user.username, user.password, { ip });
    unusual.length = 0;
    await app.token(user.username, user.password, { ip: '10.5.0.2' });
    expect(unusual).toHaveLength(0);
    const at = app.clock.now();
    await app.token(user.username, user.password, { ip: '172.16.0.9' });
    expect(unusual).toHaveLength(1);
    expect(unusual[0]).toMatchObject({ userId: user.id, account: user.username, ip: '172.16.0.9' });
    // Login account, login IP, login time and the uncommon-IP hint.
    expect(unusual[0].time).toEqual(at);
    expect(unusual[0].hint.zh).toContain('不常用');
  });

  it('step 10: only the latest 3 successful logins count — an IP 4 logins back is unusual, and a failed login from an IP does not make it known', async () => {
    const user = await createActiveUser(app);
    for (const ip of ['10.5.1.1', '10.5.1.2', '10.5.1.3', '10.5.1.4'])
      await app.token(user.username, user.password, { ip });
    // A wrong password from 10.5.1.9 is not a successful login.
    expect((await app.login(user.username, 'Wrong#pass1', { ip: '10.5.1.9' })).body.code).toBe('BAD_CREDENTIALS');
    unusual.length = 0;
    // 10.5.1.1 is the 4th most recent successful IP: outside the latest 3.
    await app.token(user.username, user.password, { ip: '10.5.1.1' });
    expect(unusual).toHaveLength(1);
    expect(unusual[0]).toMatchObject({ userId: user.id, ip: '10.5.1.1' });
    unusual.length = 0;
    await app.token(user.username, user.password, { ip: '10.5.1.9' });
    expect(unusual).toHaveLength(1);
    expect(unusual[0]).toMatchObject({ userId: user.id, ip: '10.5.1.9' });
  });

  it('step 10: fewer than 3 earlier successful logins never count as unusual', async () => {
    const user = await createUser(app);
    unusual.length = 0;
    await app.token(user.username, user.password, { ip: '10.6.0.1' });
    await app.token(user.username, user.password, { ip: '10.6.0.2' });
    await app.token(user.username, user.password, { ip: '10.6.0.3' });
    expect(unusual).toHaveLength(0);
  });

  it('step 1: with the captcha enabled a login needs the right, fresh captcha, and a captcha works once', async () => {
    const captchaApp = await startApp(backend, { env: { CAPTCHA_ENABLED: 'true' } });
    try {
      const password = await captchaApp.encrypt('Admin@12345');
      const missing = await captchaApp.post('/sys/login', { account: 'admin', password });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'CAPTCHA_INVALID', message: '验证码错误或已失效' });
      const captcha = (await captchaApp.post('/sys/captcha')).body.data;
      expect(captcha).toMatchObject({
        enabled: true,
        imgId: expect.any(String),
        img: expect.stringMatching(/^data:image\/png;base64,/),
      });
      const text = await captchaApp.store.get(`CAPTCHA:${captcha.imgId}`);
      expect(await captchaApp.store.ttl(`CAPTCHA:${captcha.imgId}`)).toBeGreaterThan(170_000);
      // Cached for 3 minutes.
      expect(await captchaApp.store.ttl(`CAPTCHA:${captcha.imgId}`)).toBeLessThanOrEqual(180_000);
      const wrong = await captchaApp.post('/sys/login', {
        account: 'admin',
        password,
        imgId: captcha.imgId,
        imgCode: 'zzzz',
      });
      expect(wrong.body.code).toBe('CAPTCHA_INVALID');
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual(CAPTCHA_INVALID);
      // The wrong guess consumed it: the right text no longer works either.
      const reused = await captchaApp.post('/sys/login', {
        account: 'admin',
        password,
        imgId: captcha.imgId,
        imgCode: text,
      });
      expect(reused.body.code).toBe('CAPTCHA_INVALID');
      expect(reused.body).toEqual(CAPTCHA_INVALID);
      const fresh = (await captchaApp.post('/sys/captcha')).body.data;
      const freshText = await captchaApp.store.get(`CAPTCHA:${fresh.imgId}`);
      const ok = await captchaApp.post('/sys/login', {
        account: 'admin',
        password,
        imgId: fresh.imgId,
        imgCode: freshText!.toUpperCase(),
      });
      expect(ok.body.success).toBe(true);
      // Used once: the same captcha does not open a second login.
      const again = await captchaApp.post('/sys/login', {
        account: 'admin',
        password,
        imgId: fresh.imgId,
        imgCode: freshText,
      });
      expect(again.body).toEqual(CAPTCHA_INVALID);
    } finally {
      await captchaApp.close();
    }
  });

  it('/sys/captcha serves a 120x40 PNG data URL with no SVG structure and no text in its bytes', async () => {
    const captchaApp = await startApp(backend, { env: { CAPTCHA_ENABLED: 'true' } });
    try {
      const images: Buffer[] = [];
      for (let i = 0; i < 2; i++) {
        const { imgId, img } = (await captchaApp.post('/sys/captcha')).body.data;
        expect(img).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
        const png = Buffer.from(img.slice('data:image/png;base64,'.length), 'base64');
        expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
        const decoded = await loadImage(png);
        expect({ width: decoded.width, height: decoded.height }).toEqual({ width: 120, height: 40 });
        // The old SVG captcha drew each glyph as one <path> that named its character.
        const bytes = png.toString('latin1');
        for (const structure of ['<svg', '<path', '<text', 'xmlns']) expect(bytes).not.toContain(structure);
        const text = (await captchaApp.store.get(`CAPTCHA:${imgId}`))!;
        expect(text).toMatch(/^[A-Za-z2-9]{4}$/);
        expect(bytes).not.toContain(text);
        images.push(png);
      }
      expect(images[0].equals(images[1])).toBe(false);
    } finally {
      await captchaApp.close();
    }
  });

  it('answers in English with Accept-Language: en', async () => {
    const res = await app.login('nobody_en', 'Whatever#1', { headers: { 'accept-language': 'en-US,en;q=0.9' } });
    expect(res.body.message).toBe('Wrong user name or password');
  });
});
