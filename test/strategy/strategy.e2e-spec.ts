import { EventEmitter2 } from '@nestjs/event-emitter';

import { fieldLabel } from '../../src/common/texts';
import { SysPropsChangedEvent } from '../../src/strategy/strategy.types';
import { BACKENDS, mariadbRedis } from '../support/backends';
import { FORBIDDEN, KICKED_OUT, NOT_LOGGED_IN, OK_NO_DATA, PASSWORD_NEEDS_UPPER } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { LOGIN_DEFAULTS, saveSettings, USER_DEFAULTS } from '../support/settings';
import { startApp, TestApp, tokenKey } from '../support/test-app';
import { sleep } from '../support/wait';

const LOGIN = {
  info: '/sys/strategy/login/info',
  save: '/sys/strategy/login/save',
  group: 'user_login_strategy',
} as const;
const USER = { info: '/sys/strategy/user/info', save: '/sys/strategy/user/save', group: 'user_strategy' } as const;

describe.each(BACKENDS)('strategy settings on $name', (backend) => {
  let app: TestApp;
  const changed: SysPropsChangedEvent[] = [];

  beforeAll(async () => {
    app = await startApp(backend);
    app.app.get(EventEmitter2).on(SysPropsChangedEvent.NAME, (e: SysPropsChangedEvent) => changed.push(e));
  });
  afterAll(() => app.close());

  const info = async (which: typeof LOGIN | typeof USER) => {
    const res = await app.admin(which.info);
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    return res.body.data;
  };
  /** The stored rows of a group, as stored. */
  const rowsOf = async (group: string): Promise<Record<string, string>> => {
    const rows = await app.db.query(
      'SELECT prop_key, prop_value FROM sys_props WHERE prop_group = ? ORDER BY prop_key',
      [group],
    );
    return Object.fromEntries(rows.map((r: any) => [r.prop_key, r.prop_value]));
  };
  /** Settings back to the defaults, so that every test starts from them. */
  const reset = () => saveSettings(app);

  describe('info', () => {
    it('answers exactly the fields and defaults before anything is saved', async () => {
      expect(await rowsOf(LOGIN.group)).toEqual({});
      expect(await rowsOf(USER.group)).toEqual({});
      const login = await app.admin(LOGIN.info);
      expect(login.status).toBe(200);
      expect(login.body).toEqual({ success: true, code: 'OK', message: '操作成功', data: LOGIN_DEFAULTS });
      const user = await app.admin(USER.info);
      expect(user.status).toBe(200);
      expect(user.body).toEqual({ success: true, code: 'OK', message: '操作成功', data: USER_DEFAULTS });
    });

    it('/sys/strategy/user/rules gives the complexity fields and the own-change checks to any logged-in user', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      const res = await app.post('/sys/strategy/user/rules', {}, { token });
      expect(res.body.data).toEqual({
        minPasswordLength: 6,
        maxPasswordLength: 20,
        includeLowerCase: true,
        includeUpperCase: false,
        includeNumber: true,
        includeSymbol: true,
        passwordHistoryCount: 0,
        rejectCommonPasswords: false,
        rejectAccountInPassword: false,
      });
    });
  });

  describe('permissions', () => {
    let readerToken: string;
    let nobodyToken: string;

    beforeAll(async () => {
      await createRole(app, 'strategy_reader', ['sys:strategy:login:info', 'sys:strategy:user:info']);
      const reader = await createUser(app, { roles: ['strategy_reader'] });
      const nobody = await createUser(app, { roles: [] });
      readerToken = await app.token(reader.username, reader.password);
      nobodyToken = await app.token(nobody.username, nobody.password);
    });

    it.each([LOGIN, USER])('$info needs its info permission', async (which) => {
      const refused = await app.post(which.info, {}, { token: nobodyToken });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(FORBIDDEN);
      const allowed = await app.post(which.info, {}, { token: readerToken });
      expect(allowed.body).toMatchObject({ success: true, code: 'OK' });
    });

    it.each([LOGIN, USER])('$save needs its save permission; reading is not enough', async (which) => {
      const before = await info(which);
      const body = which === LOGIN ? { sessionExpireMinutes: 44 } : { minPasswordLength: 7 };
      for (const token of [readerToken, nobodyToken]) {
        const res = await app.post(which.save, body, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
      expect(await info(which)).toEqual(before);
    });

    it('each save permission opens its own group only', async () => {
      await createRole(app, 'login_saver', ['sys:strategy:login:save']);
      const saver = await createUser(app, { roles: ['login_saver'] });
      const token = await app.token(saver.username, saver.password);
      expect((await app.post(LOGIN.save, { lockMinutes: 60 }, { token })).body).toMatchObject({
        success: true,
        code: 'OK',
      });
      const otherGroup = await app.post(USER.save, { minPasswordLength: 7 }, { token });
      expect(otherGroup.body.code).toBe('FORBIDDEN');
      expect(otherGroup.status).toBe(403);
      expect(otherGroup.body).toEqual(FORBIDDEN);
      const read = await app.post(LOGIN.info, {}, { token });
      expect(read.body.code).toBe('FORBIDDEN');
      expect(read.body).toEqual(FORBIDDEN);
      expect((await info(LOGIN)).lockMinutes).toBe(60);
      expect((await info(USER)).minPasswordLength).toBe(6);
      await reset();
    });

    it('without a token every strategy operation is NOT_LOGGED_IN', async () => {
      for (const path of [LOGIN.info, LOGIN.save, USER.info, USER.save, '/sys/strategy/user/rules']) {
        const res = await app.post(path, {});
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('NOT_LOGGED_IN');
        expect({ path, body: res.body }).toEqual({ path, body: NOT_LOGGED_IN });
      }
    });
  });

  describe('save', () => {
    beforeEach(reset);

    it('a partial login-strategy save changes only the given fields, and stores them in sys_props', async () => {
      const res = await app.admin(LOGIN.save, { sessionExpireMinutes: 45, sendMsgWhenErrorLogin: 'email,sms' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect(await info(LOGIN)).toEqual({
        ...LOGIN_DEFAULTS,
        sessionExpireMinutes: 45,
        sendMsgWhenErrorLogin: 'email,sms',
      });
      expect(await rowsOf(LOGIN.group)).toMatchObject({
        sessionExpireMinutes: '45',
        sendMsgWhenErrorLogin: 'email,sms',
      });

      await app.saveLoginStrategy({ multiOnline: false, loginStrategyWhenExpire: 1 });
      expect(await info(LOGIN)).toEqual({
        ...LOGIN_DEFAULTS,
        sessionExpireMinutes: 45,
        sendMsgWhenErrorLogin: 'email,sms',
        multiOnline: false,
        loginStrategyWhenExpire: 1,
      });
      expect(await rowsOf(LOGIN.group)).toMatchObject({
        multiOnline: 'false',
        loginStrategyWhenExpire: '1',
        sessionExpireMinutes: '45',
      });
      // The other group is untouched.
      expect(await info(USER)).toEqual(USER_DEFAULTS);
    });

    it('a partial user-strategy save changes only the given fields, and stores them in sys_props', async () => {
      await app.saveUserStrategy({ minPasswordLength: 8, includeUpperCase: true });
      expect(await info(USER)).toEqual({ ...USER_DEFAULTS, minPasswordLength: 8, includeUpperCase: true });
      expect(await rowsOf(USER.group)).toMatchObject({ minPasswordLength: '8', includeUpperCase: 'true' });
      await app.saveUserStrategy({ passwordExpireDays: 0 });
      expect(await info(USER)).toEqual({
        ...USER_DEFAULTS,
        minPasswordLength: 8,
        includeUpperCase: true,
        passwordExpireDays: 0,
      });
      expect(await info(LOGIN)).toEqual(LOGIN_DEFAULTS);
    });

    it('an empty save changes nothing', async () => {
      await app.saveLoginStrategy({});
      await app.saveUserStrategy({});
      expect(await info(LOGIN)).toEqual(LOGIN_DEFAULTS);
      expect(await info(USER)).toEqual(USER_DEFAULTS);
    });

    it('takes every channel list of email, sms and site, and the empty list', async () => {
      for (const channels of ['email', 'sms', 'site', 'email,sms,site', 'site,email', '']) {
        await app.saveLoginStrategy({ sendMsgWhenErrorLogin: channels, sendMsgWhenErrorIp: channels });
        expect(await info(LOGIN)).toMatchObject({ sendMsgWhenErrorLogin: channels, sendMsgWhenErrorIp: channels });
      }
    });

    it('takes the limits of the password length: 0 as no maximum, 72 as the largest, max equal to min', async () => {
      await app.saveUserStrategy({ maxPasswordLength: 0 });
      expect((await info(USER)).maxPasswordLength).toBe(0);
      await app.saveUserStrategy({ minPasswordLength: 30 });
      expect(await info(USER)).toMatchObject({ minPasswordLength: 30, maxPasswordLength: 0 });
      await app.saveUserStrategy({ minPasswordLength: 12, maxPasswordLength: 72 });
      expect(await info(USER)).toMatchObject({ minPasswordLength: 12, maxPasswordLength: 72 });
      await app.saveUserStrategy({ minPasswordLength: 12, maxPasswordLength: 12 });
      expect(await info(USER)).toMatchObject({ minPasswordLength: 12, maxPasswordLength: 12 });
    });

    it('Takes the account fields at their bounds, reports them in info, and announces the change', async () => {
      changed.length = 0;
      await app.saveUserStrategy({
        passwordHistoryCount: 24,
        rejectCommonPasswords: true,
        rejectAccountInPassword: true,
        dormantDays: 3650,
      });
      expect(await info(USER)).toEqual({
        ...USER_DEFAULTS,
        passwordHistoryCount: 24,
        rejectCommonPasswords: true,
        rejectAccountInPassword: true,
        dormantDays: 3650,
      });
      expect(await rowsOf(USER.group)).toMatchObject({
        passwordHistoryCount: '24',
        rejectCommonPasswords: 'true',
        rejectAccountInPassword: 'true',
        dormantDays: '3650',
      });
      expect(changed.filter((e) => !e.remote).map((e) => e.group)).toEqual([USER.group]);
      await app.saveUserStrategy({ passwordHistoryCount: 0, rejectCommonPasswords: false, dormantDays: 0 });
      expect(await info(USER)).toEqual({ ...USER_DEFAULTS, rejectAccountInPassword: true });
    });

    // A bad field fails the whole save and nothing changes; the message names the field.
    const BAD_LOGIN_SAVES: [string, Record<string, unknown>, string][] = [
      ['an integer sent as a string', { sessionExpireMinutes: '30' }, 'sessionExpireMinutes'],
      ['a fraction', { lockMinutes: 1.5 }, 'lockMinutes'],
      ['1 for a boolean', { multiOnline: 1 }, 'multiOnline'],
      ['"true" for a boolean', { bindIp: 'true' }, 'bindIp'],
      ['sessionExpireMinutes 0', { sessionExpireMinutes: 0 }, 'sessionExpireMinutes'],
      ['a negative tempSessionExpireMinutes', { tempSessionExpireMinutes: -5 }, 'tempSessionExpireMinutes'],
      ['maxFailureTimes 0', { maxFailureTimes: 0 }, 'maxFailureTimes'],
      ['maxFailureInterval 0', { maxFailureInterval: 0 }, 'maxFailureInterval'],
      ['loginStrategyWhenExpire 4', { loginStrategyWhenExpire: 4 }, 'loginStrategyWhenExpire'],
      ['loginStrategyWhenExpire 0', { loginStrategyWhenExpire: 0 }, 'loginStrategyWhenExpire'],
      ['an unknown field', { sessionExpire: 30 }, 'sessionExpire'],
      ['null', { bindIp: null }, 'bindIp'],
      ['null for an integer', { lockMinutes: null }, 'lockMinutes'],
      ['an unknown channel', { sendMsgWhenErrorLogin: 'email,fax' }, 'sendMsgWhenErrorLogin'],
      ['only an unknown channel', { sendMsgWhenErrorIp: 'fax' }, 'sendMsgWhenErrorIp'],
      ['channels separated by semicolons', { sendMsgWhenErrorLogin: 'email;sms' }, 'sendMsgWhenErrorLogin'],
      ['an empty channel in the list', { sendMsgWhenErrorLogin: 'email,,sms' }, 'sendMsgWhenErrorLogin'],
      ['channels as an array', { sendMsgWhenErrorIp: ['email'] }, 'sendMsgWhenErrorIp'],
      ['a number for channels', { sendMsgWhenErrorIp: 1 }, 'sendMsgWhenErrorIp'],
    ];

    it.each(BAD_LOGIN_SAVES)(
      'refuses %s in the login strategy, and keeps every other field of that save out too',
      async (_label, bad, field) => {
        const before = await rowsOf(LOGIN.group);
        changed.length = 0;
        // A good field next to the bad one: it must not be saved either.
        const res = await app.admin(LOGIN.save, { maxFailureTimes: 9, ...bad });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining(fieldLabel(field, 'zh')),
          data: namesFields(field),
        });
        expect(await info(LOGIN)).toEqual(LOGIN_DEFAULTS);
        expect(await rowsOf(LOGIN.group)).toEqual(before);
        expect(changed.filter((e) => !e.remote)).toEqual([]);
      },
    );

    const BAD_USER_SAVES: [string, Record<string, unknown>, string][] = [
      ['an integer sent as a string', { minPasswordLength: '8' }, 'minPasswordLength'],
      ['1 for a boolean', { includeSymbol: 1 }, 'includeSymbol'],
      ['"false" for a boolean', { forceUpdatePassword: 'false' }, 'forceUpdatePassword'],
      ['a negative passwordExpireDays', { passwordExpireDays: -1 }, 'passwordExpireDays'],
      ['a negative expireNotifyDays', { expireNotifyDays: -1 }, 'expireNotifyDays'],
      ['maxPasswordLength 73 (BCrypt reads 72 bytes)', { maxPasswordLength: 73 }, 'maxPasswordLength'],
      ['minPasswordLength 73', { minPasswordLength: 73, maxPasswordLength: 0 }, 'minPasswordLength'],
      ['maxPasswordLength below the saved minPasswordLength', { maxPasswordLength: 5 }, 'maxPasswordLength'],
      [
        'maxPasswordLength below the minPasswordLength of the same save',
        { minPasswordLength: 10, maxPasswordLength: 8 },
        'maxPasswordLength',
      ],
      ['minPasswordLength above the saved maxPasswordLength', { minPasswordLength: 21 }, 'minPasswordLength'],
      ['an unknown field', { minLength: 8 }, 'minLength'],
      ['null', { includeNumber: null }, 'includeNumber'],
      // The checks of a user's own change.
      ['passwordHistoryCount 25', { passwordHistoryCount: 25 }, 'passwordHistoryCount'],
      ['a negative passwordHistoryCount', { passwordHistoryCount: -1 }, 'passwordHistoryCount'],
      ['a fractional passwordHistoryCount', { passwordHistoryCount: 2.5 }, 'passwordHistoryCount'],
      ['passwordHistoryCount as a string', { passwordHistoryCount: '5' }, 'passwordHistoryCount'],
      ['1 for rejectCommonPasswords', { rejectCommonPasswords: 1 }, 'rejectCommonPasswords'],
      ['"true" for rejectAccountInPassword', { rejectAccountInPassword: 'true' }, 'rejectAccountInPassword'],
      ['null for rejectAccountInPassword', { rejectAccountInPassword: null }, 'rejectAccountInPassword'],
      ['dormantDays 3651', { dormantDays: 3651 }, 'dormantDays'],
      ['a negative dormantDays', { dormantDays: -1 }, 'dormantDays'],
      ['dormantDays as a string', { dormantDays: '90' }, 'dormantDays'],
    ];

    it.each(BAD_USER_SAVES)(
      'refuses %s in the user strategy, and keeps every other field of that save out too',
      async (_label, bad, field) => {
        const before = await rowsOf(USER.group);
        changed.length = 0;
        const res = await app.admin(USER.save, { expireNotifyDays: 3, ...bad });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining(fieldLabel(field, 'zh')),
          data: namesFields(field),
        });
        expect(await info(USER)).toEqual(USER_DEFAULTS);
        expect(await rowsOf(USER.group)).toEqual(before);
        expect(changed.filter((e) => !e.remote)).toEqual([]);
      },
    );

    it('names the field in English too', async () => {
      const res = await app.post(
        LOGIN.save,
        { loginStrategyWhenExpire: 4 },
        {
          token: await app.adminToken(),
          ip: '10.9.9.9',
          headers: { 'accept-language': 'en' },
        },
      );
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.message).toMatch(/^When the password has expired must be/);
    });
  });

  describe('form-encoded saves', () => {
    beforeEach(reset);

    const form = async (path: string, raw: string) =>
      app.post(path, undefined, {
        raw,
        contentType: 'application/x-www-form-urlencoded',
        token: await app.adminToken(),
        ip: '10.9.9.9',
      });

    it('a form-encoded login-strategy save is typed like JSON', async () => {
      const res = await form(LOGIN.save, 'sessionExpireMinutes=45&multiOnline=false&sendMsgWhenErrorIp=email%2Csite');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      const data = await info(LOGIN);
      expect(data).toEqual({
        ...LOGIN_DEFAULTS,
        sessionExpireMinutes: 45,
        multiOnline: false,
        sendMsgWhenErrorIp: 'email,site',
      });
      expect(typeof data.sessionExpireMinutes).toBe('number');
      expect(typeof data.multiOnline).toBe('boolean');
      expect(await rowsOf(LOGIN.group)).toMatchObject({ sessionExpireMinutes: '45', multiOnline: 'false' });
    });

    it('a form-encoded user-strategy save is typed like JSON', async () => {
      const res = await form(USER.save, 'minPasswordLength=8&includeUpperCase=true&passwordExpireDays=0');
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      expect(await info(USER)).toEqual({
        ...USER_DEFAULTS,
        minPasswordLength: 8,
        includeUpperCase: true,
        passwordExpireDays: 0,
      });
    });

    it.each([
      ['a word for an integer', 'sessionExpireMinutes=abc', 'sessionExpireMinutes'],
      ['a fraction', 'sessionExpireMinutes=4.5', 'sessionExpireMinutes'],
      ['out of range', 'sessionExpireMinutes=0', 'sessionExpireMinutes'],
      ['a word for a boolean', 'multiOnline=maybe', 'multiOnline'],
      ['a field given twice', 'sessionExpireMinutes=45&sessionExpireMinutes=50', 'sessionExpireMinutes'],
      ['an unknown field', 'lockMinutes=60&bogus=1', 'bogus'],
      ['an unknown channel', 'lockMinutes=60&sendMsgWhenErrorLogin=fax', 'sendMsgWhenErrorLogin'],
    ])('a form-encoded save with %s is refused and changes nothing', async (_label, raw, field) => {
      const res = await form(LOGIN.save, raw);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining(fieldLabel(field, 'zh')),
        data: namesFields(field),
      });
      expect(await info(LOGIN)).toEqual(LOGIN_DEFAULTS);
    });
  });

  describe('a save takes effect at once', () => {
    beforeEach(reset);
    afterAll(reset);

    const sessionOf = (token: string): Promise<any> => app.sessionOf(token);

    it("sessionExpireMinutes sets the expireAt of the next login's session", async () => {
      const user = await createUser(app);
      const before = await sessionOf(await app.token(user.username, user.password));
      expect(before.expireAt - before.loginTime).toBe(30 * 60_000);
      await app.saveLoginStrategy({ sessionExpireMinutes: 45 });
      const now = app.clock.nowMs();
      const token = await app.token(user.username, user.password);
      expect(await sessionOf(token)).toMatchObject({ loginTime: now, expireAt: now + 45 * 60_000, temp: 0 });
      expect(await app.store.ttl(tokenKey(token))).toBeGreaterThan(44 * 60_000);
    });

    it('tempSessionExpireMinutes and forceUpdatePassword shape the next first login', async () => {
      const user = await createUser(app);
      await app.saveUserStrategy({ forceUpdatePassword: true });
      await app.saveLoginStrategy({ tempSessionExpireMinutes: 7 });
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ tempUser: true, forceUpdatePassword: true });
      const session = await sessionOf(res.body.data!.accessToken);
      expect(session).toMatchObject({ temp: 1, expireAt: session.loginTime + 7 * 60_000 });
    });

    it('multiOnline = false kicks the earlier session out at the next login', async () => {
      const user = await createUser(app);
      const first = await app.token(user.username, user.password);
      await app.saveLoginStrategy({ multiOnline: false });
      await app.token(user.username, user.password);
      const res = await app.post('/sys/me/info', {}, { token: first });
      expect(res.body).toMatchObject({ success: false, code: 'KICKED_OUT' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(KICKED_OUT);
    });

    it('the complexity rules of a user-strategy save apply to the next password change and show in the rules', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      await app.saveUserStrategy({ minPasswordLength: 12, includeUpperCase: true });
      const rules = await app.post('/sys/strategy/user/rules', {}, { token });
      expect(rules.body.data).toMatchObject({ minPasswordLength: 12, includeUpperCase: true });
      const change = async (newPass: string) =>
        app.post(
          '/sys/me/pass/update',
          {
            oldPass: await app.encrypt(user.password),
            newPass: await app.encrypt(newPass),
          },
          { token },
        );
      expect((await change('Short#1a')).body).toMatchObject({
        code: 'PASSWORD_TOO_SHORT',
        message: '密码长度应大于12',
      });
      const noUpper = await change('lowercase#only1');
      expect(noUpper.body.code).toBe('PASSWORD_NEEDS_UPPER');
      expect(noUpper.body).toEqual(PASSWORD_NEEDS_UPPER);
      expect((await change('Long#Enough1x')).body.success).toBe(true);
    });
  });

  describe('SysPropsChangedEvent', () => {
    afterAll(reset);

    it.each([LOGIN, USER])('a save of $group emits it with the group', async (which) => {
      changed.length = 0;
      if (which === LOGIN) await app.saveLoginStrategy({ lockMinutes: 90 });
      else await app.saveUserStrategy({ expireNotifyDays: 5 });
      const local = changed.filter((e) => !e.remote);
      expect(local).toHaveLength(1);
      expect(local[0]).toBeInstanceOf(SysPropsChangedEvent);
      expect(local[0].group).toBe(which.group);
    });

    it('a refused save emits nothing', async () => {
      await sleep(50); // let echoes of earlier saves arrive first
      changed.length = 0;
      await app.admin(LOGIN.save, { lockMinutes: 0 });
      await app.admin(USER.save, { maxPasswordLength: 99 });
      await sleep(100);
      expect(changed).toEqual([]);
    });
  });
});

