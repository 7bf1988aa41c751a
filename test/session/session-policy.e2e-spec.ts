import { BACKENDS } from '../support/backends';
import { KICKED_OUT, NOT_LOGGED_IN } from '../support/envelopes';
import { createActiveUser, createUser, TestUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { LOGIN_DEFAULTS, saveSettings, USER_DEFAULTS } from '../support/settings';
import { epochMs, startApp, TestApp, tokenKey } from '../support/test-app';

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * Login strategy: sessionMaxHours (an absolute lifetime however often a session is
 * renewed) and maxSessionsPerUser (with multiOnline, the oldest sessions kicked out), with the fake
 * clock, on SQLite + memory and MariaDB + Redis.
 */
describe.each(BACKENDS)('session limits on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());
  afterEach(() => saveSettings(app));

  const me = (token: string) => app.post('/sys/me/info', {}, { token });
  const live = async (token: string) => (await me(token)).body.success === true;
  let ipSeq = 0;
  /** Each login from its own address: the per-IP login throttle must not be what refuses one. */
  const login = (user: TestUser) =>
    app.token(user.username, user.password, { ip: `10.42.${Math.floor(ipSeq / 200)}.${(ipSeq++ % 200) + 1}` });

  describe('the new fields on the strategy endpoints', () => {
    const info = async (group: 'login' | 'user') => (await app.admin(`/sys/strategy/${group}/info`)).body.data;

    it('answers them with their defaults (0: no limit, never)', async () => {
      expect(await info('login')).toMatchObject({ sessionMaxHours: 0, maxSessionsPerUser: 0 });
      expect(await info('user')).toMatchObject({ dormantDays: 0 });
    });

    it('saves the boundaries of their ranges', async () => {
      await app.saveLoginStrategy({ sessionMaxHours: 720, maxSessionsPerUser: 100 });
      expect(await info('login')).toEqual({ ...LOGIN_DEFAULTS, sessionMaxHours: 720, maxSessionsPerUser: 100 });
      await app.saveLoginStrategy({ sessionMaxHours: 0, maxSessionsPerUser: 0 });
      expect(await info('login')).toEqual(LOGIN_DEFAULTS);
      await app.saveUserStrategy({ dormantDays: 3650 });
      expect(await info('user')).toEqual({ ...USER_DEFAULTS, dormantDays: 3650 });
    });

    it.each([
      ['login', 'sessionMaxHours', -1],
      ['login', 'sessionMaxHours', 721],
      ['login', 'sessionMaxHours', 1.5],
      ['login', 'sessionMaxHours', 'abc'],
      ['login', 'sessionMaxHours', true],
      ['login', 'sessionMaxHours', null],
      ['login', 'maxSessionsPerUser', -1],
      ['login', 'maxSessionsPerUser', 101],
      ['login', 'maxSessionsPerUser', '3x'],
      ['user', 'dormantDays', -1],
      ['user', 'dormantDays', 3651],
      ['user', 'dormantDays', 2.5],
      ['user', 'dormantDays', [90]],
    ] as const)(
      '%s: %s = %j is VALIDATION_FAILED naming the field, and nothing is saved',
      async (group, field, value) => {
        const before = await info(group);
        // A valid field beside the bad one is not saved either.
        const valid = group === 'login' ? { lockMinutes: 99 } : { minPasswordLength: 9 };
        const res = await app.admin(`/sys/strategy/${group}/save`, { ...valid, [field]: value });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', data: namesFields(field) });
        expect(await info(group)).toEqual(before);
      },
    );
  });

  describe('sessionMaxHours', () => {
    it('renewal never moves expireAt past loginTime + sessionMaxHours; at that moment the session is NOT_LOGGED_IN', async () => {
      await app.saveLoginStrategy({ sessionExpireMinutes: 30, sessionMaxHours: 1 });
      const user = await createActiveUser(app);
      const t0 = app.clock.nowMs();
      const token = await login(user);
      expect(await app.sessionOf(token)).toMatchObject({ loginTime: t0, expireAt: t0 + 30 * MIN });

      // 20 minutes in: 10 of 30 left, renewed to the full 30 (the cap is still further away).
      app.clock.advance(20 * MIN);
      expect(await live(token)).toBe(true);
      expect((await app.sessionOf(token)).expireAt).toBe(t0 + 50 * MIN);

      // 40 minutes in: a full renewal would reach 70; the cap holds it at 60.
      app.clock.advance(20 * MIN);
      expect(await live(token)).toBe(true);
      expect(await app.sessionOf(token)).toMatchObject({ expireAt: t0 + HOUR, renewedAt: t0 + 40 * MIN });
      // The keys live no longer than the session (Redis counts real time: a little less).
      const ttl = await app.store.ttl(tokenKey(token));
      expect(ttl).toBeLessThanOrEqual(20 * MIN);
      expect(ttl).toBeGreaterThan(19 * MIN);

      // 55 minutes in: less than half left, but nothing can be added; the session stays as it is.
      app.clock.advance(15 * MIN);
      const before = await app.sessionOf(token);
      expect(await live(token)).toBe(true);
      expect(await app.sessionOf(token)).toEqual(before);

      app.clock.advance(5 * MIN - 1);
      expect(await live(token)).toBe(true);
      app.clock.advance(1);
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
      expect(await app.sessionOf(token)).toBeNull();
    });

    it('0 is no limit: a session used every 20 minutes lives on for hours', async () => {
      await app.saveLoginStrategy({ sessionExpireMinutes: 30, sessionMaxHours: 0 });
      const user = await createActiveUser(app);
      const token = await login(user);
      for (let i = 0; i < 12; i++) {
        app.clock.advance(20 * MIN);
        expect(await live(token)).toBe(true);
      }
      expect((await app.sessionOf(token)).expireAt).toBe(app.clock.nowMs() + 30 * MIN);
    });

    it('applies to temporary tokens too', async () => {
      await app.saveLoginStrategy({ tempSessionExpireMinutes: 120, sessionMaxHours: 1 });
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app);
      const t0 = app.clock.nowMs();
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ tempUser: true });
      const token = res.body.data!.accessToken;
      // Off again before the administrator's own session runs out and logs in anew.
      await app.saveUserStrategy({ forceUpdatePassword: false });
      expect(await app.sessionOf(token)).toMatchObject({ temp: 1, expireAt: t0 + HOUR });
      app.clock.advance(HOUR - 1000);
      expect(await live(token)).toBe(true);
      app.clock.advance(1000);
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
    });

    it('a lowered limit ends live sessions past it at their next request; a raised one lets them renew further', async () => {
      await app.saveLoginStrategy({ sessionExpireMinutes: 30, sessionMaxHours: 0 });
      const user = await createActiveUser(app);
      const t0 = app.clock.nowMs();
      const old = await login(user);
      for (let i = 0; i < 6; i++) {
        app.clock.advance(20 * MIN);
        expect(await live(old)).toBe(true);
      }
      const young = await login(user);
      // Two hours after the first login, the limit becomes 2 hours.
      await app.saveLoginStrategy({ sessionMaxHours: 2 });
      expect((await me(old)).body).toEqual(NOT_LOGGED_IN);
      expect(await live(young)).toBe(true);
      // Raised again: the young session renews past what 2 hours would have allowed.
      await app.saveLoginStrategy({ sessionMaxHours: 3 });
      for (let i = 0; i < 8; i++) {
        app.clock.advance(20 * MIN);
        expect(await live(young)).toBe(true);
      }
      // 4 h 40 min after the first login: renewed up to the young session's new cap, 3 hours after its login.
      expect((await app.sessionOf(young)).expireAt).toBe(t0 + 2 * HOUR + 3 * HOUR);
    });

    /** Authorises a new session with a QR code the session `token` generates, and returns its token. */
    const qrLogin = async (token: string) => {
      const gen = await app.post('/auth/qrcode/generate', {}, { token });
      expect(gen.body.success).toBe(true);
      const verified = await app.post('/auth/qrcode/verify', { code: gen.body.data.code });
      expect(verified.body).toMatchObject({ success: true, data: { accessToken: expect.any(String) } });
      return verified.body.data.accessToken as string;
    };

    it('a QR login ends when the session that generated its code would have: a chain of codes never outlives the first login', async () => {
      await app.saveLoginStrategy({ sessionExpireMinutes: 30, sessionMaxHours: 1 });
      const user = await createActiveUser(app);
      const t0 = app.clock.nowMs();
      const first = await login(user);
      // Every 20 minutes the newest session authorises the next one, to itself.
      app.clock.advance(20 * MIN);
      const second = await qrLogin(first);
      app.clock.advance(20 * MIN);
      const third = await qrLogin(second);
      expect(await app.sessionOf(third)).toMatchObject({ loginTime: t0 + 40 * MIN, expireAt: t0 + HOUR });

      app.clock.advance(20 * MIN - 1);
      expect(await live(third)).toBe(true);
      // A code generated in the last millisecond is worth no more than its session.
      const code = (await app.post('/auth/qrcode/generate', {}, { token: third })).body.data.code;
      app.clock.advance(1);
      for (const token of [first, second, third]) expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
      expect((await app.post('/auth/qrcode/verify', { code })).body.code).toBe('QRCODE_INVALID');
    });

    it('a limit set after a QR login counts from the first login of its chain too', async () => {
      await app.saveLoginStrategy({ sessionExpireMinutes: 30, sessionMaxHours: 0 });
      const user = await createActiveUser(app);
      const t0 = app.clock.nowMs();
      const first = await login(user);
      app.clock.advance(20 * MIN);
      const second = await qrLogin(first);
      app.clock.advance(20 * MIN);
      expect(await live(second)).toBe(true);
      await app.saveLoginStrategy({ sessionMaxHours: 1 });
      app.clock.advance(20 * MIN - 1);
      expect(await live(second)).toBe(true);
      app.clock.advance(1);
      // One hour after the first login, not after the QR login 20 minutes later.
      expect(app.clock.nowMs()).toBe(t0 + HOUR);
      expect((await me(second)).body).toEqual(NOT_LOGGED_IN);
      // A password login starts a chain of its own.
      expect(await live(await login(user))).toBe(true);
    });

    it('a session past a lowered limit is off the online list at once', async () => {
      const user = await createActiveUser(app);
      const token = await login(user);
      app.clock.advance(20 * MIN);
      expect(await live(token)).toBe(true);
      app.clock.advance(20 * MIN);
      expect(await live(token)).toBe(true);
      const listed = async () => {
        const res = await app.admin('/sys/online/list', { pageNum: 1, pageSize: 100 });
        expect(res.body.success).toBe(true);
        return (res.body.data.rows as { username?: string; account?: string }[]).some((r) =>
          Object.values(r).includes(user.username),
        );
      };
      expect(await listed()).toBe(true);
      await app.saveLoginStrategy({ sessionMaxHours: 0 });
      // Hours are the unit: move past an hour, renewing, then limit to 1 hour.
      app.clock.advance(25 * MIN);
      expect(await live(token)).toBe(true);
      await app.saveLoginStrategy({ sessionMaxHours: 1 });
      expect(await listed()).toBe(false);
    });
  });

  describe('maxSessionsPerUser (with multiOnline = true)', () => {
    it('N = 2: a third login kicks out the oldest (KICKED_OUT once), a fourth the next oldest', async () => {
      await app.saveLoginStrategy({ multiOnline: true, maxSessionsPerUser: 2 });
      const user = await createActiveUser(app);
      const first = await login(user);
      app.clock.advance(MIN);
      const second = await login(user);
      app.clock.advance(MIN);
      expect(await live(first)).toBe(true);
      expect(await live(second)).toBe(true);

      const third = await login(user);
      // What the message stream's session check reads: the session is marked, not deleted.
      expect((await app.sessionOf(first)).kickout).toBe(1);
      const kicked = await me(first);
      expect(kicked.status).toBe(401);
      expect(kicked.body).toEqual(KICKED_OUT);
      expect((await me(first)).body).toEqual(NOT_LOGGED_IN);
      expect(await live(second)).toBe(true);
      expect(await live(third)).toBe(true);

      app.clock.advance(MIN);
      const fourth = await login(user);
      expect((await me(second)).body).toEqual(KICKED_OUT);
      expect(await live(third)).toBe(true);
      expect(await live(fourth)).toBe(true);
    });

    it('0 = no limit; sessions that expired or were logged out do not count', async () => {
      await app.saveLoginStrategy({ multiOnline: true, maxSessionsPerUser: 0 });
      const user = await createActiveUser(app);
      const tokens = [await login(user), await login(user), await login(user), await login(user)];
      for (const t of tokens) expect(await live(t)).toBe(true);

      await app.saveLoginStrategy({ maxSessionsPerUser: 2 });
      const fresh = await createActiveUser(app);
      const gone = await login(fresh);
      await app.post('/sys/logout', {}, { token: gone });
      const expired = await login(fresh);
      app.clock.advance(31 * MIN);
      const a = await login(fresh);
      app.clock.advance(MIN);
      const b = await login(fresh);
      // Neither the logged-out nor the expired session took a place: both new ones live.
      expect(await live(a)).toBe(true);
      expect(await live(b)).toBe(true);
      expect((await me(expired)).body).toEqual(NOT_LOGGED_IN);
    });

    it('10 parallel logins of one user with N = 3 leave exactly 3 live sessions', async () => {
      await app.saveLoginStrategy({ multiOnline: true, maxSessionsPerUser: 3 });
      const user = await createActiveUser(app);
      const tokens = await Promise.all(Array.from({ length: 10 }, () => login(user)));
      const states = await Promise.all(tokens.map(async (t) => (await app.sessionOf(t))?.kickout));
      expect(states.filter((k) => k === 0)).toHaveLength(3);
      expect(states.filter((k) => k === 1)).toHaveLength(7);
      const answers = await Promise.all(tokens.map(me));
      expect(answers.filter((r) => r.body.success)).toHaveLength(3);
      expect(answers.filter((r) => r.body.code === 'KICKED_OUT')).toHaveLength(7);
    });

    it('N = 1 and multiOnline = false both leave the newest session only; with multiOnline = false N is not used', async () => {
      // multiOnline = true, N = 1: the previous session is kicked out.
      await app.saveLoginStrategy({ multiOnline: true, maxSessionsPerUser: 1 });
      const u1 = await createActiveUser(app);
      const a1 = await login(u1);
      app.clock.advance(MIN);
      const b1 = await login(u1);
      expect((await me(a1)).body).toEqual(KICKED_OUT);
      expect(await live(b1)).toBe(true);

      // multiOnline = false: every other session is kicked out, whatever N says.
      await app.saveLoginStrategy({ multiOnline: false, maxSessionsPerUser: 3 });
      const u2 = await createActiveUser(app);
      const a2 = await login(u2);
      app.clock.advance(MIN);
      const b2 = await login(u2);
      expect((await me(a2)).body).toEqual(KICKED_OUT);
      expect(await live(b2)).toBe(true);
    });

    it('N = 1: a QR login kicks out the session that authorised it, as multiOnline = false does', async () => {
      for (const settings of [
        { multiOnline: true, maxSessionsPerUser: 1 },
        { multiOnline: false, maxSessionsPerUser: 0 },
      ]) {
        await app.saveLoginStrategy(settings);
        const user = await createActiveUser(app);
        const phone = await login(user);
        const gen = await app.post('/auth/qrcode/generate', {}, { token: phone });
        app.clock.advance(1000);
        const verified = await app.post('/auth/qrcode/verify', { code: gen.body.data.code }, { ip: '10.77.0.9' });
        expect(verified.body.success).toBe(true);
        expect((await me(phone)).body).toEqual(KICKED_OUT);
        expect(await live(verified.body.data.accessToken)).toBe(true);
      }
    });
  });

  describe('last_login_time (dormantDays counts from it)', () => {
    const lastLogin = async (id: string) => epochMs((await app.userRow(id)).last_login_time);

    it('is null until the first successful login; set by password and QR logins, not by a wrong password', async () => {
      const user = await createActiveUser(app);
      // createActiveUser logged in once to change the initial password.
      const t1 = app.clock.nowMs();
      expect(await lastLogin(user.id)).toBeLessThanOrEqual(t1);
      const never = await createUser(app);
      expect((await app.userRow(never.id)).last_login_time).toBeNull();

      app.clock.advance(HOUR);
      expect((await app.login(user.username, 'Wrong#pass9')).body.code).toBe('BAD_CREDENTIALS');
      expect(await lastLogin(user.id)).toBeLessThanOrEqual(t1);

      const t2 = app.clock.nowMs();
      const token = await login(user);
      expect(await lastLogin(user.id)).toBe(t2);

      app.clock.advance(20 * MIN);
      const gen = await app.post('/auth/qrcode/generate', {}, { token });
      const verified = await app.post('/auth/qrcode/verify', { code: gen.body.data.code });
      expect(verified.body.success).toBe(true);
      expect(await lastLogin(user.id)).toBe(app.clock.nowMs());
    });

    it('a login that issues a temporary token counts', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app);
      app.clock.advance(MIN);
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ tempUser: true });
      expect(await lastLogin(user.id)).toBe(app.clock.nowMs());
    });
  });
});
