import { randomBytes } from 'node:crypto';

import { ConfigError, loadConfig } from '../../src/config/app-config';
import { decryptSecret } from '../../src/mfa/mfa-crypto';
import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS, sqliteMemory } from '../support/backends';
import { createActiveUser, createRole, createUser, TestUser } from '../support/factories';
import { ADMIN_PASSWORD, epochMs, startApp, TestApp } from '../support/test-app';

/** The TOTP second factor, on SQLite + memory and MariaDB + Redis, with a fake clock. */
describe.each(BACKENDS)('second factor on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());
  afterEach(async () => {
    await app.saveLoginStrategy({ mfaMode: 0, maxFailureTimes: 5 });
  });

  const nowStep = () => stepAt(app.clock.nowMs());
  const codeAt = (secret: string, offset = 0) => totpCode(secret, nowStep() + offset);
  /** Moves the clock to the next step, so that a fresh code is not a replay of the last one. */
  const nextStep = () => app.clock.advance(30_000);

  async function enrol(user: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
    const token = await app.token(user.username, user.password);
    const setup = await app.post('/sys/me/mfa/setup', {}, { token });
    expect(setup.body).toMatchObject({ code: 'OK', data: { secret: expect.stringMatching(/^[A-Z2-7]{32}$/) } });
    const { secret, otpauthUrl } = setup.body.data;
    expect(otpauthUrl).toMatch(new RegExp(`^otpauth://totp/.*\\?.*secret=${secret}`));
    const enabled = await app.post('/sys/me/mfa/enable', { code: codeAt(secret) }, { token });
    expect(enabled.body.code).toBe('OK');
    expect(enabled.body.data.recoveryCodes).toHaveLength(10);
    for (const c of enabled.body.data.recoveryCodes) expect(c).toMatch(/^[a-z0-9]{4}-[a-z0-9]{4}$/);
    // The session's profile says so at once, without a new login.
    expect((await app.post('/sys/me/info', {}, { token })).body.data.mfaEnabled).toBe(true);
    await app.post('/sys/logout', {}, { token });
    nextStep();
    return { secret, recoveryCodes: enabled.body.data.recoveryCodes };
  }

  async function firstStep(user: TestUser) {
    const res = await app.login(user.username, user.password);
    expect(res.body).toMatchObject({
      code: 'OK',
      data: {
        accessToken: null,
        mfaRequired: true,
        mfaToken: expect.any(String),
        mfaSetupRequired: false,
        tempUser: false,
      },
    });
    return (res.body.data as any).mfaToken as string;
  }

  const second = (mfaToken: string, code: string, ip = '10.0.0.1') =>
    app.post('/sys/login/mfa', { mfaToken, code }, { ip });

  it('mode 1: enrol, then a login needs a code; the session works and the log keeps the first login type', async () => {
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    // Mode 0: enrolled users are not asked.
    const plain = await app.login(user.username, user.password);
    expect(plain.body.data).toMatchObject({ mfaRequired: false, mfaToken: null, mfaSetupRequired: false });
    expect(plain.body.data!.accessToken).toEqual(expect.any(String));
    const lastLogin = async () => epochMs((await app.userRow(user.id)).last_login_time);
    const plainAt = app.clock.nowMs();
    expect(await lastLogin()).toBe(plainAt);
    nextStep();

    await app.saveLoginStrategy({ mfaMode: 1 });
    const mfaToken = await firstStep(user);
    // A login held for its second factor is not a successful login yet.
    expect(await lastLogin()).toBe(plainAt);
    const done = await second(mfaToken, codeAt(secret), '10.0.0.2');
    expect(done.body).toMatchObject({ code: 'OK', data: { mfaRequired: false, mfaToken: null, tempUser: false } });
    expect(await lastLogin()).toBe(app.clock.nowMs());
    const info = await app.post('/sys/me/info', {}, { token: done.body.data.accessToken });
    expect(info.body.data).toMatchObject({ username: user.username, mfaEnabled: true });
    const rows = await app.logRows(user.username);
    expect(rows[rows.length - 1]).toMatchObject({ status: 'success', login_type: 'account', ip: '10.0.0.2' });
    // The token is consumed.
    nextStep();
    expect((await second(mfaToken, codeAt(secret))).body.code).toBe('MFA_TOKEN_INVALID');
  });

  it('a code is accepted once; drift ±1 step accepted, ±2 refused', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const code = codeAt(secret);
    expect((await second(await firstStep(user), code)).body.code).toBe('OK');
    const replay = await second(await firstStep(user), code);
    expect(replay.body.code).toBe('MFA_CODE_INVALID');
    expect(replay.status).toBe(401);

    nextStep();
    nextStep();
    expect((await second(await firstStep(user), codeAt(secret, -2))).body.code).toBe('MFA_CODE_INVALID');
    expect((await second(await firstStep(user), codeAt(secret, +2))).body.code).toBe('MFA_CODE_INVALID');
    expect((await second(await firstStep(user), codeAt(secret, -1))).body.code).toBe('OK');
    expect((await second(await firstStep(user), codeAt(secret, +1))).body.code).toBe('OK');
    // The step after +1 was used: the current and the previous are now replays too.
    expect((await second(await firstStep(user), codeAt(secret, 0))).body.code).toBe('MFA_CODE_INVALID');
  });

  describe('a replayed right code is not a guess', () => {
    const mfawrongRows = async (user: TestUser) =>
      (await app.logRows(user.username)).filter((r) => r.status === 'mfawrong').length;

    it('at /sys/login/mfa: the same right code from a second tab answers MFA_CODE_INVALID, is not logged mfawrong and never locks', async () => {
      await app.saveLoginStrategy({ mfaMode: 1, maxFailureTimes: 2 });
      const user = await createActiveUser(app);
      const { secret } = await enrol(user);
      const code = codeAt(secret);
      expect((await second(await firstStep(user), code)).body.code).toBe('OK');
      // The other tab: the same code, more often than would lock the account were it a guess.
      const otherTab = await firstStep(user);
      for (let i = 0; i < 3; i++) {
        const replay = await second(otherTab, code);
        expect(replay.status).toBe(401);
        expect(replay.body).toEqual({
          success: false,
          code: 'MFA_CODE_INVALID',
          message: '动态验证码错误',
          data: null,
        });
      }
      // A code of the step before, still inside its validity, was overtaken by the accepted one: a replay too.
      expect((await second(otherTab, codeAt(secret, -1))).body.code).toBe('MFA_CODE_INVALID');
      expect(await mfawrongRows(user)).toBe(0);
      expect((await app.userRow(user.id)).locked).toBeFalsy();
      // The mfaToken survived; the next step's code finishes the login.
      nextStep();
      expect((await second(otherTab, codeAt(secret))).body.code).toBe('OK');
    });

    it('outside its validity the old code is a wrong code again, counted', async () => {
      await app.saveLoginStrategy({ mfaMode: 1, maxFailureTimes: 5 });
      const user = await createActiveUser(app);
      const { secret } = await enrol(user);
      const code = codeAt(secret);
      expect((await second(await firstStep(user), code)).body.code).toBe('OK');
      nextStep();
      nextStep();
      expect((await second(await firstStep(user), code)).body.code).toBe('MFA_CODE_INVALID');
      expect(await mfawrongRows(user)).toBe(1);
    });

    it('at the self-service checks: a right code sent twice is answered MFA_CODE_INVALID once, uncounted', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 2 });
      const user = await createActiveUser(app);
      const { secret } = await enrol(user);
      const token = await app.token(user.username, user.password);
      const code = codeAt(secret);
      const [a, b] = await Promise.all([
        app.post('/sys/me/mfa/recoveryCodes', { code }, { token }),
        app.post('/sys/me/mfa/recoveryCodes', { code }, { token }),
      ]);
      expect([a.body.code, b.body.code].sort()).toEqual(['MFA_CODE_INVALID', 'OK']);
      for (let i = 0; i < 2; i++) {
        expect((await app.post('/sys/me/mfa/disable', { code }, { token })).body.code).toBe('MFA_CODE_INVALID');
      }
      expect(await mfawrongRows(user)).toBe(0);
      expect((await app.userRow(user.id)).locked).toBeFalsy();
      expect((await app.post('/sys/me/info', {}, { token })).body.data.mfaEnabled).toBe(true);
    });
  });

  it('a recovery code works once and tells the user by site message', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { recoveryCodes } = await enrol(user);
    const done = await second(await firstStep(user), recoveryCodes[0].toUpperCase());
    expect(done.body.code).toBe('OK');
    expect((await second(await firstStep(user), recoveryCodes[0])).body.code).toBe('MFA_CODE_INVALID');
    const [row] = await app.db.query('SELECT COUNT(*) AS n FROM sys_notification WHERE user_id = ? AND kind = ?', [
      user.id,
      'recovery-code-used',
    ]);
    expect(Number(row.n)).toBe(1);
  });

  it('wrong codes are logged mfawrong and lock at exactly maxFailureTimes, with passwrong; the token then dies', async () => {
    await app.saveLoginStrategy({ mfaMode: 1, maxFailureTimes: 3 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    expect((await app.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
    const mfaToken = await firstStep(user);
    expect((await second(mfaToken, '000000')).body.code).toBe('MFA_CODE_INVALID');
    expect((await app.userRow(user.id)).locked).toBeFalsy();
    expect((await second(mfaToken, '000001')).body.code).toBe('MFA_CODE_INVALID');
    expect(Number((await app.userRow(user.id)).locked)).toBe(1);
    expect((await second(mfaToken, codeAt(secret))).body.code).toBe('MFA_TOKEN_INVALID');
    const statuses = (await app.logRows(user.username)).map((r) => r.status);
    expect(statuses.filter((s) => s === 'mfawrong')).toHaveLength(2);
  });

  it('20 parallel wrong codes: exactly maxFailureTimes are counted, then ACCOUNT_LOCKED', async () => {
    await app.saveLoginStrategy({ mfaMode: 1, maxFailureTimes: 5 });
    const user = await createActiveUser(app);
    await enrol(user);
    const mfaToken = await firstStep(user);
    const codes = (await Promise.all(Array.from({ length: 20 }, (_, i) => second(mfaToken, String(100000 + i))))).map(
      (r) => r.body.code,
    );
    expect(codes.filter((c) => c === 'MFA_CODE_INVALID')).toHaveLength(5);
    expect(
      codes.filter((c) => c === 'MFA_CODE_INVALID').length +
        codes.filter((c) => c === 'MFA_TOKEN_INVALID' || c === 'ACCOUNT_LOCKED').length,
    ).toBe(20);
    const statuses = (await app.logRows(user.username)).map((r) => r.status);
    expect(statuses.filter((s) => s === 'mfawrong')).toHaveLength(5);
    expect(Number((await app.userRow(user.id)).locked)).toBe(1);
  });

  it('10 parallel right codes: exactly one token', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const mfaToken = await firstStep(user);
    const code = codeAt(secret);
    const results = await Promise.all(Array.from({ length: 10 }, () => second(mfaToken, code)));
    expect(results.filter((r) => r.body.code === 'OK')).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 'MFA_TOKEN_INVALID')).toHaveLength(9);
  });

  it('mode 2: a user not enrolled gets a temporary token that reaches the enrolment and nothing else', async () => {
    await app.saveLoginStrategy({ mfaMode: 2 });
    const user = await createActiveUser(app);
    const res = await app.login(user.username, user.password);
    expect(res.body.data).toMatchObject({
      tempUser: true,
      forceUpdatePassword: false,
      mfaSetupRequired: true,
      mfaRequired: false,
      tip: '请先绑定双因素认证',
    });
    const token = res.body.data!.accessToken!;
    expect((await app.post('/sys/online/list', {}, { token })).body.code).toBe('TEMP_TOKEN_FORBIDDEN');
    expect((await app.post('/sys/me/mfa/disable', { code: '123456' }, { token })).body.code).toBe(
      'TEMP_TOKEN_FORBIDDEN',
    );
    const setup = await app.post('/sys/me/mfa/setup', {}, { token });
    expect(setup.body.code).toBe('OK');
    const enabled = await app.post('/sys/me/mfa/enable', { code: codeAt(setup.body.data.secret) }, { token });
    expect(enabled.body.code).toBe('OK');
    expect((await app.post('/sys/me/mfa/setup', {}, { token })).body.code).toBe('MFA_ALREADY_ENABLED');
    nextStep();
    // Enrolled: the next login asks for the code; disabling is forbidden in mode 2.
    const done = await second(await firstStep(user), codeAt(setup.body.data.secret));
    expect(done.body.data).toMatchObject({ tempUser: false, mfaSetupRequired: false });
    nextStep();
    const disable = await app.post(
      '/sys/me/mfa/disable',
      { code: codeAt(setup.body.data.secret) },
      { token: done.body.data.accessToken },
    );
    expect(disable.body.code).toBe('FORBIDDEN');
  });

  it('mode 2 with an initial password: the password change comes first and keeps its tip', async () => {
    await app.saveUserStrategy({ forceUpdatePassword: true });
    await app.saveLoginStrategy({ mfaMode: 2 });
    try {
      const user = await createUser(app);
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({
        tempUser: true,
        forceUpdatePassword: true,
        mfaSetupRequired: true,
        tip: '您的密码为初始密码,请修改密码后再登录',
      });
    } finally {
      await app.saveUserStrategy({ forceUpdatePassword: false });
    }
  });

  it('disable and new recovery codes need a code; user list rows show mfaEnabled', async () => {
    const user = await createActiveUser(app);
    const { secret, recoveryCodes } = await enrol(user);
    const token = await app.token(user.username, user.password);
    const list = await app.admin('/sys/user/list', { keyword: user.username });
    expect(list.body.data.rows[0]).toMatchObject({ username: user.username, mfaEnabled: true });
    expect((await app.post('/sys/me/mfa/recoveryCodes', { code: '000000' }, { token })).body.code).toBe(
      'MFA_CODE_INVALID',
    );
    const fresh = await app.post('/sys/me/mfa/recoveryCodes', { code: codeAt(secret) }, { token });
    expect(fresh.body.data.recoveryCodes).toHaveLength(10);
    // The old set is void.
    expect((await app.post('/sys/me/mfa/disable', { code: recoveryCodes[1] }, { token })).body.code).toBe(
      'MFA_CODE_INVALID',
    );
    expect(
      (await app.post('/sys/me/mfa/disable', { code: fresh.body.data.recoveryCodes[0] }, { token })).body.code,
    ).toBe('OK');
    expect((await app.post('/sys/me/info', {}, { token })).body.data.mfaEnabled).toBe(false);
    // Not enrolled: refused, and not counted toward the lock.
    expect((await app.post('/sys/me/mfa/disable', { code: '123456' }, { token })).body.code).toBe('MFA_CODE_INVALID');
    // (the two wrong codes above, one on each operation, and not this one)
    expect((await app.logRows(user.username)).filter((r) => r.status === 'mfawrong')).toHaveLength(2);
    const after = await app.admin('/sys/user/list', { keyword: user.username });
    expect(after.body.data.rows[0].mfaEnabled).toBe(false);
  });

  it('administrator reset: needs sys:user:mfaReset, removes TOTP, ends sessions, is audited', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const session = await second(await firstStep(user), codeAt(secret));
    const token = session.body.data.accessToken;
    await createRole(app, 'mfa_viewer', ['sys:user:list']);
    const helper = await createActiveUser(app, { roles: ['mfa_viewer'] });
    const helperToken = await app.token(helper.username, helper.password);
    expect((await app.post('/sys/user/mfa/reset', { id: user.id }, { token: helperToken })).body.code).toBe(
      'FORBIDDEN',
    );
    const pending = await firstStep(user);
    expect((await app.admin('/sys/user/mfa/reset', { id: user.id })).body.code).toBe('OK');
    // A login that waited for its code starts again, and nothing is counted as a wrong code.
    expect((await second(pending, '123456')).body.code).toBe('MFA_TOKEN_INVALID');
    expect((await app.logRows(user.username)).filter((r) => r.status === 'mfawrong')).toHaveLength(0);
    expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('NOT_LOGGED_IN');
    const after = await app.login(user.username, user.password);
    expect(after.body.data).toMatchObject({ mfaRequired: false, accessToken: expect.any(String) });
    const [audit] = await app.db.query('SELECT * FROM sys_audit_log WHERE action = ? AND target = ?', [
      'user.mfaReset',
      user.id,
    ]);
    expect(audit).toBeDefined();
  });

  // What outlives a revocation: an administrator resets the password of an account whose password
  // leaked; the login that proved the old one and waits for its code must not finish with it.
  it('a pending mfaToken dies when the password is reset meanwhile, without counting a wrong code', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const pending = await firstStep(user);
    expect((await app.admin('/sys/user/resetPass', { id: user.id })).body.code).toBe('OK');
    const logged = (await app.logRows(user.username)).length;
    expect((await second(pending, codeAt(secret))).body.code).toBe('MFA_TOKEN_INVALID');
    // Dead for good, not only refused once.
    nextStep();
    expect((await second(pending, codeAt(secret))).body.code).toBe('MFA_TOKEN_INVALID');
    expect((await app.logRows(user.username)).slice(logged)).toEqual([]);
  });

  // Self-service disable asks a code; the admin reset must not be a way around it for one's own
  // account (no lock, disable or reset of oneself through the admin operations).
  it('an administrator cannot reset their own second factor through /sys/user/mfa/reset', async () => {
    await createRole(app, 'mfa_resetter', ['sys:user:mfaReset']);
    const admin = await createActiveUser(app, { roles: ['mfa_resetter'] });
    const { secret } = await enrol(admin);
    const token = await app.token(admin.username, admin.password);
    const own = await app.post('/sys/user/mfa/reset', { id: admin.id }, { token });
    expect(own.body.code).toBe('FORBIDDEN');
    // Nothing changed: still enrolled, the session still works.
    const info = await app.post('/sys/me/info', {}, { token });
    expect(info.body.data).toMatchObject({ mfaEnabled: true });
    await app.saveLoginStrategy({ mfaMode: 1 });
    expect((await second(await firstStep(admin), codeAt(secret))).body.code).toBe('OK');
  });

  it('the secret is not readable in the database', async () => {
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const rows = await app.db.query('SELECT * FROM sys_user_mfa WHERE user_id = ?', [user.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    const codes = await app.db.query('SELECT * FROM sys_user_recovery_code WHERE user_id = ?', [user.id]);
    expect(codes).toHaveLength(10);
  });

  it('a QR-code login asks no second factor in mode 1', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const token = (await second(await firstStep(user), codeAt(secret))).body.data.accessToken;
    const gen = await app.post('/auth/qrcode/generate', {}, { token });
    const verified = await app.post('/auth/qrcode/verify', { code: gen.body.data.code });
    expect(verified.body.data).toMatchObject({ mfaRequired: false, mfaToken: null, accessToken: expect.any(String) });
  });

  it('mode 2: a QR-code login of a user not enrolled still leads to the enrolment', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const gen = await app.post('/auth/qrcode/generate', {}, { token });
    await app.saveLoginStrategy({ mfaMode: 2 });
    const verified = await app.post('/auth/qrcode/verify', { code: gen.body.data.code });
    expect(verified.body.data).toMatchObject({
      tempUser: true,
      mfaSetupRequired: true,
      mfaRequired: false,
      forceUpdatePassword: false,
    });
  });

  it('bad input answers the documented codes, never 5xx', async () => {
    const cases: [unknown, string][] = [
      [{ code: '123456' }, 'VALIDATION_FAILED'],
      [{ mfaToken: 'x'.repeat(43), code: '12345' }, 'VALIDATION_FAILED'],
      [{ mfaToken: 'x'.repeat(43), code: 'abcdef' }, 'VALIDATION_FAILED'],
      [{ mfaToken: 'x'.repeat(43), code: '1'.repeat(100_00) }, 'VALIDATION_FAILED'],
      [{ mfaToken: 'x'.repeat(5000), code: '123456' }, 'VALIDATION_FAILED'],
      [{ mfaToken: 12, code: 123456 }, 'VALIDATION_FAILED'],
      [{ mfaToken: 'x'.repeat(43), code: '123456' }, 'MFA_TOKEN_INVALID'],
    ];
    for (const [body, code] of cases) {
      const res = await app.post('/sys/login/mfa', body);
      expect({ body, code: res.body.code }).toEqual({ body, code });
      expect(res.status).toBeLessThan(500);
      if (code === 'VALIDATION_FAILED') expect(res.body.data.errors.length).toBeGreaterThan(0);
    }
    // A fresh login: the cached admin token's proof may be older than reauthMinutes.
    const token = await app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
    expect((await app.post('/sys/me/mfa/enable', { code: 'abc' }, { token })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.post('/sys/me/mfa/enable', { code: '123456' }, { token })).body.code).toBe('MFA_CODE_INVALID');
  });

  it('MFA_ENCRYPTION_KEY unset: a generated key is kept in the settings store; set: the secrets are under it', async () => {
    const [row] = await app.db.query('SELECT prop_value AS v FROM sys_props WHERE prop_group = ? AND prop_key = ?', [
      'sys_security',
      'mfa_encryption_key',
    ]);
    expect(Buffer.from(row.v, 'base64')).toHaveLength(32);
    const key = randomBytes(32);
    const other = await startApp(backend, { env: { MFA_ENCRYPTION_KEY: key.toString('base64') } });
    try {
      const user = await createActiveUser(other);
      const token = await other.token(user.username, user.password);
      const { secret } = (await other.post('/sys/me/mfa/setup', {}, { token })).body.data;
      const code = totpCode(secret, stepAt(other.clock.nowMs()));
      expect((await other.post('/sys/me/mfa/enable', { code }, { token })).body.code).toBe('OK');
      const [stored] = await other.db.query('SELECT secret FROM sys_user_mfa WHERE user_id = ?', [user.id]);
      expect(decryptSecret(key, stored.secret)).toBe(secret);
      const generated = await other.db.query('SELECT * FROM sys_props WHERE prop_key = ?', ['mfa_encryption_key']);
      expect(generated).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('an mfaToken expires after 5 minutes', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    const user = await createActiveUser(app);
    const { secret } = await enrol(user);
    const mfaToken = await firstStep(user);
    app.clock.advanceMinutes(5);
    expect((await second(mfaToken, codeAt(secret))).body.code).toBe('MFA_TOKEN_INVALID');
  });
});

