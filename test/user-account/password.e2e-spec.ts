import { generateKeyPairSync } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import {
  ACCOUNT_EXPIRED,
  BAD_CREDENTIALS,
  failure,
  NOT_LOGGED_IN,
  OK_NO_DATA,
  OLD_PASSWORD_WRONG,
} from '../support/envelopes';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { encryptPassword } from '../support/password-transport';
import { PASSWORD_RULE_DEFAULTS } from '../support/settings';
import { epochMs, startApp, TestApp } from '../support/test-app';

const MINUTE = 60_000;

const INITIAL_TIP = '您的密码为初始密码,请尽快修改密码';
const INITIAL_FORCE_TIP = '您的密码为初始密码,请修改密码后再登录';

function changePassword(app: TestApp, token: string, oldPass: string, newPass: string) {
  return Promise.all([app.encrypt(oldPass), app.encrypt(newPass)]).then(([o, n]) =>
    app.post('/sys/me/pass/update', { oldPass: o, newPass: n }, { token }),
  );
}

/** The session lives under AUTH_TOKEN:{sha256hex(token)} (the Redis store adds the prefix). */
const sessionOf = (app: TestApp, token: string): Promise<any> => app.sessionOf(token);

/** Character classes. */
function meetsRules(password: string, rules: typeof PASSWORD_RULE_DEFAULTS): boolean {
  const length = [...password].length;
  return (
    length >= rules.minPasswordLength &&
    length <= rules.maxPasswordLength &&
    (!rules.includeNumber || /[0-9]/.test(password)) &&
    (!rules.includeUpperCase || /[A-Z]/.test(password)) &&
    (!rules.includeLowerCase || /[a-z]/.test(password)) &&
    (!rules.includeSymbol || /[^\p{L}0-9\s]/u.test(password))
  );
}

