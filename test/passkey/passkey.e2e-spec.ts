import { ConfigError, loadConfig } from '../../src/config/app-config';
import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS } from '../support/backends';
import { createActiveUser, TestUser } from '../support/factories';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { startApp, TestApp } from '../support/test-app';

const ORIGIN = 'https://login.example.com';
const RP = { RP_ID: 'login.example.com', RP_ORIGINS: `${ORIGIN},https://sso.login.example.com` };

/** Passkeys (WebAuthn) with a software authenticator, on SQLite + memory and MariaDB + Redis. */
describe.each(BACKENDS)('passkeys on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend, { env: RP });
  });
  afterAll(() => app.close());
  afterEach(async () => {
    await app.saveLoginStrategy({ mfaMode: 0, maxFailureTimes: 5, passkeyLogin: true });
  });

  /** Registers a passkey of `user` on a fresh authenticator, within the fresh proof of a password login. */
  async function enrol(user: TestUser, name?: string) {
    const authenticator = new SoftAuthenticator(ORIGIN);
    const token = await app.token(user.username, user.password);
    const options = await app.post('/sys/me/passkey/register/options', {}, { token });
    expect(options.body).toMatchObject({
      code: 'OK',
      data: { challenge: expect.any(String), rp: { id: 'login.example.com' }, user: { name: user.username } },
    });
    const verify = await app.post(
      '/sys/me/passkey/register/verify',
      { response: authenticator.register(options.body.data), ...(name ? { name } : {}) },
      { token },
    );
    expect(verify.body).toMatchObject({ code: 'OK', data: { id: expect.any(String), name: expect.any(String) } });
    return { authenticator, token, passkeyId: verify.body.data.id as string };
  }

  async function loginOptions(account?: string) {
    const res = await app.post('/sys/login/passkey/options', account === undefined ? {} : { account });
    expect(res.body.code).toBe('OK');
    return res.body.data as {
      challenge: string;
      challengeId: string;
      rpId: string;
      allowCredentials?: { id: string }[];
    };
  }

  const verify = (challengeId: string, response: unknown, ip = '10.0.0.1') =>
    app.post('/sys/login/passkey/verify', { challengeId, response }, { ip });

  const auditRows = (action: string, userId: string) =>
    app.db.query('SELECT * FROM sys_audit_log WHERE action = ? AND target = ?', [action, userId]);

  it('register, list, log in by account: the tail runs, the log says passkey, the session is two-factor', async () => {
    const user = await createActiveUser(app);
    const { authenticator, token, passkeyId } = await enrol(user, 'My laptop');
    const list = await app.post('/sys/me/passkey/list', {}, { token });
    expect(list.body.data).toEqual([
      { id: passkeyId, name: 'My laptop', createTime: expect.any(String), lastUsedTime: null },
    ]);
    expect(await auditRows('me.passkey.add', user.id)).toHaveLength(1);

    const options = await loginOptions(user.username);
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([authenticator.credentials[0].id]);
    const res = await verify(options.challengeId, authenticator.assert(options), '10.0.0.7');
    expect(res.body).toMatchObject({
      code: 'OK',
      data: { accessToken: expect.any(String), tempUser: false, mfaRequired: false, mfaToken: null },
    });
    const session = await app.sessionOf(res.body.data.accessToken);
    expect(session).toMatchObject({ userId: user.id, mfa: 1 });
    const rows = await app.logRows(user.username);
    expect(rows[rows.length - 1]).toMatchObject({ status: 'success', login_type: 'passkey', ip: '10.0.0.7' });
    const used = await app.post('/sys/me/passkey/list', {}, { token });
    expect(used.body.data[0].lastUsedTime).toEqual(expect.any(String));
  });

  it('usernameless: no account, the authenticator names its user', async () => {
    const user = await createActiveUser(app);
    const { authenticator } = await enrol(user);
    const options = await loginOptions();
    expect(options.allowCredentials ?? []).toEqual([]);
    const res = await verify(options.challengeId, authenticator.assert(options));
    expect(res.body.code).toBe('OK');
    const rows = await app.logRows(user.username);
    expect(rows[rows.length - 1]).toMatchObject({ status: 'success', login_type: 'passkey', account: user.username });
    // A user handle of someone else is a wrong answer.
    const other = await loginOptions();
    const forged = authenticator.assert(other, { userHandle: Buffer.from('someone-else').toString('base64url') });
    expect((await verify(other.challengeId, forged)).body.code).toBe('BAD_CREDENTIALS');
  });

  it('a tampered signature is BAD_CREDENTIALS, logged passwrong and counted until the lock; locked refuses the right one', async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 2 });
    const user = await createActiveUser(app);
    const { authenticator } = await enrol(user);
    for (let i = 0; i < 2; i++) {
      const options = await loginOptions(user.username);
      const res = await verify(options.challengeId, authenticator.assert(options, { tamper: true }));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, code: 'BAD_CREDENTIALS', message: '用户名或密码错误', data: null });
    }
    const rows = await app.logRows(user.username);
    expect(rows.filter((r) => r.status === 'passwrong' && r.login_type === 'passkey')).toHaveLength(2);
    expect((await app.userRow(user.id)).locked).toBeTruthy();
    // Locked: refused before the assertion is even checked, logged `locked`.
    const options = await loginOptions(user.username);
    const locked = await verify(options.challengeId, authenticator.assert(options));
    expect(locked.body.code).toBe('ACCOUNT_LOCKED');
    const last = (await app.logRows(user.username)).pop();
    expect(last).toMatchObject({ status: 'locked', login_type: 'passkey' });
  });

  it('a challenge is single use: a replay answers BAD_CREDENTIALS and is not counted', async () => {
    const user = await createActiveUser(app);
    const { authenticator } = await enrol(user);
    const options = await loginOptions(user.username);
    expect((await verify(options.challengeId, authenticator.assert(options))).body.code).toBe('OK');
    const replay = await verify(options.challengeId, authenticator.assert(options));
    expect(replay.body.code).toBe('BAD_CREDENTIALS');
    expect((await app.logRows(user.username)).filter((r) => r.status === 'passwrong')).toHaveLength(0);
    // Five minutes later an unused challenge is gone too.
    const late = await loginOptions(user.username);
    app.clock.advance(5 * 60_000 + 1);
    expect((await verify(late.challengeId, authenticator.assert(late))).body.code).toBe('BAD_CREDENTIALS');
  });

  it('a malformed answer is VALIDATION_FAILED: nothing logged or counted, the challenge stays', async () => {
    const user = await createActiveUser(app);
    const { authenticator } = await enrol(user);
    const options = await loginOptions(user.username);
    const good = authenticator.assert(options);
    for (const response of [
      {},
      { ...good, type: 'password' },
      { ...good, response: { ...good.response, signature: 'not base64url!' } },
      { ...good, response: { clientDataJSON: good.response.clientDataJSON } },
    ]) {
      const res = await verify(options.challengeId, response);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'response' }] } });
    }
    expect(await app.logRows(user.username)).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ status: 'passwrong' })]),
    );
    expect((await verify(options.challengeId, good)).body.code).toBe('OK');
  });

  it('a stale signature counter (a cloned authenticator) is refused', async () => {
    const user = await createActiveUser(app);
    const { authenticator } = await enrol(user);
    const first = await loginOptions(user.username);
    expect((await verify(first.challengeId, authenticator.assert(first))).body.code).toBe('OK');
    const clone = await loginOptions(user.username);
    const res = await verify(clone.challengeId, authenticator.assert(clone, { counter: 1 }));
    expect(res.body.code).toBe('BAD_CREDENTIALS');
  });

  it('list, rename and delete (fresh proof, audited); a deleted passkey logs in no more', async () => {
    const user = await createActiveUser(app);
    const { authenticator, token, passkeyId } = await enrol(user);
    expect((await app.post('/sys/me/passkey/rename', { id: passkeyId, name: '工作电脑' }, { token })).body.code).toBe(
      'OK',
    );
    expect((await app.post('/sys/me/passkey/list', {}, { token })).body.data[0].name).toBe('工作电脑');
    expect(await auditRows('me.passkey.rename', user.id)).toHaveLength(1);
    // Without a fresh proof: refused, nothing changes.
    app.clock.advance(6 * 60_000);
    expect((await app.post('/sys/me/passkey/delete', { id: passkeyId }, { token })).body.code).toBe('REAUTH_REQUIRED');
    expect((await app.post('/sys/me/passkey/register/options', {}, { token })).body.code).toBe('REAUTH_REQUIRED');
    expect((await app.post('/sys/me/passkey/list', {}, { token })).body.code).toBe('REAUTH_REQUIRED');
    const fresh = await app.token(user.username, user.password);
    expect((await app.post('/sys/me/passkey/delete', { id: passkeyId }, { token: fresh })).body.code).toBe('OK');
    expect((await app.post('/sys/me/passkey/delete', { id: passkeyId }, { token: fresh })).body.code).toBe('NOT_FOUND');
    expect((await app.post('/sys/me/passkey/list', {}, { token: fresh })).body.data).toEqual([]);
    expect(await auditRows('me.passkey.delete', user.id)).toHaveLength(1);
    const options = await loginOptions(user.username);
    const res = await verify(options.challengeId, authenticator.assert(options));
    expect(res.body.code).toBe('BAD_CREDENTIALS');
  });

  it('registration refuses an answer from another origin or without its challenge', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const authenticator = new SoftAuthenticator(ORIGIN);
    const options = (await app.post('/sys/me/passkey/register/options', {}, { token })).body.data;
    const phished = authenticator.register(options, { origin: 'https://login.example.com.evil.cn' });
    const res = await app.post('/sys/me/passkey/register/verify', { response: phished }, { token });
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'response' }] } });
    // The challenge was spent by that attempt.
    const again = await app.post(
      '/sys/me/passkey/register/verify',
      { response: authenticator.register(options) },
      { token },
    );
    expect(again.body.code).toBe('VALIDATION_FAILED');
    expect((await app.post('/sys/me/passkey/list', {}, { token })).body.data).toEqual([]);
  });

  it('an access rule refuses a passkey login with ACCESS_DENIED, not counted', async () => {
    const user = await createActiveUser(app);
    const { authenticator } = await enrol(user);
    const rule = await app.admin('/sys/accessRule/save', {
      name: 'lab',
      action: 'deny',
      ipRanges: ['10.66.0.0/16'],
      users: [user.id],
    });
    expect(rule.body.code).toBe('OK');
    try {
      const options = await loginOptions(user.username);
      const res = await verify(options.challengeId, authenticator.assert(options), '10.66.0.5');
      expect(res.body.code).toBe('ACCESS_DENIED');
      expect((await app.logRows(user.username)).pop()).toMatchObject({ status: 'denied', login_type: 'passkey' });
    } finally {
      await app.admin('/sys/accessRule/delete', { id: rule.body.data.id });
    }
  });

  it('passkeyLogin off: the passwordless login is FORBIDDEN', async () => {
    await app.saveLoginStrategy({ passkeyLogin: false });
    expect((await app.post('/sys/login/passkey/options', {})).body.code).toBe('FORBIDDEN');
  });

  describe('as the second factor', () => {
    async function held(user: TestUser) {
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ accessToken: null, mfaRequired: true, mfaToken: expect.any(String) });
      return (res.body.data as any).mfaToken as string;
    }

    it('mfaMode 1: a user with a passkey but no TOTP is not asked: enrolled users are those who enabled TOTP', async () => {
      const user = await createActiveUser(app);
      await enrol(user);
      await app.saveLoginStrategy({ mfaMode: 1 });
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ accessToken: expect.any(String), mfaRequired: false });
    });

    it('mfaMode 1: a user with TOTP is asked; a passkey finishes /sys/login/mfa; a wrong one is mfawrong', async () => {
      const user = await createActiveUser(app);
      const { authenticator, token } = await enrol(user);
      const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token })).body.data;
      const code = totpCode(secret, stepAt(app.clock.nowMs()));
      expect((await app.post('/sys/me/mfa/enable', { code }, { token })).body.code).toBe('OK');
      await app.saveLoginStrategy({ mfaMode: 1 });
      const mfaToken = await held(user);
      const options = (await app.post('/sys/login/mfa/passkey/options', { mfaToken })).body.data;
      expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([authenticator.credentials[0].id]);
      const wrong = await app.post('/sys/login/mfa', {
        mfaToken,
        passkey: authenticator.assert(options, { tamper: true }),
      });
      expect(wrong.body.code).toBe('MFA_CODE_INVALID');
      expect((await app.logRows(user.username)).pop()).toMatchObject({ status: 'mfawrong' });
      // The challenge went with the wrong answer; replaying a right answer to it is no guess.
      const stale = await app.post('/sys/login/mfa', { mfaToken, passkey: authenticator.assert(options) });
      expect(stale.body.code).toBe('MFA_CODE_INVALID');
      expect((await app.logRows(user.username)).filter((r) => r.status === 'mfawrong')).toHaveLength(1);
      const again = (await app.post('/sys/login/mfa/passkey/options', { mfaToken })).body.data;
      const done = await app.post('/sys/login/mfa', { mfaToken, passkey: authenticator.assert(again) });
      expect(done.body).toMatchObject({ code: 'OK', data: { accessToken: expect.any(String), mfaRequired: false } });
      expect((await app.logRows(user.username)).pop()).toMatchObject({ status: 'success', login_type: 'account' });
      // A malformed passkey answer is refused as such, not counted.
      const malformed = await app.post('/sys/login/mfa', { mfaToken: await held(user), passkey: { id: 'x' } });
      expect(malformed.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'passkey' }] } });
      expect((await app.logRows(user.username)).filter((r) => r.status === 'mfawrong')).toHaveLength(1);
      // Both fields at once is not a second step.
      const both = await app.post('/sys/login/mfa', { mfaToken: await held(user), code: '123456', passkey: {} });
      expect(both.body.code).toBe('VALIDATION_FAILED');
      // A passkey login itself is not held: it proves both factors.
      const direct = await loginOptions(user.username);
      expect((await verify(direct.challengeId, authenticator.assert(direct))).body.data.accessToken).toEqual(
        expect.any(String),
      );
    });

    it('mfaMode 2: the last passkey may go when a code to the mobile counts as enrolment (mfaChannels)', async () => {
      const user = await createActiveUser(app);
      const { authenticator } = await enrol(user);
      await app.saveLoginStrategy({ mfaMode: 2 });
      try {
        const options = await loginOptions(user.username);
        const token = (await verify(options.challengeId, authenticator.assert(options))).body.data.accessToken;
        const passkeyId = (await app.post('/sys/me/passkey/list', {}, { token })).body.data[0].id;
        expect((await app.post('/sys/me/passkey/delete', { id: passkeyId }, { token })).body.code).toBe('FORBIDDEN');
        await app.saveLoginStrategy({ mfaChannels: ['totp', 'sms'] });
        expect((await app.post('/sys/me/passkey/delete', { id: passkeyId }, { token })).body.code).toBe('OK');
        expect((await app.post('/sys/me/passkey/list', {}, { token })).body.data).toEqual([]);
      } finally {
        await app.saveLoginStrategy({ mfaMode: 0, mfaChannels: ['totp'] });
      }
    });

    it('mfaMode 2: a passkey counts as enrolment; the last one cannot be deleted; the reset removes passkeys', async () => {
      const user = await createActiveUser(app);
      const { authenticator } = await enrol(user);
      await app.saveLoginStrategy({ mfaMode: 2 });
      await held(user); // not sent to enrolment with a temporary token
      const list = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: user.username });
      expect(list.body.data.rows[0]).toMatchObject({ passkeyCount: 1, mfaEnabled: false });
      const options = await loginOptions(user.username);
      const login = await verify(options.challengeId, authenticator.assert(options));
      const token = login.body.data.accessToken;
      const passkeyId = (await app.post('/sys/me/passkey/list', {}, { token })).body.data[0].id;
      expect((await app.post('/sys/me/passkey/delete', { id: passkeyId }, { token })).body.code).toBe('FORBIDDEN');

      expect((await app.admin('/sys/user/mfa/reset', { id: user.id })).body.code).toBe('OK');
      expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('NOT_LOGGED_IN');
      const after = await loginOptions(user.username);
      expect(after.allowCredentials ?? []).toEqual([]);
      expect((await verify(after.challengeId, authenticator.assert(after))).body.code).toBe('BAD_CREDENTIALS');
      const again = await app.login(user.username, user.password);
      expect(again.body.data).toMatchObject({ tempUser: true, mfaSetupRequired: true });
      // The temporary token of enrolment may register a passkey, which then counts.
      const temp = (again.body.data as any).accessToken as string;
      const fresh = new SoftAuthenticator(ORIGIN);
      const regOptions = (await app.post('/sys/me/passkey/register/options', {}, { token: temp })).body.data;
      const reg = await app.post(
        '/sys/me/passkey/register/verify',
        { response: fresh.register(regOptions) },
        { token: temp },
      );
      expect(reg.body.code).toBe('OK');
      await held(user);
    });
  });
});