/** The name an authenticator app shows beside the account: MFA_ISSUER, 'Login Policy Service' by default. */
describe('the issuer of a TOTP enrolment (MFA_ISSUER)', () => {
  /** The otpauth:// URI of a new user's enrolment, and what an app shows as the account. */
  async function enrolment(app: TestApp): Promise<{ uri: URL; username: string }> {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const setup = await app.post('/sys/me/mfa/setup', {}, { token });
    expect(setup.body.code).toBe('OK');
    const uri = new URL(setup.body.data.otpauthUrl);
    expect(`${uri.protocol}//${uri.host}`).toBe('otpauth://totp');
    return { uri, username: user.username };
  }

  it.each([
    ['unset', {}, 'Login Policy Service'],
    ['set', { MFA_ISSUER: 'ACME 统一登录 (prod)' }, 'ACME 统一登录 (prod)'],
  ])('%s: the otpauth URI names it as issuer and label prefix', async (_what, env, issuer) => {
    const app = await startApp(sqliteMemory, { env });
    try {
      const { uri, username } = await enrolment(app);
      expect(uri.searchParams.get('issuer')).toBe(issuer);
      expect(decodeURIComponent(uri.pathname)).toBe(`/${issuer}:${username}`);
    } finally {
      await app.close();
    }
  });

  it.each([' ', 'ACME:prod', 'tab\there', 'x'.repeat(65)])(
    'refuses MFA_ISSUER %p at start, naming the variable',
    (value) => {
      expect(() => loadConfig({ MFA_ISSUER: value })).toThrow(ConfigError);
      expect(() => loadConfig({ MFA_ISSUER: value })).toThrow(/MFA_ISSUER/);
    },
  );
});
