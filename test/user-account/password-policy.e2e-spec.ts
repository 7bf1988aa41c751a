import { randomInt } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import { failure, OK_NO_DATA } from '../support/envelopes';
import { createUser, TestUser } from '../support/factories';
import { USER_DEFAULTS } from '../support/settings';
import { startApp, TestApp } from '../support/test-app';

/*
 * The password part: passwordHistoryCount (sys_password_history), rejectCommonPasswords
 * (the bundled list) and rejectAccountInPassword, checked after the six complexity rules on a user's own
 * change (/sys/me/pass/update, the first-login and expired forced change included), in the order
 * PASSWORD_CONTAINS_ACCOUNT → PASSWORD_TOO_COMMON → PASSWORD_REUSED.
 */

const REUSED = (n: number) => failure('PASSWORD_REUSED', `新密码不能与最近${n}次使用的密码相同`);
const CONTAINS_ACCOUNT = failure('PASSWORD_CONTAINS_ACCOUNT', '密码不能包含账号、手机号或邮箱');
const TOO_COMMON = failure('PASSWORD_TOO_COMMON', '密码过于常见,请更换');

/** Complexity that lets list entries such as woaini1314 through the six rules. */
const LENIENT = { minPasswordLength: 2, includeSymbol: false, includeLowerCase: false, includeNumber: false };

/** A random name of `length` letters and digits starting with a letter (a user name or e-mail local part). */
const randomName = (length: number) =>
  'abcdefghjkmnpqrstuvwxyz'[randomInt(23)] +
  Array.from({ length: length - 1 }, () => 'abcdefghjkmnpqrstuvwxyz23456789'[randomInt(31)]).join('');