describe.each(BACKENDS)('password rules on $name', (backend) => {
  describe('changing, resetting and reading the rules (one app)', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startApp(backend);
    });
    // Some tests tighten the account strategy; the factories' passwords need the defaults back.
    afterEach(() => app.saveUserStrategy(PASSWORD_RULE_DEFAULTS));
    afterAll(() => app.close());

    it('a wrong old password is OLD_PASSWORD_WRONG, checked before the new one, and changes nothing', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      const res = await changePassword(app, token, 'Wrong#old1', 'Brand#New1');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(failure('OLD_PASSWORD_WRONG', '旧密码不正确'));
      // oldPass is verified first, so a new password that also breaks the rules still gets this answer.
      const bothWrong = await changePassword(app, token, 'Wrong#old1', 'x');
      expect(bothWrong.body.code).toBe('OLD_PASSWORD_WRONG');
      expect(bothWrong.status).toBe(400);
      expect(bothWrong.body).toEqual(OLD_PASSWORD_WRONG);
      expect((await app.userRow(user.id)).password_update_time).toBeNull();
      const notChanged = await app.login(user.username, 'Brand#New1');
      expect(notChanged.body.code).toBe('BAD_CREDENTIALS');
      expect(notChanged.body).toEqual(BAD_CREDENTIALS);
      expect((await app.login(user.username, user.password)).body.success).toBe(true);
      expect((await app.post('/sys/me/info', {}, { token })).body.success).toBe(true);
    });

    it('Each complexity rule in its order, the first failure reported with its code and message', async () => {
      await app.saveUserStrategy({ includeUpperCase: true });
      const user = await createUser(app, { password: 'Initial#1a' });
      const token = await app.token(user.username, user.password);
      // Every candidate also breaks all the rules after the one reported, so the order shows.
      const cases: [string, string, string][] = [
        ['abc', 'PASSWORD_TOO_SHORT', '密码长度应大于6'],
        ['abcdefghijklmnopqrstu', 'PASSWORD_TOO_LONG', '密码长度应小于20'],
        ['abcdefgh', 'PASSWORD_NEEDS_DIGIT', '密码应包含数字'],
        ['abcdefg1', 'PASSWORD_NEEDS_UPPER', '密码应包含大写字符'],
        ['ABCDEFG1', 'PASSWORD_NEEDS_LOWER', '密码应包含小写字符'],
        ['ABCDefg1', 'PASSWORD_NEEDS_SYMBOL', '密码应包含特殊字符'],
      ];
      for (const [candidate, code, message] of cases) {
        const res = await changePassword(app, token, user.password, candidate);
        expect({ candidate, status: res.status, body: res.body }).toEqual({
          candidate,
          status: 400,
          body: failure(code, message),
        });
      }
      expect((await app.userRow(user.id)).password_update_time).toBeNull();
      const refusedCandidate = await app.login(user.username, 'ABCDefg1');
      expect(refusedCandidate.body.code).toBe('BAD_CREDENTIALS');
      expect(refusedCandidate.body).toEqual(BAD_CREDENTIALS);
      expect((await app.login(user.username, user.password)).body.success).toBe(true);

      expect((await changePassword(app, token, user.password, 'ABCDefg1!')).body).toEqual(OK_NO_DATA);
      expect((await app.login(user.username, 'ABCDefg1!')).body.success).toBe(true);
    });

    it('length limits are inclusive and count code points; white space and letters are not symbols; 72 UTF-8 bytes at most', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      let current = user.password;
      const change = async (next: string) => {
        const res = await changePassword(app, token, current, next);
        if (res.body.success) current = next;
        return res.body;
      };

      expect(await change('ab1!x')).toEqual(failure('PASSWORD_TOO_SHORT', '密码长度应大于6'));
      expect(await change('ab1!xy')).toEqual(OK_NO_DATA);
      // Five code points, seven UTF-16 units: still too short.
      expect(await change('a1!😀😀')).toEqual(failure('PASSWORD_TOO_SHORT', '密码长度应大于6'));
      expect(await change('a1!😀😀😀')).toEqual(OK_NO_DATA);
      expect(await change('a1!' + 'b'.repeat(17))).toEqual(OK_NO_DATA);
      expect(await change('a1!' + 'c'.repeat(18))).toEqual(failure('PASSWORD_TOO_LONG', '密码长度应小于20'));
      // A symbol is not a letter, not a digit and not white space.
      expect(await change('abcde1 ')).toEqual(failure('PASSWORD_NEEDS_SYMBOL', '密码应包含特殊字符'));
      expect(await change('abcde1密')).toEqual(failure('PASSWORD_NEEDS_SYMBOL', '密码应包含特殊字符'));
      expect(await change('abcde1_')).toEqual(OK_NO_DATA);

      await app.saveUserStrategy({ maxPasswordLength: 30 });
      // Evaluates 10 own changes per user and hour: the last two on another account.
      const other = await createUser(app);
      const otherToken = await app.token(other.username, other.password);
      current = other.password;
      const changeOther = async (next: string) => {
        const res = await changePassword(app, otherToken, current, next);
        if (res.body.success) current = next;
        return res.body;
      };
      expect(await changeOther('a1!' + '密'.repeat(23))).toEqual(OK_NO_DATA); // 26 code points, 72 bytes
      // 27 code points are within maxPasswordLength, but 75 bytes are more than BCrypt reads.
      expect(await changeOther('a1!' + '密'.repeat(24))).toEqual(failure('PASSWORD_TOO_LONG', '密码长度应小于30'));
      expect((await app.login(other.username, current)).body.success).toBe(true);
    });

    it('a rule that is switched off is not applied (0 = no length limit)', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      await app.saveUserStrategy({
        minPasswordLength: 0,
        maxPasswordLength: 0,
        includeNumber: false,
        includeLowerCase: false,
        includeSymbol: false,
      });
      expect((await changePassword(app, token, user.password, 'Q')).body).toEqual(OK_NO_DATA);
      expect((await changePassword(app, token, 'Q', 'Q'.repeat(40))).body).toEqual(OK_NO_DATA);
      expect((await app.login(user.username, 'Q'.repeat(40))).body.success).toBe(true);
    });

    it('after a change the new password logs in and the old one does not, the time is recorded, and only the caller keeps a session', async () => {
      const user = await createUser(app);
      const caller = await app.token(user.username, user.password, { ip: '10.2.0.1' });
      const other = await app.token(user.username, user.password, { ip: '10.2.0.2' });
      expect((await app.userRow(user.id)).password_update_time).toBeNull();
      app.clock.advanceMinutes(1);

      const res = await changePassword(app, caller, user.password, 'Brand#New1');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      // Password_update_time = now; the password column holds a BCrypt hash, never the text.
      const row = await app.userRow(user.id);
      expect(epochMs(row.password_update_time)).toBe(app.clock.nowMs());
      expect(row.password).toMatch(/^\$2[aby]\$/);

      // A user's own password change ends the user's other sessions.
      const me = await app.post('/sys/me/info', {}, { token: caller, ip: '10.2.0.1' });
      expect(me.body).toMatchObject({ success: true, data: { id: user.id, tempUser: false } });
      const ended = await app.post('/sys/me/info', {}, { token: other, ip: '10.2.0.2' });
      expect(ended.status).toBe(401);
      expect(ended.body).toEqual(NOT_LOGGED_IN);

      const fresh = await app.login(user.username, 'Brand#New1');
      expect(fresh.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
      expect(fresh.body.data!.tip).not.toContain('初始密码');
      const old = await app.login(user.username, user.password);
      expect(old.status).toBe(401);
      expect(old.body.code).toBe('BAD_CREDENTIALS');
      expect(old.body).toEqual(BAD_CREDENTIALS);
    });

    it('An oldPass or newPass that does not decrypt is VALIDATION_FAILED naming the field, and changes nothing', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      const good = await app.encrypt('Brand#New1');
      const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      // Well-formed RSA-OAEP-256, but under a key that is not the service's.
      const underOtherKey = encryptPassword(
        publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        user.password,
      );

      const attempts: [Record<string, string>, string, string][] = [
        [{ oldPass: user.password, newPass: good }, 'oldPass', '旧密码'], // plain text is never accepted
        [{ oldPass: underOtherKey, newPass: good }, 'oldPass', '旧密码'],
        [
          { oldPass: await app.encrypt(user.password), newPass: Buffer.from('not a ciphertext').toString('base64') },
          'newPass',
          '新密码',
        ],
        [{ oldPass: await app.encrypt(user.password), newPass: 'Brand#New1' }, 'newPass', '新密码'],
      ];
      for (const [body, field, label] of attempts) {
        const res = await app.post('/sys/me/pass/update', body, { token });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', data: namesFields(field) });
        expect(res.body.message).toContain(`${label}无法解密`);
      }
      const missing = await app.post('/sys/me/pass/update', { oldPass: await app.encrypt(user.password) }, { token });
      expect(missing.body.code).toBe('VALIDATION_FAILED');
      expect((await app.userRow(user.id)).password_update_time).toBeNull();
      expect((await app.login(user.username, user.password)).body.success).toBe(true);
    });

    it('changing a password needs a login', async () => {
      const res = await app.post('/sys/me/pass/update', {
        oldPass: await app.encrypt('a'),
        newPass: await app.encrypt('b'),
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });

    it('without DEFAULT_PASSWORD a reset returns a generated password that meets the strategy, is initial, and ends every session', async () => {
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password, { ip: '10.3.0.1' });
      const second = await app.token(user.username, user.password, { ip: '10.3.0.2' });
      const strict = {
        ...PASSWORD_RULE_DEFAULTS,
        minPasswordLength: 16,
        maxPasswordLength: 24,
        includeUpperCase: true,
      };
      await app.saveUserStrategy(strict);

      const res = await app.admin('/sys/user/resetPass', { id: user.id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      expect(res.body.data).toEqual({ password: expect.any(String) });
      const generated: string = res.body.data.password;
      expect(meetsRules(generated, strict)).toBe(true);

      // Back to the initial state.
      expect((await app.userRow(user.id)).password_update_time).toBeNull();
      // An administrator's reset ends every session of the user.
      for (const token of [first, second]) {
        expect((await app.post('/sys/me/info', {}, { token })).body).toEqual(NOT_LOGGED_IN);
      }
      const oldRefused = await app.login(user.username, user.password);
      expect(oldRefused.body.code).toBe('BAD_CREDENTIALS');
      expect(oldRefused.body).toEqual(BAD_CREDENTIALS);
      const login = await app.login(user.username, generated);
      expect(login.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false, tip: INITIAL_TIP });
    });

    it('a reset needs sys:user:resetPass and a known user', async () => {
      const caller = await createActiveUser(app);
      const target = await createActiveUser(app);
      const token = await app.token(caller.username, caller.password);
      const denied = await app.post('/sys/user/resetPass', { id: target.id }, { token });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual(failure('FORBIDDEN', '没有权限'));
      expect((await app.login(target.username, target.password)).body.success).toBe(true);
      const unknown = await app.admin('/sys/user/resetPass', { id: 'no-such-user' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    });

    it('/sys/strategy/user/rules gives any logged-in user the complexity fields and reflects a save', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      const rules = await app.post('/sys/strategy/user/rules', {}, { token });
      expect(rules.status).toBe(200);
      expect(rules.body).toEqual({ success: true, code: 'OK', message: '操作成功', data: PASSWORD_RULE_DEFAULTS });
      // The full account strategy stays behind its permission.
      expect((await app.post('/sys/strategy/user/info', {}, { token })).body.code).toBe('FORBIDDEN');

      const saved = {
        minPasswordLength: 8,
        maxPasswordLength: 32,
        includeLowerCase: false,
        includeUpperCase: true,
        includeNumber: false,
        includeSymbol: false,
        passwordHistoryCount: 4,
        rejectCommonPasswords: true,
        rejectAccountInPassword: false,
      };
      await app.saveUserStrategy({ ...saved, passwordExpireDays: 30 });
      expect((await app.post('/sys/strategy/user/rules', {}, { token })).body.data).toEqual(saved);
    });
  });

  it('with DEFAULT_PASSWORD a reset assigns it, returns no data and ends every session', async () => {
    const app = await startApp(backend, { env: { DEFAULT_PASSWORD: 'Reset#123a' } });
    try {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const res = await app.admin('/sys/user/resetPass', { id: user.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect((await app.post('/sys/me/info', {}, { token })).body).toEqual(NOT_LOGGED_IN);
      expect((await app.userRow(user.id)).password_update_time).toBeNull();
      const oldRefused = await app.login(user.username, user.password);
      expect(oldRefused.body.code).toBe('BAD_CREDENTIALS');
      expect(oldRefused.body).toEqual(BAD_CREDENTIALS);
      const login = await app.login(user.username, 'Reset#123a');
      expect(login.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false, tip: INITIAL_TIP });
    } finally {
      await app.close();
    }
  });

  it('an empty DEFAULT_PASSWORD counts as unset: the reset returns a generated password, and that is the one that works', async () => {
    const app = await startApp(backend, { env: { DEFAULT_PASSWORD: '' } });
    try {
      const user = await createActiveUser(app);
      const res = await app.admin('/sys/user/resetPass', { id: user.id });
      expect(res.body.data).toEqual({ password: expect.any(String) });
      expect((await app.login(user.username, res.body.data.password)).body.success).toBe(true);
      expect((await app.login(user.username, '')).body.code).toBe('BAD_CREDENTIALS');
    } finally {
      await app.close();
    }
  });

  // Moving time ages the first-start admin's own initial password too, and forceUpdatePassword would
  // give the admin a temporary token: each of these tests gets its own app and sets the strategy first.
  describe('time and first-login rules (an app per test)', () => {
    let app: TestApp;

    beforeEach(async () => {
      app = await startApp(backend);
    });
    afterEach(() => app.close());

    it('LoginStrategyWhenExpire 3: a password older than passwordExpireDays is refused and logged as expired', async () => {
      await app.saveLoginStrategy({ loginStrategyWhenExpire: 3 });
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const user = await createActiveUser(app);
      app.clock.advanceDays(91);
      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(failure('ACCOUNT_EXPIRED', '您的账户已过期,请联系管理员'));
      expect((await app.logRows(user.username)).at(-1)).toMatchObject({
        status: 'expired',
        user_id: user.id,
        failure_reason: '您的账户已过期,请联系管理员',
      });
      // A wrong password still answers BAD_CREDENTIALS: expiry is only told to the right password (step 3 before 6).
      const wrong = await app.login(user.username, 'Wrong#pass1');
      expect(wrong.body.code).toBe('BAD_CREDENTIALS');
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(BAD_CREDENTIALS);
    });

    it('Expired means later than passwordExpireDays: exactly at day 90 the login passes, a millisecond later it does not', async () => {
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const user = await createActiveUser(app);
      app.clock.advanceDays(90);
      const onTheDay = await app.login(user.username, user.password);
      expect(onTheDay.status).toBe(200);
      expect(onTheDay.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
      app.clock.advance(1);
      const justAfter = await app.login(user.username, user.password);
      expect(justAfter.body.code).toBe('ACCOUNT_EXPIRED');
      expect(justAfter.status).toBe(403);
      expect(justAfter.body).toEqual(ACCOUNT_EXPIRED);
    });

    it('The age counts from create_time while password_update_time is empty, and from the change afterwards', async () => {
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const untouched = await createUser(app);
      const changer = await createUser(app);
      app.clock.advanceDays(80);
      const token = await app.token(changer.username, changer.password);
      expect((await changePassword(app, token, changer.password, 'Later#Pass1')).body.success).toBe(true);
      expect((await app.login(untouched.username, untouched.password)).body.data).toMatchObject({
        tempUser: false,
        tip: INITIAL_TIP,
      });

      app.clock.advanceDays(11); // day 91 after creation, day 11 after the change
      const expired = await app.login(untouched.username, untouched.password);
      expect(expired.body.code).toBe('ACCOUNT_EXPIRED');
      expect(expired.body).toEqual(ACCOUNT_EXPIRED);
      const changed = await app.login(changer.username, 'Later#Pass1');
      expect(changed.body.success).toBe(true);
      expect(changed.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
    });

    it('LoginStrategyWhenExpire 2: a temporary token that reaches only TEMP_URIS until the password is changed', async () => {
      await app.saveLoginStrategy({ loginStrategyWhenExpire: 2 });
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      await createRole(app, 'user_lister', ['sys:user:list']);
      const user = await createActiveUser(app, { roles: ['user_lister'] });
      app.clock.advanceDays(91);

      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        accessToken: expect.any(String),
        tempUser: true,
        forceUpdatePassword: true,
        tip: expect.stringMatching(/过期.*修改密码/),
        mfaRequired: false,
        mfaToken: null,
        mfaSetupRequired: false,
      });
      const temp = res.body.data!.accessToken;
      const session = await sessionOf(app, temp);
      expect(session).toMatchObject({ userId: user.id, temp: 1, kickout: 0 });
      expect(session.expireAt - session.loginTime).toBe(5 * MINUTE); // tempSessionExpireMinutes default
      expect((await app.logRows(user.username)).at(-1).status).toBe('success');

      const me = await app.post('/sys/me/info', {}, { token: temp });
      expect(me.body).toMatchObject({ success: true, data: { id: user.id, tempUser: true } });
      expect((await app.post('/sys/strategy/user/rules', {}, { token: temp })).body.data).toEqual(
        PASSWORD_RULE_DEFAULTS,
      );
      const list = await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token: temp });
      expect(list.status).toBe(403);
      expect(list.body).toEqual(failure('TEMP_TOKEN_FORBIDDEN', '请先修改密码'));

      expect((await changePassword(app, temp, user.password, 'Renewed#Pass1')).body).toEqual(OK_NO_DATA);
      expect(epochMs((await app.userRow(user.id)).password_update_time)).toBe(app.clock.nowMs());
      const normal = await app.login(user.username, 'Renewed#Pass1');
      expect(normal.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
      expect(normal.body.data!.tip).not.toContain('过期');
      expect(await sessionOf(app, normal.body.data!.accessToken)).toMatchObject({ temp: 0 });
      const listed = await app.post(
        '/sys/user/list',
        { pageNum: 1, pageSize: 10 },
        { token: normal.body.data!.accessToken },
      );
      expect(listed.body.success).toBe(true);
    });

    it('LoginStrategyWhenExpire 1: a normal login whose tip asks for a new password', async () => {
      await app.saveLoginStrategy({ loginStrategyWhenExpire: 1 });
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const user = await createActiveUser(app);
      app.clock.advanceDays(91);
      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
      expect(res.body.data!.tip).toMatch(/过期.*修改密码/);
      expect(await sessionOf(app, res.body.data!.accessToken)).toMatchObject({ temp: 0 });
    });

    it('PasswordExpireDays 0 never expires, even ten years on', async () => {
      await app.saveUserStrategy({ passwordExpireDays: 0 });
      const user = await createActiveUser(app);
      app.clock.advanceDays(3653);
      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
      expect(res.body.data!.tip).not.toContain('过期');
    });

    it('ForceUpdatePassword true: an initial password gets a temporary token until it is changed', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: true });
      await createRole(app, 'user_lister', ['sys:user:list']);
      const user = await createUser(app, { roles: ['user_lister'] });
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toEqual({
        accessToken: expect.any(String),
        tempUser: true,
        forceUpdatePassword: true,
        tip: INITIAL_FORCE_TIP,
        mfaRequired: false,
        mfaToken: null,
        mfaSetupRequired: false,
      });
      const temp = res.body.data!.accessToken;
      expect(await sessionOf(app, temp)).toMatchObject({ userId: user.id, temp: 1 });
      expect((await app.post('/sys/me/info', {}, { token: temp })).body.data).toMatchObject({ tempUser: true });
      expect((await app.post('/sys/user/list', {}, { token: temp })).body).toEqual(
        failure('TEMP_TOKEN_FORBIDDEN', '请先修改密码'),
      );

      expect((await changePassword(app, temp, user.password, 'First#Change1')).body).toEqual(OK_NO_DATA);
      const normal = await app.login(user.username, 'First#Change1');
      expect(normal.body.data).toMatchObject({ tempUser: false, forceUpdatePassword: false });
      expect(normal.body.data!.tip).not.toContain('初始密码');
      expect((await app.post('/sys/user/list', {}, { token: normal.body.data!.accessToken })).body.success).toBe(true);
    });

    it('ForceUpdatePassword false: an initial password gets a normal token and a tip', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: false });
      await createRole(app, 'user_lister', ['sys:user:list']);
      const user = await createUser(app, { roles: ['user_lister'] });
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toEqual({
        accessToken: expect.any(String),
        tempUser: false,
        forceUpdatePassword: false,
        tip: INITIAL_TIP,
        mfaRequired: false,
        mfaToken: null,
        mfaSetupRequired: false,
      });
      expect(await sessionOf(app, res.body.data!.accessToken)).toMatchObject({ temp: 0 });
      expect((await app.post('/sys/user/list', {}, { token: res.body.data!.accessToken })).body.success).toBe(true);
    });

    it('A temporary token lives tempSessionExpireMinutes and is never renewed', async () => {
      await app.saveLoginStrategy({ tempSessionExpireMinutes: 7 });
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app);
      const temp = (await app.login(user.username, user.password)).body.data!.accessToken;
      const session = await sessionOf(app, temp);
      expect(session).toMatchObject({ temp: 1 });
      expect(session.expireAt - session.loginTime).toBe(7 * MINUTE);

      // Past half its validity: a normal token would be renewed here, a temporary one is not.
      app.clock.advanceMinutes(4);
      expect((await app.post('/sys/me/info', {}, { token: temp })).body.success).toBe(true);
      app.clock.advance(3 * MINUTE - 1000);
      expect((await app.post('/sys/me/info', {}, { token: temp })).body.success).toBe(true);
      app.clock.advance(2000);
      const expired = await app.post('/sys/me/info', {}, { token: temp });
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual(NOT_LOGGED_IN);
      expect((await changePassword(app, temp, user.password, 'Too#Late1')).body).toEqual(NOT_LOGGED_IN);
    });
  });
});
