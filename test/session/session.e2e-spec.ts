import { randomBytes } from 'node:crypto';

import { SessionGuard } from '../../src/session/guards/session.guard';
import { SessionService } from '../../src/session/session.service';
import { UserRepository } from '../../src/user-account/user.repository';
import { BACKENDS } from '../support/backends';
import { FORBIDDEN, IP_MISMATCH, KICKED_OUT, NOT_LOGGED_IN, OK_NO_DATA, QRCODE_INVALID } from '../support/envelopes';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { saveSettings } from '../support/settings';
import { permsKey, sha256hex, startApp, TestApp, tokenKey } from '../support/test-app';
import { sleep } from '../support/wait';

const MIN = 60_000;
const userTokensKey = (userId: string) => `AUTH_USER_TOKENS:${userId}`;
const LIST_BODY = { pageNum: 1, pageSize: 10 };

describe.each(BACKENDS)('sessions and tokens on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  // One app per backend: every test starts from the default settings.
  afterEach(() => saveSettings(app));

  const sessionOf = (token: string): Promise<any> => app.sessionOf(token);

  const me = (token: string, ip?: string) => app.post('/sys/me/info', {}, { token, ip });

  describe('token lifetime', () => {
    it('a request without a token, with a garbage token or with an over-long token is NOT_LOGGED_IN', async () => {
      const none = await app.post('/sys/me/info');
      expect(none.status).toBe(401);
      expect(none.body).toEqual(NOT_LOGGED_IN);
      const garbage = await me('not-a-token');
      expect(garbage.status).toBe(401);
      expect(garbage.body).toEqual(NOT_LOGGED_IN);
      expect((await me('x'.repeat(5000))).body).toEqual(NOT_LOGGED_IN);
      const bearerGarbage = await app.post('/sys/me/info', {}, { headers: { authorization: 'Bearer nope' } });
      expect(bearerGarbage.status).toBe(401);
      expect(bearerGarbage.body).toEqual(NOT_LOGGED_IN);
      expect((await app.post('/sys/user/list', LIST_BODY)).body).toEqual(NOT_LOGGED_IN);
    });

    it('white-listed operations (login, public key, captcha, QR verify) need no token', async () => {
      expect((await app.post('/sys/publicKey')).body.success).toBe(true);
      expect((await app.post('/sys/captcha')).body.success).toBe(true);
      const user = await createActiveUser(app);
      expect((await app.login(user.username, user.password)).body.success).toBe(true);
      const verify = await app.post('/auth/qrcode/verify', { code: '00000000-0000-4000-8000-000000000000' });
      expect(verify.body.code).not.toBe('NOT_LOGGED_IN');
      expect(verify.body.code).toBe('QRCODE_INVALID');
      expect(verify.status).toBe(400);
      expect(verify.body).toEqual(QRCODE_INVALID);
    });

    it('a normal token lives sessionExpireMinutes (default 30) without requests, then answers NOT_LOGGED_IN', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      app.clock.advance(30 * MIN + 1000);
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
      // The expired session is gone from the store with its permission cache.
      expect(await app.store.get(tokenKey(token))).toBeNull();
      expect(await app.store.get(permsKey(token))).toBeNull();
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
    });

    it('a normal token still works just before sessionExpireMinutes has elapsed', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      app.clock.advance(30 * MIN - 1000);
      expect((await me(token)).body.success).toBe(true);
    });

    it('the validity follows a changed sessionExpireMinutes', async () => {
      await app.saveLoginStrategy({ sessionExpireMinutes: 10 });
      const user = await createActiveUser(app);
      const loginAt = app.clock.nowMs();
      const token = await app.token(user.username, user.password);
      expect((await sessionOf(token)).expireAt).toBe(loginAt + 10 * MIN);
      app.clock.advance(10 * MIN + 1000);
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
    });

    it('a temporary token lives tempSessionExpireMinutes and is never renewed', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app);
      const loginAt = app.clock.nowMs();
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ tempUser: true, forceUpdatePassword: true });
      const token = res.body.data!.accessToken;
      const before = await sessionOf(token);
      expect(before).toMatchObject({ temp: 1, expireAt: loginAt + 5 * MIN });
      // 3 of 5 minutes gone: less than half left, but a temporary token keeps its expiry.
      app.clock.advance(3 * MIN);
      expect((await me(token)).body.success).toBe(true);
      expect(await sessionOf(token)).toEqual(before);
      app.clock.advance(2 * MIN + 1000);
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('renewal', () => {
    /** A fresh login with sessionExpireMinutes = 30, and its session as stored. */
    async function thirtyMinuteSession() {
      await app.saveLoginStrategy({ sessionExpireMinutes: 30 });
      const user = await createActiveUser(app);
      const loginAt = app.clock.nowMs();
      const token = await app.token(user.username, user.password);
      const original = await sessionOf(token);
      expect(original.expireAt).toBe(loginAt + 30 * MIN);
      return { user, loginAt, token, original };
    }

    it('leaves a session with more than half its validity alone, renews one with less than half to full', async () => {
      const { user, loginAt, token, original } = await thirtyMinuteSession();

      // 14 minutes in: 16 of 30 left, more than half. Neither the session nor the TTLs move.
      app.clock.advance(14 * MIN);
      // Shorten the real TTLs so that a reset would show on Redis too (its TTLs run on real time).
      await app.store.expire(tokenKey(token), 10 * MIN);
      await app.store.expire(permsKey(token), 10 * MIN);
      expect((await me(token)).body.success).toBe(true);
      expect((await sessionOf(token)).expireAt).toBe(original.expireAt);
      expect(await app.store.ttl(tokenKey(token))).toBeLessThanOrEqual(10 * MIN);
      expect(await app.store.ttl(permsKey(token))).toBeLessThanOrEqual(10 * MIN);

      // 16 minutes in: 14 of 30 left, less than half. expireAt moves to now + 30 min; both TTLs reset.
      app.clock.advance(2 * MIN);
      const renewAt = app.clock.nowMs();
      expect((await me(token)).body.success).toBe(true);
      const renewed = await sessionOf(token);
      expect(renewed.expireAt).toBe(renewAt + 30 * MIN);
      expect(renewed).toMatchObject({ userId: user.id, loginTime: original.loginTime, kickout: 0, temp: 0 });
      expect(await app.store.ttl(tokenKey(token))).toBeGreaterThan(29 * MIN);
      expect(await app.store.ttl(permsKey(token))).toBeGreaterThan(29 * MIN);
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual([]);

      // It survives past the original expiry (login + 30 min).
      app.clock.set(loginAt + 31 * MIN);
      expect((await me(token)).body.success).toBe(true);
      // And expires sessionExpireMinutes after its last renewal when left alone.
      app.clock.set((await sessionOf(token)).expireAt + 1000);
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
    });

    it('Exactly half the validity left is not renewed; 1 ms less is renewed to full', async () => {
      const { loginAt, token, original } = await thirtyMinuteSession();

      // 15 of 30 minutes left: exactly 50 %, not below it. Nothing moves.
      app.clock.set(loginAt + 15 * MIN);
      await app.store.expire(tokenKey(token), 10 * MIN);
      await app.store.expire(permsKey(token), 10 * MIN);
      expect((await me(token)).body.success).toBe(true);
      expect(await sessionOf(token)).toEqual(original);
      expect(await app.store.ttl(tokenKey(token))).toBeLessThanOrEqual(10 * MIN);
      expect(await app.store.ttl(permsKey(token))).toBeLessThanOrEqual(10 * MIN);

      // 1 ms later less than half is left: expireAt moves to now + 30 min and both TTLs reset.
      app.clock.set(loginAt + 15 * MIN + 1);
      expect((await me(token)).body.success).toBe(true);
      expect((await sessionOf(token)).expireAt).toBe(loginAt + 15 * MIN + 1 + 30 * MIN);
      expect(await app.store.ttl(tokenKey(token))).toBeGreaterThan(29 * MIN);
      expect(await app.store.ttl(permsKey(token))).toBeGreaterThan(29 * MIN);
    });

    it('renews the permission cache with the session: a permitted call still works after the original expiry', async () => {
      const role = `r_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, ['sys:user:list']);
      const user = await createActiveUser(app, { roles: [role] });
      const loginAt = app.clock.nowMs();
      const token = await app.token(user.username, user.password);
      app.clock.advance(20 * MIN);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body.success).toBe(true);
      app.clock.set(loginAt + 35 * MIN);
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual(['sys:user:list']);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body.success).toBe(true);
    });

    it('with multiOnline = true each token lives and renews on its own', async () => {
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password);
      app.clock.advance(20 * MIN);
      const second = await app.token(user.username, user.password);
      app.clock.advance(11 * MIN);
      // first is 31 minutes old and was never used; second is 11 minutes old.
      expect((await me(first)).body).toEqual(NOT_LOGGED_IN);
      expect((await me(second)).body.success).toBe(true);
    });
  });

  // The console polls /sys/me/info: it is answered before the Nest route
  // (src/user-account/me-info-fast-lane.ts), its refusals as the route would answer them.
  describe("the console's polling route", () => {
    it("answers /sys/me/info and its refusals without Nest's guard, an API key's FORBIDDEN audited", async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const name = `me-lane-${randomBytes(3).toString('hex')}`;
      const made = await app.admin('/sys/apiKey/create', { name, permissions: ['sys:user:list'] });
      const guard = jest.spyOn(SessionGuard.prototype, 'canActivate');
      try {
        const ok = await me(token);
        expect(ok.body).toMatchObject({ success: true, data: { id: user.id, username: user.username } });
        expect((await me('not-a-token')).body).toEqual(NOT_LOGGED_IN);
        const english = await app.post('/sys/me/info', { extra: 1 }, { token, headers: { 'accept-language': 'en' } });
        expect(english.status).toBe(400);
        expect(english.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'extra' }] } });
        expect(english.body.message).toMatch(/^[\x20-\x7e]+$/);

        const byKey = await app.post(
          '/sys/me/info',
          {},
          { token: undefined, ip: '10.0.9.1', headers: { 'x-api-key': made.body.data.key } },
        );
        expect(byKey.status).toBe(403);
        expect(byKey.body).toEqual(FORBIDDEN);
        expect(guard).not.toHaveBeenCalled();
      } finally {
        guard.mockRestore();
      }
      const [denied] = await app.db.query(
        "SELECT * FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ? ORDER BY id",
        [made.body.data.id],
      );
      expect(denied).toMatchObject({ username: `apikey:${name}`, ip: '10.0.9.1' });
      expect(JSON.parse(denied.detail)).toMatchObject({ path: '/sys/me/info' });
    });
  });

  describe('multi-device', () => {
    it('multiOnline = false: a second login kicks the first token out; it answers KICKED_OUT once, then NOT_LOGGED_IN', async () => {
      await app.saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password, { ip: '10.2.0.1' });
      expect((await me(first, '10.2.0.1')).body.success).toBe(true);
      const second = await app.token(user.username, user.password, { ip: '10.2.0.2' });

      expect(await sessionOf(first)).toMatchObject({ userId: user.id, kickout: 1 });
      expect(await sessionOf(second)).toMatchObject({ userId: user.id, kickout: 0 });

      const kicked = await me(first, '10.2.0.1');
      expect(kicked.status).toBe(401);
      expect(kicked.body).toEqual(KICKED_OUT);
      // Answered once, then deleted.
      expect(await app.store.get(tokenKey(first))).toBeNull();
      expect(await app.store.get(permsKey(first))).toBeNull();
      expect(await app.store.sMembers(userTokensKey(user.id))).not.toContain(sha256hex(first));
      const after = await me(first, '10.2.0.1');
      expect(after.status).toBe(401);
      expect(after.body).toEqual(NOT_LOGGED_IN);

      expect((await me(second, '10.2.0.2')).body).toMatchObject({ success: true, data: { id: user.id } });
    });

    it('KICKED_OUT once also under parallel requests of the kicked token: exactly one gets it', async () => {
      await app.saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password, { ip: '10.2.3.1' });
      await app.token(user.username, user.password, { ip: '10.2.3.2' });
      const answers = await Promise.all(Array.from({ length: 10 }, () => me(first, '10.2.3.1')));
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(401));
      const codes = answers.map((r) => r.body.code);
      expect(codes.filter((c) => c === 'KICKED_OUT')).toHaveLength(1);
      expect(codes.filter((c) => c === 'NOT_LOGGED_IN')).toHaveLength(9);
    });

    it('a renewal that races with the kick-out does not revive the kicked token', async () => {
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password, { ip: '10.2.1.1' });
      await app.saveLoginStrategy({ multiOnline: false });
      app.clock.advance(20 * MIN);
      // Let the second device's login (and its kick-out) land right after the guard has read the old
      // session and before the renewal writes it back: the interleaving that two instances, or two
      // requests on one, can produce at any time.
      const store = app.store;
      const original = store.get.bind(store);
      let second: string | undefined;
      const spy = jest.spyOn(store, 'get').mockImplementation(async (key) => {
        const value = await original(key);
        if (!second && key === tokenKey(first)) {
          second = await app.token(user.username, user.password, { ip: '10.2.1.2' });
        }
        return value;
      });
      try {
        await me(first, '10.2.1.1');
      } finally {
        spy.mockRestore();
      }
      expect(second).toBeDefined();
      expect(await sessionOf(first)).toMatchObject({ kickout: 1 });
      expect((await me(first, '10.2.1.1')).body).toEqual(KICKED_OUT);
      expect((await me(second!, '10.2.1.2')).body.success).toBe(true);
    });

    it('multiOnline = false kicks out every earlier token of the user, not those of other users', async () => {
      const user = await createActiveUser(app);
      const other = await createActiveUser(app);
      const a = await app.token(user.username, user.password);
      const b = await app.token(user.username, user.password);
      const otherToken = await app.token(other.username, other.password);
      await app.saveLoginStrategy({ multiOnline: false });
      const c = await app.token(user.username, user.password);
      expect((await me(a)).body).toEqual(KICKED_OUT);
      expect((await me(b)).body).toEqual(KICKED_OUT);
      expect((await me(c)).body.success).toBe(true);
      expect((await me(otherToken)).body.success).toBe(true);
    });

    it('multiOnline = true: both tokens work, and logging one out leaves the other', async () => {
      await app.saveLoginStrategy({ multiOnline: true });
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password);
      const second = await app.token(user.username, user.password);
      expect(await sessionOf(first)).toMatchObject({ kickout: 0 });
      expect((await me(first)).body.success).toBe(true);
      expect((await me(second)).body.success).toBe(true);
      expect((await app.post('/sys/logout', {}, { token: first })).body.success).toBe(true);
      expect((await me(first)).body).toEqual(NOT_LOGGED_IN);
      expect((await me(second)).body.success).toBe(true);
      expect(await app.store.sMembers(userTokensKey(user.id))).toEqual([sha256hex(second)]);
    });
  });

  describe('logout', () => {
    it('removes the session, the permission cache and the hash in the user token set', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const hash = sha256hex(token);
      expect(await app.store.get(tokenKey(token))).not.toBeNull();
      expect(await app.store.get(permsKey(token))).not.toBeNull();
      expect(await app.store.sMembers(userTokensKey(user.id))).toContain(hash);

      const res = await app.post('/sys/logout', {}, { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect(await app.store.get(tokenKey(token))).toBeNull();
      expect(await app.store.get(permsKey(token))).toBeNull();
      expect(await app.store.sMembers(userTokensKey(user.id))).not.toContain(hash);
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
      expect((await app.post('/sys/logout', {}, { token })).body).toEqual(NOT_LOGGED_IN);
    });

    it('logs a temporary token out as well', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app);
      const token = (await app.login(user.username, user.password)).body.data!.accessToken;
      expect((await sessionOf(token)).temp).toBe(1);
      expect((await app.post('/sys/logout', {}, { token })).body.success).toBe(true);
      expect(await app.store.get(tokenKey(token))).toBeNull();
      expect(await app.store.get(permsKey(token))).toBeNull();
    });
  });

  describe('token header', () => {
    it('Authorization: Bearer <token> works like Admin-Token, logout included', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const bearer = { authorization: `Bearer ${token}` };
      const res = await app.post('/sys/me/info', {}, { headers: bearer });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: user.id, username: user.username });
      expect((await app.post('/sys/logout', {}, { headers: bearer })).body.success).toBe(true);
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
      expect((await app.post('/sys/me/info', {}, { headers: bearer })).body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('bindIp', () => {
    it('with bindIp = true a token works only from the IP that logged in', async () => {
      await app.saveLoginStrategy({ bindIp: true });
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password, { ip: '10.7.0.1' });
      expect((await sessionOf(token)).ip).toBe('10.7.0.1');
      const moved = await me(token, '10.7.0.2');
      expect(moved.status).toBe(401);
      expect(moved.body).toEqual(IP_MISMATCH);
      const home = await me(token, '10.7.0.1');
      expect(home.body).toMatchObject({ success: true, data: { id: user.id } });
    });

    it('with bindIp = false the same token works from any IP', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password, { ip: '10.7.1.1' });
      expect((await me(token, '10.7.1.2')).body.success).toBe(true);
    });
  });

  describe('temporary tokens', () => {
    it('reach only TEMP_URIS', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const role = `r_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, ['sys:user:list']);
      const user = await createUser(app, { roles: [role] });
      const token = (await app.login(user.username, user.password)).body.data!.accessToken;
      expect((await me(token)).body).toMatchObject({ success: true, data: { tempUser: true } });
      expect((await app.post('/sys/strategy/user/rules', {}, { token })).body.success).toBe(true);
      const outside = await app.post('/sys/user/list', LIST_BODY, { token });
      expect(outside.status).toBe(403);
      expect(outside.body).toMatchObject({ success: false, code: 'TEMP_TOKEN_FORBIDDEN', message: '请先修改密码' });
    });
  });

  describe('permissions', () => {
    it('a user without a role is FORBIDDEN on gated operations, but reaches plain logged-in ones', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const list = await app.post('/sys/user/list', LIST_BODY, { token });
      expect(list.status).toBe(403);
      expect(list.body).toEqual(FORBIDDEN);
      expect((await app.post('/sys/strategy/login/save', { lockMinutes: 5 }, { token })).body).toEqual(FORBIDDEN);
      expect((await app.post('/sys/strategy/user/save', { minPasswordLength: 1 }, { token })).body).toEqual(FORBIDDEN);
      expect((await app.post('/sys/user/resetPass', { id: user.id }, { token })).body).toEqual(FORBIDDEN);
      expect((await app.post('/sys/role/save', { code: 'x', name: 'x', permissions: ['*'] }, { token })).body).toEqual(
        FORBIDDEN,
      );
      expect((await me(token)).body.success).toBe(true);
      // Nothing was changed by the refused saves.
      expect((await app.admin('/sys/strategy/login/info')).body.data.lockMinutes).not.toBe(5);
    });

    it('a role granted at creation opens exactly its operations', async () => {
      const role = `r_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, ['sys:user:list']);
      const user = await createActiveUser(app, { roles: [role] });
      const token = await app.token(user.username, user.password);
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual(['sys:user:list']);
      const list = await app.post('/sys/user/list', LIST_BODY, { token });
      expect(list.status).toBe(200);
      expect(list.body.data).toMatchObject({ total: expect.any(Number), rows: expect.any(Array) });
      expect((await app.post('/sys/user/resetPass', { id: user.id }, { token })).body).toEqual(FORBIDDEN);
    });

    it('the admin (role admin = *) reaches every gated operation', async () => {
      const adminToken = await app.adminToken();
      expect(JSON.parse((await app.store.get(permsKey(adminToken)))!)).toContain('*');
      for (const [path, body] of [
        ['/sys/user/list', LIST_BODY],
        ['/sys/role/list', {}],
        ['/sys/loginLog/list', LIST_BODY],
        ['/sys/strategy/login/info', {}],
        ['/sys/strategy/user/info', {}],
      ] as const) {
        const res = await app.admin(path, body);
        expect({ path, success: res.body.success }).toEqual({ path, success: true });
      }
      const target = await createActiveUser(app);
      expect((await app.admin('/sys/user/resetPass', { id: target.id })).body.success).toBe(true);
    });

    it('a role save applies to the sessions of already logged-in members, both ways', async () => {
      const role = `r_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, []);
      const user = await createActiveUser(app, { roles: [role] });
      const token = await app.token(user.username, user.password);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body).toEqual(FORBIDDEN);

      await createRole(app, role, ['sys:user:list']);
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual(['sys:user:list']);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body.success).toBe(true);

      await createRole(app, role, []);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body).toEqual(FORBIDDEN);
    });
  });

  describe('a change while the user logs in', () => {
    /**
     * A login reads the user's row and codes, then stores its session. A change landing in between
     * (sent just before the session is stored; should it have to wait for the login, a second
     * passes) must still reach the new session: a code taken away does not outlive it.
     */
    async function loginDuring(user: { username: string; password: string }, change: () => Promise<any>) {
      const sessions = app.app.get(SessionService);
      const issue = sessions.issue.bind(sessions);
      let changed: Promise<any> | undefined;
      const held = jest.spyOn(sessions, 'issue').mockImplementationOnce(async (...args) => {
        changed = change();
        await Promise.race([changed, sleep(1000)]);
        return issue(...args);
      });
      try {
        const token = await app.token(user.username, user.password);
        expect((await changed).body.code).toBe('OK');
        return token;
      } finally {
        held.mockRestore();
      }
    }

    it('a role save while a member logs in reaches the new session: the code taken away is gone from it', async () => {
      const role = `r_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, ['sys:user:list']);
      const user = await createActiveUser(app, { roles: [role] });
      const token = await loginDuring(user, () =>
        app.admin('/sys/role/save', { code: role, name: role, permissions: [] }),
      );
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual([]);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body).toEqual(FORBIDDEN);
    });

    it("a user's roles changed while the user logs in reach the new session: the role taken away is gone from it", async () => {
      const role = `r_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, ['sys:user:list']);
      const user = await createActiveUser(app, { roles: [role] });
      const token = await loginDuring(user, () => app.admin('/sys/user/update', { id: user.id, roles: [] }));
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual([]);
      expect((await app.post('/sys/user/list', LIST_BODY, { token })).body).toEqual(FORBIDDEN);
    });

    it("an administrator's rename while the user logs in reaches the new session: its name is the new one", async () => {
      const user = await createActiveUser(app);
      const token = await loginDuring(user, () => app.admin('/sys/user/update', { id: user.id, name: '改名后' }));
      expect((await me(token)).body.data).toMatchObject({ name: '改名后' });
    });
  });

  describe('stored session', () => {
    it('/sys/me/info answers from the session alone', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const expected = {
        id: user.id,
        username: user.username,
        name: expect.any(String),
        mobile: user.mobile,
        email: user.email,
        permissions: [],
        tempUser: false,
        mfaEnabled: false,
        expireAt: expect.any(Number),
        serverTime: expect.any(Number),
        displayTimeZone: expect.any(String),
        adminMode: 'single',
        mfaMode: 0,
      };
      const accountReads = jest.spyOn(app.app.get(UserRepository), 'byId');
      try {
        expect((await me(token)).body.data).toEqual(expected);
        expect(accountReads).not.toHaveBeenCalled();
      } finally {
        accountReads.mockRestore();
      }
    });

    it('holds exactly the documented fields, keyed by the SHA-256 of the token, never the token itself', async () => {
      const user = await createActiveUser(app);
      const loginAt = app.clock.nowMs();
      const token = await app.token(user.username, user.password, { ip: '10.8.0.1' });
      expect(token.length).toBeGreaterThanOrEqual(43);
      const raw = await app.store.get(tokenKey(token));
      expect(raw).not.toBeNull();
      const session = JSON.parse(raw!);
      expect(session).toMatchObject({
        userId: user.id,
        temp: 0,
        kickout: 0,
        ip: '10.8.0.1',
        loginTime: loginAt,
        expireAt: loginAt + 30 * MIN,
      });
      expect(typeof session.userId).toBe('string');
      expect(Number.isInteger(session.loginTime)).toBe(true);
      expect(Number.isInteger(session.expireAt)).toBe(true);
      expect([0, 1]).toContain(session.temp);
      expect([0, 1]).toContain(session.kickout);

      // TTL until expireAt, for the session and its permission cache.
      for (const key of [tokenKey(token), permsKey(token)]) {
        const ttl = await app.store.ttl(key);
        expect(ttl).toBeGreaterThan(29 * MIN);
        expect(ttl).toBeLessThanOrEqual(30 * MIN);
      }

      // The raw token appears in no stored value.
      expect(raw).not.toContain(token);
      expect((await app.store.get(permsKey(token)))!).not.toContain(token);
      const members = await app.store.sMembers(userTokensKey(user.id));
      expect(members).toContain(sha256hex(token));
      expect(members.join(',')).not.toContain(token);
      expect(await app.store.get(`AUTH_TOKEN:${token}`)).toBeNull();
    });
  });
});