describe('RP_ID and RP_ORIGINS at start', () => {
  const base = { DATABASE_URL: 'sqlite::memory:' };
  it.each([
    [{ RP_ID: 'https://login.example.com' }, /^Invalid configuration: RP_ID: /],
    [{ RP_ID: 'login.example.com:443' }, /^Invalid configuration: RP_ID: /],
    [{ RP_ORIGINS: 'login.example.com' }, /^Invalid configuration: RP_ORIGINS: /],
    [{ RP_ORIGINS: 'http://login.example.com' }, /^Invalid configuration: RP_ORIGINS: /],
    [{ RP_ORIGINS: 'https://login.example.com/console' }, /^Invalid configuration: RP_ORIGINS: /],
    [{ RP_ID: 'example.com', RP_ORIGINS: 'https://login.example.org' }, /^Invalid configuration: RP_ORIGINS: /],
  ])('%o is refused in one line naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    try {
      loadConfig({ ...base, ...env });
    } catch (err) {
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('accepts a parent domain and its subdomains, and localhost for development', () => {
    expect(
      loadConfig({ ...base, RP_ID: 'example.com', RP_ORIGINS: 'https://login.example.com,https://example.com:8443' }),
    ).toMatchObject({ RP_ID: 'example.com', RP_ORIGINS: ['https://login.example.com', 'https://example.com:8443'] });
    expect(loadConfig({ ...base, RP_ID: 'localhost', RP_ORIGINS: 'http://localhost:3000' }).RP_ORIGINS).toEqual([
      'http://localhost:3000',
    ]);
  });
});