describe('strategy cache across two instances on mariadb+redis', () => {
  it('a save on instance A reaches the cached settings of instance B within 1 second', async () => {
    const provisioned = await mariadbRedis.provision();
    const a = await startApp(mariadbRedis, { provisioned });
    const b = await startApp(mariadbRedis, { provisioned });
    try {
      const remote: SysPropsChangedEvent[] = [];
      b.app.get(EventEmitter2).on(SysPropsChangedEvent.NAME, (e: SysPropsChangedEvent) => remote.push(e));

      // B reads first, so that its cache holds the old values.
      expect((await b.admin(LOGIN.info)).body.data.sessionExpireMinutes).toBe(30);
      expect((await b.admin(USER.info)).body.data.minPasswordLength).toBe(6);

      for (const [which, field, value] of [
        [LOGIN, 'sessionExpireMinutes', 77],
        [USER, 'minPasswordLength', 9],
      ] as const) {
        await (which === LOGIN ? a.saveLoginStrategy({ [field]: value }) : a.saveUserStrategy({ [field]: value }));
        const started = Date.now();
        let seen: unknown;
        while (Date.now() - started <= 1000) {
          seen = (await b.admin(which.info)).body.data[field];
          if (seen === value) break;
          await sleep(50);
        }
        expect({ field, seen, withinMs: Date.now() - started <= 1000 }).toEqual({ field, seen: value, withinMs: true });
        expect(remote).toContainEqual(expect.objectContaining({ group: which.group, remote: true }));
      }

      // The new values govern B's logins too, not only its info.
      const user = await createUser(b);
      const token = await b.token(user.username, user.password);
      const session = await b.sessionOf(token);
      expect(session.expireAt - session.loginTime).toBe(77 * 60_000);
    } finally {
      await a.close();
      await b.close();
      await provisioned.dispose();
    }
  });
});