describe.each(BACKENDS)('Password policy on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterEach(() => app.saveUserStrategy(USER_DEFAULTS));
  afterAll(() => app.close());

  /** One user's session and their password as it is now. */
  async function loggedIn(user: TestUser) {
    const token = await app.token(user.username, user.password);
    let current = user.password;
    return {
      token,
      get current() {
        return current;
      },
      async change(next: string) {
        const res = await app.post(
          '/sys/me/pass/update',
          {
            oldPass: await app.encrypt(current),
            newPass: await app.encrypt(next),
          },
          { token },
        );
        if (res.body.success) current = next;
        return res;
      },
    };
  }

  const historyRows = (userId: string): Promise<{ password_hash: string }[]> =>
    app.db.query('SELECT password_hash FROM sys_password_history WHERE user_id = ? ORDER BY id', [userId]);

  describe('passwordHistoryCount', () => {
    it('N refuses the current password and the N − 1 before it, and takes back the one N + 1 back', async () => {
      await app.saveUserStrategy({ passwordHistoryCount: 3 });
      const user = await createUser(app, { password: 'Zeroth#0a' });
      const me = await loggedIn(user);
      for (const next of ['First#1a', 'Second#2a', 'Third#3a'])
        expect((await me.change(next)).body).toEqual(OK_NO_DATA);
      // Now: Third (current), Second, First are the last 3; Zeroth is 4 back.
      for (const reused of ['Third#3a', 'Second#2a', 'First#1a']) {
        const res = await me.change(reused);
        expect({ reused, status: res.status, body: res.body }).toEqual({ reused, status: 400, body: REUSED(3) });
      }
      expect(me.current).toBe('Third#3a');
      expect((await me.change('Zeroth#0a')).body).toEqual(OK_NO_DATA);
      // And First, now 4 back, is free again; Third is still within 3.
      expect((await me.change('Third#3a')).body).toEqual(REUSED(3));
      expect((await me.change('First#1a')).body).toEqual(OK_NO_DATA);
      expect((await app.login(user.username, 'First#1a')).body.success).toBe(true);
    });

    it('N = 1 refuses only the current password; 0 lets it be set again', async () => {
      const user = await createUser(app, { password: 'Same#pass1' });
      const me = await loggedIn(user);
      expect((await me.change('Same#pass1')).body).toEqual(OK_NO_DATA);
      await app.saveUserStrategy({ passwordHistoryCount: 1 });
      const res = await me.change('Same#pass1');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(REUSED(1));
      // The refusal changed nothing: the session lives and the password is as it was.
      expect((await app.post('/sys/me/info', {}, { token: me.token })).body.success).toBe(true);
      expect((await me.change('Other#pass1')).body).toEqual(OK_NO_DATA);
      expect((await me.change('Same#pass1')).body).toEqual(OK_NO_DATA);
    });

    it('keeps N − 1 hashes per user (BCrypt, never the password), pruned at each change; 0 keeps none', async () => {
      await app.saveUserStrategy({ passwordHistoryCount: 3 });
      const user = await createUser(app, { password: 'Start#000a' });
      const me = await loggedIn(user);
      for (let i = 1; i <= 5; i++) await me.change(`Step#00${i}a`);
      const rows = await historyRows(user.id);
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.password_hash).toMatch(/^\$2[aby]\$\d\d\$/);
      expect(JSON.stringify(rows)).not.toContain('Step#');
      await app.saveUserStrategy({ passwordHistoryCount: 2 });
      await me.change('Step#006a');
      expect(await historyRows(user.id)).toHaveLength(1);
      await app.saveUserStrategy({ passwordHistoryCount: 0 });
      await me.change('Step#007a');
      expect(await historyRows(user.id)).toEqual([]);
    });

    it("an administrator's reset joins the history, and the forced first-login change is checked against it", async () => {
      await app.saveUserStrategy({ passwordHistoryCount: 3, forceUpdatePassword: true });
      const user = await createUser(app, { password: 'Initial#1a' });
      const first = await app.login(user.username, 'Initial#1a');
      expect(first.body.data).toMatchObject({ tempUser: true, forceUpdatePassword: true });
      const change = async (token: string, oldPass: string, newPass: string) =>
        app.post(
          '/sys/me/pass/update',
          {
            oldPass: await app.encrypt(oldPass),
            newPass: await app.encrypt(newPass),
          },
          { token },
        );
      // The forced change of an initial password goes the same way: it may not keep the initial one.
      expect((await change(first.body.data!.accessToken, 'Initial#1a', 'Initial#1a')).body).toEqual(REUSED(3));
      expect((await change(first.body.data!.accessToken, 'Initial#1a', 'Mine#0001a')).body).toEqual(OK_NO_DATA);

      const reset = await app.admin('/sys/user/resetPass', { id: user.id });
      const generated: string = reset.body.data.password;
      const temp = await app.login(user.username, generated);
      expect(temp.body.data).toMatchObject({ tempUser: true });
      // Current: the generated one; before it Mine#0001a and Initial#1a.
      expect((await change(temp.body.data!.accessToken, generated, 'Mine#0001a')).body).toEqual(REUSED(3));
      expect((await change(temp.body.data!.accessToken, generated, 'Initial#1a')).body).toEqual(REUSED(3));
      expect((await change(temp.body.data!.accessToken, generated, 'Mine#0002a')).body).toEqual(OK_NO_DATA);
    });
  });

  describe('rejectCommonPasswords', () => {
    it('refuses a password on the bundled list whatever its case, Chinese patterns included', async () => {
      await app.saveUserStrategy({ ...LENIENT, rejectCommonPasswords: true });
      const me = await loggedIn(await createUser(app, { password: 'Start#000a' }));
      for (const common of [
        'WoAiNi1314',
        'woaini1314',
        'QQ123456',
        'Password1',
        '1QAZ2WSX',
        '19880808',
        'Woaini@123',
      ]) {
        const res = await me.change(common);
        expect({ common, status: res.status, body: res.body }).toEqual({ common, status: 400, body: TOO_COMMON });
      }
      expect((await me.change('WoAiNi1314+rare')).body).toEqual(OK_NO_DATA);
    });

    it('takes a listed password while the rule is off', async () => {
      await app.saveUserStrategy(LENIENT);
      const me = await loggedIn(await createUser(app, { password: 'Start#000a' }));
      expect((await me.change('WoAiNi1314')).body).toEqual(OK_NO_DATA);
    });
  });

  describe('rejectAccountInPassword', () => {
    /** A user with the given user name and e-mail local part (and a mobile of its own), created by the administrator. */
    async function userWith(username: string, emailLocal: string, mobile: string): Promise<TestUser> {
      const email = `${emailLocal}@example.com`;
      const res = await app.admin('/sys/user/create', {
        username,
        name: 'Account parts',
        mobile,
        email,
        password: await app.encrypt('Start#000a'),
      });
      expect(res.body.success).toBe(true);
      return { id: res.body.data.id, username, password: 'Start#000a', mobile, email };
    }
    const mobile = () => `137${String(randomInt(1e8)).padStart(8, '0')}`;

    it('values of 3 characters or more count, whatever the case: user name, mobile, e-mail before @', async () => {
      await app.saveUserStrategy({ rejectAccountInPassword: true });
      const name = randomName(3);
      const local = randomName(3);
      const user = await userWith(name, local, mobile());
      const me = await loggedIn(user);
      for (const refused of [`Pw#1${name.toUpperCase()}`, `${local.toUpperCase()}#pw1`, `x#${user.mobile}`]) {
        const res = await me.change(refused);
        expect({ refused, status: res.status, body: res.body }).toEqual({
          refused,
          status: 400,
          body: CONTAINS_ACCOUNT,
        });
      }
      // Parts of the values are not the values.
      expect((await me.change(`P#1${name.slice(0, 2)}${user.mobile.slice(0, 6)}`)).body).toEqual(OK_NO_DATA);
    });

    it('a user name or e-mail local part of 2 characters does not count', async () => {
      await app.saveUserStrategy({ rejectAccountInPassword: true });
      const name = randomName(2);
      const local = randomName(2);
      const me = await loggedIn(await userWith(name, local, mobile()));
      expect((await me.change(`Pw#1${name}${local}`)).body).toEqual(OK_NO_DATA);
      expect((await me.change(`Pw#2${name.toUpperCase()}`)).body).toEqual(OK_NO_DATA);
    });

    it('is not checked while off', async () => {
      const name = randomName(4);
      const me = await loggedIn(await userWith(name, randomName(4), mobile()));
      expect((await me.change(`Pw#1${name}`)).body).toEqual(OK_NO_DATA);
    });
  });

  it('rule order: the six rules, then account, common list, history; each refusal changes nothing', async () => {
    // woaini1314 is on the list, is the local part of the user's e-mail and will be their current password.
    await app.saveUserStrategy({ ...LENIENT, includeNumber: true });
    const username = randomName(8);
    const res = await app.admin('/sys/user/create', {
      username,
      name: 'Order',
      email: `woaini1314@${randomName(8).toLowerCase()}.example.com`,
      password: await app.encrypt('woaini1314'),
    });
    // An administrator's create does not apply the own-change checks (docs/policies.md); the six rules it does.
    expect(res.body.success).toBe(true);
    const userId: string = res.body.data.id;
    const token = await app.token(username, 'woaini1314');
    const change = async () =>
      (
        await app.post(
          '/sys/me/pass/update',
          {
            oldPass: await app.encrypt('woaini1314'),
            newPass: await app.encrypt('woaini1314'),
          },
          { token },
        )
      ).body;

    await app.saveUserStrategy({
      includeSymbol: true,
      rejectAccountInPassword: true,
      rejectCommonPasswords: true,
      passwordHistoryCount: 1,
    });
    expect(await change()).toEqual(failure('PASSWORD_NEEDS_SYMBOL', '密码应包含特殊字符'));
    await app.saveUserStrategy({ includeSymbol: false });
    expect(await change()).toEqual(CONTAINS_ACCOUNT);
    await app.saveUserStrategy({ rejectAccountInPassword: false });
    expect(await change()).toEqual(TOO_COMMON);
    await app.saveUserStrategy({ rejectCommonPasswords: false });
    expect(await change()).toEqual(REUSED(1));
    expect((await app.userRow(userId)).password_update_time).toBeNull();
    await app.saveUserStrategy({ passwordHistoryCount: 0 });
    expect(await change()).toEqual(OK_NO_DATA);
  });

  it('the rules endpoint reports the three checks to any logged-in user, temporary tokens too', async () => {
    await app.saveUserStrategy({
      passwordHistoryCount: 5,
      rejectCommonPasswords: true,
      rejectAccountInPassword: true,
      forceUpdatePassword: true,
    });
    const user = await createUser(app);
    const temp = (await app.login(user.username, user.password)).body.data!;
    expect(temp.tempUser).toBe(true);
    const rules = await app.post('/sys/strategy/user/rules', {}, { token: temp.accessToken });
    expect(rules.body.data).toEqual({
      minPasswordLength: 6,
      maxPasswordLength: 20,
      includeLowerCase: true,
      includeUpperCase: false,
      includeNumber: true,
      includeSymbol: true,
      passwordHistoryCount: 5,
      rejectCommonPasswords: true,
      rejectAccountInPassword: true,
    });
  });
});
