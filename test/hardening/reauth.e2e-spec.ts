import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS } from '../support/backends';
import { ACCOUNT_LOCKED, BAD_CREDENTIALS, failure, NOT_LOGGED_IN } from '../support/envelopes';
import { createActiveUser, TestUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

const WRONG = 'Wrong#pass1';
const MINUTE = 60_000;
const REAUTH_REQUIRED = failure('REAUTH_REQUIRED', '请先验证身份');
const MFA_CODE_INVALID = failure('MFA_CODE_INVALID', '动态验证码错误');

/**
 * Fresh proof for the second factor (step-up): a stolen token (or one a QR code made)
 * cannot enrol its own authenticator and shut the owner out until it proves the password (or a code)
 * at /sys/me/reauth; with reauthForAdmin, administrative changes ask the same.
 */
describe.each(BACKENDS)('fresh proof, step-up on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    await app.saveLoginStrategy({
      maxFailureTimes: 3,
      maxFailureInterval: 24,
      lockMinutes: 10,
      multiOnline: true,
      mfaMode: 0,
    });
    await app.saveUserStrategy({ passwordExpireDays: 0, forceUpdatePassword: false });
  });
  afterEach(async () => {
    // The cached admin token may be past its proof when reauthForAdmin is on (a new login would be
    // a temporary one while mfaMode is 2): it proves the password again first.
    const admin = await app.adminToken();
    await app.post('/sys/me/reauth', { password: await app.encrypt(ADMIN_PASSWORD) }, { token: admin, ip: '10.9.9.9' });
    await app.saveLoginStrategy({ reauthForAdmin: false, reauthMinutes: 5, mfaMode: 0 });
  });

  const codeAt = (secret: string) => totpCode(secret, stepAt(app.clock.nowMs()));
  const nextStep = () => app.clock.advance(30_000);
  const setup = (token: string, headers?: Record<string, string>) =>
    app.post('/sys/me/mfa/setup', {}, { token, headers });
  const reauthPassword = async (token: string, password: string) =>
    app.post('/sys/me/reauth', { password: await app.encrypt(password) }, { token });
  const reauthCode = (token: string, code: string) => app.post('/sys/me/reauth', { code }, { token });
  const locked = async (user: TestUser) => !!Number((await app.userRow(user.id)).locked);
  const rowsOf = async (user: TestUser) =>
    app.db.query('SELECT login_type, status FROM sys_login_log WHERE user_id = ? ORDER BY id', [user.id]);

  /** A token made by a QR code that a password login of the user generated. */
  async function qrToken(user: TestUser): Promise<string> {
    const token = await app.token(user.username, user.password);
    const gen = await app.post('/auth/qrcode/generate', {}, { token });
    const verified = await app.post('/auth/qrcode/verify', { code: gen.body.data.code }, { ip: '10.77.0.9' });
    expect(verified.body.code).toBe('OK');
    return verified.body.data.accessToken;
  }

  /** Enrols TOTP with a fresh password login; returns the secret. */
  async function enrol(user: TestUser): Promise<string> {
    const token = await app.token(user.username, user.password);
    const { secret } = (await setup(token)).body.data;
    expect((await app.post('/sys/me/mfa/enable', { code: codeAt(secret) }, { token })).body.code).toBe('OK');
    await app.post('/sys/logout', {}, { token });
    nextStep();
    return secret;
  }

  it('a QR-login token cannot enrol TOTP until it proves the password at /sys/me/reauth', async () => {
    const user = await createActiveUser(app);
    const token = await qrToken(user);

    const refused = await setup(token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(REAUTH_REQUIRED);
    expect((await setup(token, { 'accept-language': 'en' })).body).toEqual(
      failure('REAUTH_REQUIRED', 'Please verify your identity first'),
    );
    expect((await app.post('/sys/me/mfa/enable', { code: '123456' }, { token })).body).toEqual(REAUTH_REQUIRED);
    // Nothing else of the session is refused.
    expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('OK');

    const proven = await reauthPassword(token, user.password);
    expect(proven.body).toEqual({
      success: true,
      code: 'OK',
      message: '操作成功',
      data: { reauthUntil: app.clock.nowMs() + 5 * MINUTE },
    });

    const started = await setup(token);
    expect(started.body.code).toBe('OK');
    const enabled = await app.post('/sys/me/mfa/enable', { code: codeAt(started.body.data.secret) }, { token });
    expect(enabled.body.code).toBe('OK');
    expect(enabled.body.data.recoveryCodes).toHaveLength(10);
  });

  it('a password login is a fresh proof for reauthMinutes, kept across renewal; then /sys/me/reauth renews it', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    expect((await setup(token)).body.code).toBe('OK');
    app.clock.advance(5 * MINUTE + 1_000);
    expect((await setup(token)).body).toEqual(REAUTH_REQUIRED);
    expect((await reauthPassword(token, user.password)).body.code).toBe('OK');
    expect((await setup(token)).body.code).toBe('OK');

    // A longer window, and a session renewed inside it keeps its proof.
    await app.saveLoginStrategy({ reauthMinutes: 20 });
    const second = await app.token(user.username, user.password);
    app.clock.advance(16 * MINUTE);
    const before = (await app.sessionOf(second)).expireAt;
    expect((await app.post('/sys/me/info', {}, { token: second })).body.code).toBe('OK');
    expect((await app.sessionOf(second)).expireAt).toBeGreaterThan(before);
    expect((await setup(second)).body.code).toBe('OK');
    app.clock.advance(5 * MINUTE);
    expect((await setup(second)).body).toEqual(REAUTH_REQUIRED);
  });

  it('disable and new recovery codes ask a fresh proof too; a right code at /sys/me/reauth is one', async () => {
    const user = await createActiveUser(app);
    const secret = await enrol(user);
    const token = await qrToken(user);
    expect((await app.post('/sys/me/mfa/disable', { code: codeAt(secret) }, { token })).body).toEqual(REAUTH_REQUIRED);
    expect((await app.post('/sys/me/mfa/recoveryCodes', { code: codeAt(secret) }, { token })).body).toEqual(
      REAUTH_REQUIRED,
    );
    expect((await app.post('/sys/me/info', {}, { token })).body.data.mfaEnabled).toBe(true);

    const proven = await reauthCode(token, codeAt(secret));
    expect(proven.body).toMatchObject({ code: 'OK', data: { reauthUntil: app.clock.nowMs() + 5 * MINUTE } });
    nextStep();
    expect((await app.post('/sys/me/mfa/disable', { code: codeAt(secret) }, { token })).body.code).toBe('OK');
    expect((await app.post('/sys/me/info', {}, { token })).body.data.mfaEnabled).toBe(false);
  });

  it('a login with a second step is a fresh proof at the second step', async () => {
    const user = await createActiveUser(app);
    const secret = await enrol(user);
    await app.saveLoginStrategy({ mfaMode: 1 });
    const first = await app.login(user.username, user.password);
    const mfaToken = (first.body.data as any).mfaToken as string;
    app.clock.advance(4 * MINUTE);
    const done = await app.post('/sys/login/mfa', { mfaToken, code: codeAt(secret) });
    expect(done.body.code).toBe('OK');
    const token = done.body.data.accessToken;
    app.clock.advance(4 * MINUTE);
    expect((await app.post('/sys/me/mfa/recoveryCodes', { code: codeAt(secret) }, { token })).body.code).toBe('OK');
  });

  it('wrong passwords at /sys/me/reauth are logged reauth/passwrong and counted; the locking one ends the session', async () => {
    const user = await createActiveUser(app);
    const other = await app.token(user.username, user.password);
    const token = await qrToken(user);
    expect((await reauthPassword(token, WRONG)).body).toEqual(BAD_CREDENTIALS);
    expect((await reauthPassword(token, WRONG)).status).toBe(401);
    expect(await locked(user)).toBe(false);
    expect((await reauthPassword(token, WRONG)).body).toEqual(BAD_CREDENTIALS);
    expect(await locked(user)).toBe(true);
    expect((await app.post('/sys/me/info', {}, { token })).body).toEqual(NOT_LOGGED_IN);
    // An automatic lock keeps the other sessions; their proof is refused while locked.
    app.clock.advance(6 * MINUTE);
    const whileLocked = await reauthPassword(other, user.password);
    expect(whileLocked.status).toBe(423);
    expect(whileLocked.body).toEqual(ACCOUNT_LOCKED);
    expect((await setup(other)).body).toEqual(REAUTH_REQUIRED);
    const rows = (await rowsOf(user)).filter((r: any) => r.login_type === 'reauth');
    expect(rows.map((r: any) => r.status)).toEqual(['passwrong', 'passwrong', 'passwrong', 'locked']);
    // The administrator sees them in the login log under their own type.
    const listed = await app.admin('/sys/loginLog/list', {
      pageNum: 1,
      pageSize: 50,
      account: user.username,
      loginType: 'reauth',
    });
    expect(listed.body.data.total).toBe(4);
  });

  it('wrong codes at /sys/me/reauth are logged reauth/mfawrong and counted with wrong passwords', async () => {
    const user = await createActiveUser(app);
    await enrol(user);
    const token = await qrToken(user);
    expect((await reauthPassword(token, WRONG)).body).toEqual(BAD_CREDENTIALS);
    const wrongCode = await reauthCode(token, '000000');
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.body).toEqual(MFA_CODE_INVALID);
    expect((await reauthCode(token, 'aaaa-bbbb')).body).toEqual(MFA_CODE_INVALID);
    expect(await locked(user)).toBe(true);
    expect((await app.post('/sys/me/info', {}, { token })).body).toEqual(NOT_LOGGED_IN);
    const rows = (await rowsOf(user)).filter((r: any) => r.login_type === 'reauth');
    expect(rows.map((r: any) => r.status)).toEqual(['passwrong', 'mfawrong', 'mfawrong']);
  });

  it('bad input at /sys/me/reauth gets the envelope, and a code without TOTP proves nothing', async () => {
    const user = await createActiveUser(app);
    const token = await qrToken(user);
    expect((await app.post('/sys/me/reauth', {})).body).toEqual(NOT_LOGGED_IN);
    const none = await app.post('/sys/me/reauth', {}, { token });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('VALIDATION_FAILED');
    // The Chinese answer says what to give in words, not in the body's English keys.
    expect(none.body.message).toContain('请给出密码或验证码其中之一');
    const both = await app.post(
      '/sys/me/reauth',
      { password: await app.encrypt(user.password), code: '123456' },
      { token },
    );
    expect(both.body.code).toBe('VALIDATION_FAILED');
    const plain = await app.post('/sys/me/reauth', { password: user.password }, { token });
    expect(plain.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('password') });
    expect((await app.post('/sys/me/reauth', { code: 'nope' }, { token })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.post('/sys/me/reauth', { password: 42 }, { token })).body.code).toBe('VALIDATION_FAILED');
    expect((await reauthCode(token, '123456')).body).toEqual(MFA_CODE_INVALID);
    expect(await rowsOf(user)).not.toContainEqual(expect.objectContaining({ login_type: 'reauth' }));
    expect((await setup(token)).body).toEqual(REAUTH_REQUIRED);
  });

  it('the enrolment token of mfaMode 2 needs no further proof', async () => {
    const user = await createActiveUser(app);
    await app.saveLoginStrategy({ mfaMode: 2, reauthMinutes: 1, tempSessionExpireMinutes: 10 });
    const login = await app.login(user.username, user.password);
    expect(login.body.data).toMatchObject({ tempUser: true, mfaSetupRequired: true });
    const token = login.body.data!.accessToken;
    app.clock.advance(3 * MINUTE);
    const started = await setup(token);
    expect(started.body.code).toBe('OK');
    expect(
      (await app.post('/sys/me/mfa/enable', { code: codeAt(started.body.data.secret) }, { token })).body.code,
    ).toBe('OK');
  });

  it('reauthForAdmin: changes need a fresh proof, lists and reads do not', async () => {
    const user = await createActiveUser(app);
    const admin = await app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
    const as = (path: string, body: object = {}) => app.post(path, body, { token: admin, ip: '10.9.9.9' });
    app.clock.advance(6 * MINUTE);
    // Off (the default): an old session changes things as before.
    expect((await as('/sys/user/lock', { id: user.id })).body.code).toBe('OK');
    expect((await as('/sys/user/unlock', { id: user.id })).body.code).toBe('OK');

    expect((await as('/sys/strategy/login/save', { reauthForAdmin: true })).body.code).toBe('OK');
    expect((await as('/sys/user/lock', { id: user.id })).body).toEqual(REAUTH_REQUIRED);
    expect(await locked(user)).toBe(false);
    expect((await as('/sys/loginLog/export', {})).body).toEqual(REAUTH_REQUIRED);
    expect((await as('/sys/strategy/login/save', { reauthForAdmin: false })).body).toEqual(REAUTH_REQUIRED);
    expect((await as('/sys/user/list', { pageNum: 1, pageSize: 10 })).body.code).toBe('OK');
    expect((await as('/sys/strategy/login/info', {})).body.data).toMatchObject({
      reauthForAdmin: true,
      reauthMinutes: 5,
    });
    // A caller without the permission learns FORBIDDEN, not that a proof would help.
    const plainUser = await app.token(user.username, user.password);
    app.clock.advance(6 * MINUTE);
    expect((await app.post('/sys/user/lock', { id: user.id }, { token: plainUser })).body.code).toBe('FORBIDDEN');

    expect(
      (
        await app.post(
          '/sys/me/reauth',
          { password: await app.encrypt(ADMIN_PASSWORD) },
          { token: admin, ip: '10.9.9.9' },
        )
      ).body.code,
    ).toBe('OK');
    expect((await as('/sys/user/lock', { id: user.id })).body.code).toBe('OK');
    expect(await locked(user)).toBe(true);
  });

  it('reauthMinutes and reauthForAdmin are validated like the other fields; a bad one saves nothing', async () => {
    const info = async () => (await app.admin('/sys/strategy/login/info')).body.data;
    expect(await info()).toMatchObject({ reauthMinutes: 5, reauthForAdmin: false });
    // The message names the field by its label (src/common/texts.ts), the errors by its name.
    const label = { reauthMinutes: '身份验证有效期', reauthForAdmin: '管理操作须验证身份' };
    for (const [field, value] of [
      ['reauthMinutes', 0],
      ['reauthMinutes', 61],
      ['reauthMinutes', 1.5],
      ['reauthMinutes', 'x'],
      ['reauthForAdmin', 'maybe'],
    ] as const) {
      const res = await app.admin('/sys/strategy/login/save', { sessionExpireMinutes: 45, [field]: value });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining(label[field]),
        data: namesFields(field),
      });
    }
    expect(await info()).toMatchObject({ sessionExpireMinutes: 30, reauthMinutes: 5, reauthForAdmin: false });
    expect((await app.admin('/sys/strategy/login/save', { reauthMinutes: 60, reauthForAdmin: true })).body.code).toBe(
      'OK',
    );
    expect(await info()).toMatchObject({ reauthMinutes: 60, reauthForAdmin: true });
  });
});