/**
 * maxPasswordLength ≥ minPasswordLength (unless 0) must hold for what is stored, not only for each
 * save alone: a save of min = 30 on one instance and one of max = 20 on another, each valid against
 * the values it started from, must not both land.
 */
describe('parallel account-strategy saves on two instances (MariaDB + Redis)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(mariadbRedis);
    b = await startApp(mariadbRedis, { provisioned: a.provisioned });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('never store a minPasswordLength above maxPasswordLength', async () => {
    for (let round = 0; round < 5; round++) {
      await a.saveUserStrategy({ minPasswordLength: 6, maxPasswordLength: 40 });
      const [raise, lower] = await Promise.all([
        a.admin('/sys/strategy/user/save', { minPasswordLength: 30 }),
        b.admin('/sys/strategy/user/save', { maxPasswordLength: 20 }),
      ]);
      // Whichever came second was checked against the first: exactly one is refused.
      expect([raise.body.success, lower.body.success].filter(Boolean)).toHaveLength(1);
      const refused = raise.body.success ? lower : raise;
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      const rows: { prop_key: string; prop_value: string }[] = await a.db.query(
        "SELECT prop_key, prop_value FROM sys_props WHERE prop_group = 'user_strategy'",
      );
      const stored = Object.fromEntries(rows.map((r) => [r.prop_key, Number(r.prop_value)]));
      expect(stored.maxPasswordLength).toBeGreaterThanOrEqual(stored.minPasswordLength);
    }
  });
});
