import { BACKENDS } from '../support/backends';
import { ACCOUNT_EXPIRED, ACCOUNT_LOCKED, OLD_PASSWORD_WRONG, QRCODE_INVALID } from '../support/envelopes';
import { createActiveUser, TestUser } from '../support/factories';
import { sha256hex, startApp, TestApp } from '../support/test-app';

const WRONG = 'Wrong#pass1';
const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * What an outside probe broke: QR codes that outlived their session, automatic locks
 * that logged the owner out, and a password change that let a stolen token guess the password.
 */
describe.each(BACKENDS)('revocation and lockout on $name', (backend) => {
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
      loginStrategyWhenExpire: 1,
    });
    await app.saveUserStrategy({ passwordExpireDays: 0, forceUpdatePassword: false });
  });

  const me = (token: string) => app.post('/sys/me/info', {}, { token });
  const generate = async (token: string): Promise<string> => {
    const res = await app.post('/auth/qrcode/generate', {}, { token });
    if (!res.body.success) throw new Error(`generate failed: ${res.body.code}`);
    return res.body.data.code;
  };
  const verify = (code: string) => app.post('/auth/qrcode/verify', { code }, { ip: '10.77.0.9' });
  const changePassword = async (token: string, oldPass: string, newPass: string) =>
    app.post(
      '/sys/me/pass/update',
      {
        oldPass: await app.encrypt(oldPass),
        newPass: await app.encrypt(newPass),
      },
      { token },
    );
  const locked = async (user: TestUser) => !!Number((await app.userRow(user.id)).locked);
  const rowsOf = async (user: TestUser) =>
    app.db.query('SELECT login_type, status, failure_reason FROM sys_login_log WHERE user_id = ? ORDER BY id', [
      user.id,
    ]);

  describe('QR codes die with their session (item 1)', () => {
    it('a code of a session that logged out is void', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const code = await generate(token);
      expect((await app.post('/sys/logout', {}, { token })).body.success).toBe(true);
      const res = await verify(code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(QRCODE_INVALID);
    });

    it('a code is void after the user changes the password, even from the session that made it', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const code = await generate(token);
      expect((await changePassword(token, user.password, 'Third#pass3')).body.success).toBe(true);
      expect((await me(token)).body.success).toBe(true);
      expect((await verify(code)).body).toEqual(QRCODE_INVALID);
    });

    it('a code is void after an administrator resets the password or kicks the session out', async () => {
      const user = await createActiveUser(app);
      const forReset = await generate(await app.token(user.username, user.password));
      expect((await app.admin('/sys/user/resetPass', { id: user.id })).body.success).toBe(true);
      expect((await verify(forReset)).body).toEqual(QRCODE_INVALID);

      const password = (await app.admin('/sys/user/resetPass', { id: user.id })).body.data.password;
      const token = await app.token(user.username, password);
      const forKick = await generate(token);
      expect((await app.admin('/sys/online/kickout', { tokenId: sha256hex(token) })).body.success).toBe(true);
      expect((await verify(forKick)).body).toEqual(QRCODE_INVALID);
    });

    it('a token from a code cannot keep minting codes once the first session ends', async () => {
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password);
      const second = (await verify(await generate(first))).body.data.accessToken;
      const third = await generate(second);
      await app.post('/sys/logout', {}, { token: second });
      expect((await verify(third)).body).toEqual(QRCODE_INVALID);
      // A code of a live session still works.
      expect((await verify(await generate(first))).body.success).toBe(true);
    });

    it('verify applies password expiry: ACCOUNT_EXPIRED with strategy 3, a temporary token with 2, as a password login', async () => {
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const user = await createActiveUser(app);
      app.clock.advance(90 * DAY - MINUTE);
      const token = await app.token(user.username, user.password);
      const refused = await generate(token);
      const forced = await generate(token);
      app.clock.advance(2 * MINUTE); // the password is now older than 90 days; session and codes still live
      try {
        await app.saveLoginStrategy({ loginStrategyWhenExpire: 3 });
        expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_EXPIRED');
        const res = await verify(refused);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(ACCOUNT_EXPIRED);
        expect((await rowsOf(user)).at(-1)).toMatchObject({ login_type: 'qrcode', status: 'expired' });

        await app.saveLoginStrategy({ loginStrategyWhenExpire: 2 });
        const temp = await verify(forced);
        expect(temp.body.data).toMatchObject({
          tempUser: true,
          forceUpdatePassword: true,
          tip: '您的密码已过期,请修改密码后再登录',
        });
        const tempToken = temp.body.data.accessToken;
        expect(
          (await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token: tempToken, ip: '10.77.0.9' })).body
            .code,
        ).toBe('TEMP_TOKEN_FORBIDDEN');
      } finally {
        app.clock.advance(-(90 * DAY + MINUTE));
      }
    });

    it('an authorisation is audited: who authorised which new session, by session id', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const res = await verify(await generate(token));
      expect(res.body.success).toBe(true);
      const rows = (
        await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 10, action: 'qrcode.authorize', target: user.id })
      ).body.data.rows;
      expect(rows).toEqual([
        expect.objectContaining({
          action: 'qrcode.authorize',
          userId: user.id,
          username: user.username,
          target: user.id,
          targetName: user.username,
          ip: '10.77.0.9',
          detail: { authorizedBy: sha256hex(token), session: sha256hex(res.body.data.accessToken) },
        }),
      ]);
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('verify applies the first-login rule: an initial password with forceUpdatePassword gets a temporary token', async () => {
      const user = await createActiveUser(app);
      const password = (await app.admin('/sys/user/resetPass', { id: user.id })).body.data.password;
      const token = await app.token(user.username, password);
      const code = await generate(token);
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const res = await verify(code);
      expect(res.body.data).toMatchObject({ tempUser: true, forceUpdatePassword: true });
      expect((await app.sessionOf(res.body.data.accessToken)).temp).toBe(1);
    });
  });

  describe('an automatic lock keeps live sessions (item 2)', () => {
    it('five guesses by a stranger lock new logins but do not log the owner out', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      for (let i = 0; i < 3; i++)
        expect((await app.login(user.username, WRONG, { ip: '6.6.6.6' })).body.code).toBe('BAD_CREDENTIALS');
      expect(await locked(user)).toBe(true);
      expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
      expect((await me(token)).body).toMatchObject({ success: true, data: { id: user.id } });
      expect(await app.sessionOf(token)).toMatchObject({ userId: user.id, kickout: 0 });
    });

    it("the administrator too: guessing admin's password does not end the administrator's session", async () => {
      const adminToken = await app.adminToken();
      for (let i = 0; i < 3; i++) await app.login('admin', WRONG, { ip: '6.6.6.7' });
      const [{ id }] = await app.db.query("SELECT id FROM sys_user WHERE username = 'admin'");
      try {
        expect((await app.login('admin', 'Admin@12345')).body.code).toBe('ACCOUNT_LOCKED');
        expect(
          (await app.post('/sys/user/list', { pageNum: 1, pageSize: 1 }, { token: adminToken, ip: '10.9.9.9' })).body
            .success,
        ).toBe(true);
        expect((await app.post('/sys/user/unlock', { id }, { token: adminToken, ip: '10.9.9.9' })).body.success).toBe(
          true,
        );
      } finally {
        // Whatever happened above, the other tests need their administrator back.
        await app.db.query('UPDATE sys_user SET locked = 0, unlock_time = NULL WHERE id = ?', [id]);
      }
    });

    it('an administrator lock still ends every session', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      expect((await app.admin('/sys/user/lock', { id: user.id })).body.success).toBe(true);
      expect((await me(token)).body.code).toBe('NOT_LOGGED_IN');
    });
  });

  describe('wrong old passwords count toward the lock (item 4)', () => {
    it('each is logged passwrong / passchange; the one that reaches maxFailureTimes locks and ends the trying session only', async () => {
      const user = await createActiveUser(app);
      const thief = await app.token(user.username, user.password, { ip: '6.6.6.8' });
      const owner = await app.token(user.username, user.password);
      for (let i = 0; i < 2; i++) {
        const res = await changePassword(thief, `Guess#${i}aa`, 'Stolen#pass1');
        expect(res.status).toBe(400);
        expect(res.body).toEqual(OLD_PASSWORD_WRONG);
      }
      expect(await locked(user)).toBe(false);
      expect((await me(thief)).body.success).toBe(true);
      expect((await changePassword(thief, 'Guess#3aa', 'Stolen#pass1')).body.code).toBe('OLD_PASSWORD_WRONG');
      expect(await locked(user)).toBe(true);
      expect((await me(thief)).body.code).toBe('NOT_LOGGED_IN');
      expect((await me(owner)).body.success).toBe(true);
      expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
      const rows = (await rowsOf(user)).filter((r: any) => r.login_type === 'passchange');
      expect(rows).toEqual(
        Array.from({ length: 3 }, () =>
          expect.objectContaining({ status: 'passwrong', failure_reason: '旧密码不正确' }),
        ),
      );
    });

    it('wrong logins and wrong old passwords add up in one window', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      await app.login(user.username, WRONG);
      await app.login(user.username, WRONG);
      expect(await locked(user)).toBe(false);
      await changePassword(token, 'Guess#1aa', 'Stolen#pass1');
      expect(await locked(user)).toBe(true);
    });

    it('while locked, even the right old password is refused without a compare and nothing changes', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      for (let i = 0; i < 3; i++) await app.login(user.username, WRONG);
      const res = await changePassword(token, user.password, 'Stolen#pass1');
      expect(res.status).toBe(423);
      expect(res.body).toEqual(ACCOUNT_LOCKED);
      expect((await rowsOf(user)).at(-1)).toMatchObject({ login_type: 'passchange', status: 'locked' });
      app.clock.advance(10 * MINUTE + 1);
      try {
        expect((await app.login(user.username, 'Stolen#pass1')).body.code).toBe('BAD_CREDENTIALS');
        expect((await app.login(user.username, user.password)).body.success).toBe(true);
      } finally {
        app.clock.advance(-(10 * MINUTE + 1));
      }
    });

    it('10 parallel wrong old passwords from one stolen token: one evaluated at a time, the lock at exactly maxFailureTimes, never a 5xx', async () => {
      const user = await createActiveUser(app);
      const thief = await app.token(user.username, user.password);
      const oldPass = await app.encrypt('Guess#par1');
      const newPass = await app.encrypt('Stolen#pass1');
      const guess = () => app.post('/sys/me/pass/update', { oldPass, newPass }, { token: thief });
      const replies = await Promise.all(Array.from({ length: 10 }, guess));
      expect(replies.every((r) => r.status < 500)).toBe(true);
      expect(
        replies.every((r) =>
          ['OLD_PASSWORD_WRONG', 'RATE_LIMITED', 'ACCOUNT_LOCKED', 'NOT_LOGGED_IN'].includes(r.body.code),
        ),
      ).toBe(true);
      let evaluated = replies.filter((r) => r.body.code === 'OLD_PASSWORD_WRONG').length;
      expect(evaluated).toBeGreaterThanOrEqual(1);
      expect(replies.filter((r) => r.body.code === 'RATE_LIMITED').length).toBeGreaterThanOrEqual(1);
      // In turn, the guesses count up to the lock, which ends the thief's session.
      for (; evaluated < 3; evaluated++) expect((await guess()).body.code).toBe('OLD_PASSWORD_WRONG');
      expect((await guess()).body.code).toBe('NOT_LOGGED_IN');
      const passwrong = (await rowsOf(user)).filter(
        (r: any) => r.login_type === 'passchange' && r.status === 'passwrong',
      );
      expect(passwrong).toHaveLength(3);
      expect(await locked(user)).toBe(true);
    });
  });
});
