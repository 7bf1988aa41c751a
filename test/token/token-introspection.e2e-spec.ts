import { randomBytes } from 'node:crypto';

import { createClient } from 'redis';

import { ApiKeyCache } from '../../src/api-key/api-key.cache';
import { BodyValidationPipe } from '../../src/common/validation.pipe';
import { stepAt, totpCode } from '../../src/mfa/totp';
import { KvStore } from '../../src/store/kv.store';
import { INTROSPECTION_RESPONSE } from '../../src/token/dto/introspect.dto';
import { BACKENDS } from '../support/backends';
import { failure, FORBIDDEN, KICKED_OUT, NOT_LOGGED_IN } from '../support/envelopes';
import { createActiveUser, createRole, createUser, TestUser } from '../support/factories';
import { saveSettings } from '../support/settings';
import { sqlDuring, Trace } from '../support/sql-trace';
import { ADMIN_PASSWORD, CallOptions, permsKey, sha256hex, startApp, TestApp, tokenKey } from '../support/test-app';

const MIN = 60_000;
const GATEWAY_IP = '10.8.8.8';

/**
 * POST /sys/token/introspect: a gateway asks what a request with a user's token would meet. The
 * gateway here is a user holding only sys:token:introspect; `introspect` is the one place that
 * says how the gateway calls.
 */
describe.each(BACKENDS)('token introspection on $name', (backend) => {
  let app: TestApp;
  let gatewayUser: TestUser;
  let gatewayToken: string | undefined;

  beforeAll(async () => {
    app = await startApp(backend);
    await createRole(app, 'gateway', ['sys:token:introspect']);
    gatewayUser = await createActiveUser(app, { roles: ['gateway'] });
  });
  afterAll(() => app.close());
  afterEach(() => saveSettings(app));

  /** The gateway's own session, logged in again when the clock has moved past it. */
  async function gateway(): Promise<string> {
    if (gatewayToken) {
      const probe = await app.post('/sys/me/info', {}, { token: gatewayToken, ip: GATEWAY_IP });
      if (probe.body.success) return gatewayToken;
    }
    gatewayToken = await app.token(gatewayUser.username, gatewayUser.password, { ip: GATEWAY_IP });
    return gatewayToken;
  }

  const introspect = async (body: unknown, opts: CallOptions = {}) =>
    app.post('/sys/token/introspect', body, { token: await gateway(), ip: GATEWAY_IP, ...opts });

  /** The answer's data, insisting on an OK envelope (the gateway's own call succeeded). */
  async function stateOf(token: string, ip?: string): Promise<any> {
    const res = await introspect(ip === undefined ? { token } : { token, ip });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    return res.body.data;
  }

  const me = (token: string, ip = '10.0.0.1') => app.post('/sys/me/info', {}, { token, ip });

  /** A key made by the administrator with these codes. */
  async function newKey(permissions: string[]): Promise<{ id: string; key: string }> {
    const res = await app.admin('/sys/apiKey/create', { name: `gw-${randomBytes(4).toString('hex')}`, permissions });
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    return res.body.data;
  }
  const withKey = (key: string, body: unknown, header: 'x-api-key' | 'bearer' = 'x-api-key') =>
    app.post('/sys/token/introspect', body, {
      ip: GATEWAY_IP,
      headers: header === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
    });

  /** The store's operations (the KvStore port), each call recorded with its arguments. */
  const STORE_METHODS = [
    'get',
    'mget',
    'set',
    'setIfAbsent',
    'replaceKeepTtl',
    'replaceIfEquals',
    'getDel',
    'delIfEquals',
    'del',
    'expire',
    'expireIfEquals',
    'incrWithTtl',
    'ttl',
    'sAdd',
    'sRem',
    'sMembers',
    'publish',
  ] as const;

  /** Every call of the store's operations and the SQL statements made for what `during` does (see Trace). */
  async function traced(during: () => Promise<unknown>) {
    const store = app.app.get(KvStore) as any;
    const trace = new Trace();
    const calls: { method: string; args: string }[] = [];
    const spies = STORE_METHODS.map((method) => {
      const original = store[method].bind(store);
      return jest.spyOn(store, method).mockImplementation((...args: unknown[]) => {
        if (trace.current) calls.push({ method, args: JSON.stringify(args) });
        return original(...args);
      });
    });
    try {
      const sql = await sqlDuring(app.db, during, trace);
      return { calls, sqlCount: sql.length, sql };
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
  }

  it('an active token: its user, codes, times (epoch ms) and flags, with no more fields', async () => {
    await createRole(app, 'viewer', ['sys:user:list', 'sys:loginLog:list']);
    const user = await createActiveUser(app, { roles: ['viewer'] });
    const loginAt = app.clock.nowMs();
    const token = await app.token(user.username, user.password);
    expect(await stateOf(token)).toEqual({
      active: true,
      userId: user.id,
      username: user.username,
      permissions: expect.arrayContaining(['sys:user:list', 'sys:loginLog:list']),
      tempUser: false,
      loginTime: loginAt,
      expireAt: loginAt + 30 * MIN,
      mfa: false,
    });
    expect((await stateOf(token)).permissions).toHaveLength(2);
    // The administrator's `*` is answered as it is: the gateway decides what it grants.
    expect(await stateOf(await app.adminToken())).toMatchObject({
      active: true,
      username: 'admin',
      permissions: ['*'],
    });
  });

  it('an unknown token, a garbage one and one of 256 characters are NOT_LOGGED_IN', async () => {
    for (const token of [randomBytes(32).toString('base64url'), 'not a token', 'x'.repeat(256)]) {
      expect(await stateOf(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    }
  });

  it('an expired token is NOT_LOGGED_IN, and is gone as after a request', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    app.clock.advance(30 * MIN - 1000);
    expect(await stateOf(token)).toMatchObject({ active: true });
    // Not renewed above: 1 s left is below half, so it was; move past the renewed expiry.
    const { expireAt } = await app.sessionOf(token);
    app.clock.set(expireAt + 1);
    expect(await stateOf(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    expect(await app.store.get(tokenKey(token))).toBeNull();
    expect(await app.store.get(permsKey(token))).toBeNull();
    expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
  });

  it('the absolute limit (sessionMaxHours) ends a token for introspection as for a request', async () => {
    await app.saveLoginStrategy({ sessionMaxHours: 1 });
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    // Renewed at 19 and 38 minutes, each time up to the hour at most.
    for (let i = 0; i < 3; i += 1) {
      app.clock.advance(19 * MIN);
      expect(await stateOf(token)).toMatchObject({ active: true });
    }
    app.clock.advance(3 * MIN);
    expect(await stateOf(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
  });

  describe('kick-out', () => {
    it('one device: the first token is KICKED_OUT once, then NOT_LOGGED_IN, for introspections and requests alike', async () => {
      await app.saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password);
      const second = await app.token(user.username, user.password);
      expect(await stateOf(first)).toEqual({ active: false, reason: 'KICKED_OUT' });
      expect(await stateOf(first)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
      expect((await me(first)).body).toEqual(NOT_LOGGED_IN);
      expect(await stateOf(second)).toMatchObject({ active: true, userId: user.id });

      // The other way round: a request gets KICKED_OUT, the introspection after it NOT_LOGGED_IN.
      const third = await app.token(user.username, user.password);
      expect((await me(second)).body).toEqual(KICKED_OUT);
      expect(await stateOf(second)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
      expect(await stateOf(third)).toMatchObject({ active: true });
    });

    it('parallel introspections of a kicked-out token: exactly one KICKED_OUT', async () => {
      await app.saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password);
      await app.token(user.username, user.password);
      await gateway();
      const answers = await Promise.all(Array.from({ length: 8 }, () => stateOf(first)));
      expect(answers.filter((a) => a.reason === 'KICKED_OUT')).toHaveLength(1);
      expect(answers.filter((a) => a.reason === 'NOT_LOGGED_IN')).toHaveLength(7);
    });

    it('an administrator ending the session (/sys/online/kickout): NOT_LOGGED_IN, as a request gets', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      expect((await app.admin('/sys/online/kickout', { tokenId: sha256hex(token) })).body.success).toBe(true);
      expect(await stateOf(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
      expect((await me(token)).body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('bindIp', () => {
    it('another ip is IP_MISMATCH and leaves the session alone; the login ip (in any form a request has) is active', async () => {
      await app.saveLoginStrategy({ bindIp: true });
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password, { ip: '10.3.0.1' });
      expect(await stateOf(token, '10.3.0.2')).toEqual({ active: false, reason: 'IP_MISMATCH' });
      expect((await me(token, '10.3.0.2')).body.code).toBe('IP_MISMATCH');
      expect(await stateOf(token, '10.3.0.1')).toMatchObject({ active: true, userId: user.id });
      expect(await stateOf(token, '::ffff:10.3.0.1')).toMatchObject({ active: true });
      // Without an ip the gateway asks about the token alone.
      expect(await stateOf(token)).toMatchObject({ active: true });
      expect((await me(token, '10.3.0.1')).body.success).toBe(true);
    });

    it('IPv6: compared as a request compares it, case aside', async () => {
      await app.saveLoginStrategy({ bindIp: true });
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password, { ip: '2001:db8::a1' });
      expect(await stateOf(token, '2001:DB8::A1')).toMatchObject({ active: true });
      expect(await stateOf(token, '2001:db8::a2')).toEqual({ active: false, reason: 'IP_MISMATCH' });
    });

    it('bindIp off: any ip is active', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password, { ip: '10.3.1.1' });
      expect(await stateOf(token, '192.0.2.9')).toMatchObject({ active: true });
    });
  });

  describe('renewal', () => {
    it('below half its validity an introspection renews the session: expireAt moves, and the user lives on', async () => {
      const user = await createActiveUser(app);
      const loginAt = app.clock.nowMs();
      const token = await app.token(user.username, user.password);
      // 10 of 30 minutes gone: more than half left, nothing moves.
      app.clock.advance(10 * MIN);
      expect(await stateOf(token)).toMatchObject({ active: true, expireAt: loginAt + 30 * MIN });
      expect((await app.sessionOf(token)).expireAt).toBe(loginAt + 30 * MIN);
      // 20 minutes gone: 10 left, below half: renewed to full from now.
      app.clock.advance(10 * MIN);
      const renewedAt = app.clock.nowMs();
      expect(await stateOf(token)).toMatchObject({ active: true, loginTime: loginAt, expireAt: renewedAt + 30 * MIN });
      expect(await app.sessionOf(token)).toMatchObject({ expireAt: renewedAt + 30 * MIN, renewedAt });
      // 45 minutes after the login, long past the first expiry, with no request of the user meanwhile.
      app.clock.advance(25 * MIN);
      expect((await me(token)).body).toMatchObject({ success: true, data: { id: user.id } });
    });

    it('a temporary token is active with tempUser true and is never renewed', async () => {
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const user = await createUser(app);
      const loginAt = app.clock.nowMs();
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({ tempUser: true });
      const token = res.body.data!.accessToken;
      app.clock.advance(4 * MIN);
      expect(await stateOf(token)).toMatchObject({ active: true, tempUser: true, expireAt: loginAt + 5 * MIN });
      app.clock.advance(MIN + 1);
      expect(await stateOf(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    });
  });

  describe('mfa', () => {
    const codeNow = (secret: string) => totpCode(secret, stepAt(app.clock.nowMs()));

    async function enrolled(): Promise<{ user: TestUser; secret: string }> {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token })).body.data;
      expect((await app.post('/sys/me/mfa/enable', { code: codeNow(secret) }, { token })).body.code).toBe('OK');
      await app.post('/sys/logout', {}, { token });
      app.clock.advance(30_000);
      return { user, secret };
    }

    const qrLogin = async (token: string) => {
      const { code } = (await app.post('/auth/qrcode/generate', {}, { token })).body.data;
      const verified = await app.post('/auth/qrcode/verify', { code });
      expect(verified.body.success).toBe(true);
      return verified.body.data.accessToken as string;
    };

    it('true after a login that gave a second factor, and for a QR login authorised by that session', async () => {
      const { user, secret } = await enrolled();
      await app.saveLoginStrategy({ mfaMode: 1 });
      const first = await app.login(user.username, user.password);
      const second = await app.post('/sys/login/mfa', {
        mfaToken: (first.body.data as any).mfaToken,
        code: codeNow(secret),
      });
      const token = second.body.data.accessToken;
      expect(await stateOf(token)).toMatchObject({ active: true, mfa: true });
      expect(await stateOf(await qrLogin(token))).toMatchObject({ active: true, mfa: true });
    });

    it('false after a password alone, even for an enrolled user, and for QR logins from such a session', async () => {
      const { user } = await enrolled();
      // mfaMode 0: the enrolled user is not asked for a code.
      const token = await app.token(user.username, user.password);
      expect(await stateOf(token)).toMatchObject({ active: true, mfa: false });
      await app.saveLoginStrategy({ mfaMode: 1 });
      expect(await stateOf(await qrLogin(token))).toMatchObject({ active: true, mfa: false });
    });
  });

  describe('the caller', () => {
    it('a caller without sys:token:introspect is FORBIDDEN and learns nothing about the token', async () => {
      const other = await createActiveUser(app);
      const callerToken = await app.token(other.username, other.password);
      const res = await app.post('/sys/token/introspect', { token: callerToken }, { token: callerToken });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    });

    it("the caller's own problems are errors of the call, never an inactive answer about the target", async () => {
      const user = await createActiveUser(app);
      const target = await app.token(user.username, user.password);
      const none = await app.post('/sys/token/introspect', { token: target });
      expect(none.status).toBe(401);
      expect(none.body).toEqual(NOT_LOGGED_IN);

      // A gateway session kicked out by its own second login: the call answers KICKED_OUT as an error.
      await app.saveLoginStrategy({ multiOnline: false });
      const stale = await app.token(gatewayUser.username, gatewayUser.password, { ip: GATEWAY_IP });
      gatewayToken = await app.token(gatewayUser.username, gatewayUser.password, { ip: GATEWAY_IP });
      const kicked = await app.post('/sys/token/introspect', { token: target }, { token: stale, ip: GATEWAY_IP });
      expect(kicked.status).toBe(401);
      expect(kicked.body).toEqual(KICKED_OUT);

      // A gateway on a temporary token.
      await app.saveUserStrategy({ forceUpdatePassword: true });
      const tempUser = await createUser(app, { roles: ['gateway'] });
      const temp = (await app.login(tempUser.username, tempUser.password)).body.data!.accessToken;
      const refused = await app.post('/sys/token/introspect', { token: target }, { token: temp });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(failure('TEMP_TOKEN_FORBIDDEN', '请先修改密码'));

      // The target was never touched by any of it.
      expect(await stateOf(target)).toMatchObject({ active: true, userId: user.id });
    });

    it('reauthForAdmin asks a session caller for a fresh proof, as for every code but list / info; a key needs none', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      await gateway();
      const { key } = await newKey(['sys:token:introspect']);
      await app.saveLoginStrategy({ reauthForAdmin: true });
      try {
        app.clock.advance(10 * MIN);
        const asked = await introspect({ token });
        expect([asked.status, asked.body.code]).toEqual([403, 'REAUTH_REQUIRED']);
        expect((await withKey(key, { token })).body.data).toMatchObject({ active: true });
      } finally {
        // The administrator proves the password again, so that the settings can be put back.
        const reauth = await app.post(
          '/sys/me/reauth',
          { password: await app.encrypt(ADMIN_PASSWORD) },
          { token: await app.adminToken(), ip: '10.9.9.9' },
        );
        expect(reauth.body.success).toBe(true);
      }
    });

    it('is not audited: no audit row per call', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      await gateway();
      const count = async () => Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_audit_log'))[0].n);
      const before = await count();
      for (let i = 0; i < 3; i += 1) await stateOf(token);
      await stateOf('unknown-token');
      expect(await count()).toBe(before);
    });
  });

  describe('an API key as the gateway', () => {
    it('a key holding sys:token:introspect asks as a session would, in either header', async () => {
      const { key } = await newKey(['sys:token:introspect']);
      await app.saveLoginStrategy({ multiOnline: false });
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password);
      for (const header of ['x-api-key', 'bearer'] as const) {
        const res = await withKey(key, { token: first }, header);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ success: true, data: { active: true, userId: user.id, mfa: false } });
      }
      await app.token(user.username, user.password);
      expect((await withKey(key, { token: first })).body.data).toEqual({ active: false, reason: 'KICKED_OUT' });
      expect((await withKey(key, { token: first }, 'bearer')).body.data).toEqual({
        active: false,
        reason: 'NOT_LOGGED_IN',
      });
      // A key is no session: asked about as a token, it is unknown.
      expect((await withKey(key, { token: key })).body.data).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    });

    it('a key without the code is FORBIDDEN; a revoked key NOT_LOGGED_IN — errors of the call, the token untouched', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const other = await newKey(['sys:user:list', 'sys:online:list']);
      const refused = await withKey(other.key, { token });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(FORBIDDEN);
      const denied = await app.db.query(
        "SELECT detail FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ?",
        [other.id],
      );
      expect(denied.map((row: { detail: string }) => JSON.parse(row.detail))).toEqual([
        expect.objectContaining({ path: '/sys/token/introspect', missing: ['sys:token:introspect'] }),
      ]);

      const gatewayKey = await newKey(['sys:token:introspect']);
      expect((await withKey(gatewayKey.key, { token })).body.data).toMatchObject({ active: true });
      expect((await app.admin('/sys/apiKey/revoke', { id: gatewayKey.id })).body.success).toBe(true);
      const revoked = await withKey(gatewayKey.key, { token });
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual(NOT_LOGGED_IN);
      expect(await stateOf(token)).toMatchObject({ active: true, userId: user.id });
    });

    it('with a key, the token is the only session read: one MGET, and no SQL', async () => {
      const { key } = await newKey(['sys:token:introspect']);
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      // The first call puts the key into the process's cache; the cache's once-a-second check is made
      // to see the store's stamp now, so that it has nothing to read again while the call is traced.
      expect((await withKey(key, { token })).body.data).toMatchObject({ active: true });
      await (app.app.get(ApiKeyCache) as any).check();
      const hash = sha256hex(token);
      const { calls, sql } = await traced(async () => {
        expect((await withKey(key, { token })).body.data).toMatchObject({ active: true });
      });
      expect(calls.filter((c) => c.args.includes('AUTH_TOKEN:'))).toEqual([
        { method: 'mget', args: JSON.stringify([[`AUTH_TOKEN:${hash}`, `AUTH_PERMS:${hash}`]]) },
      ]);
      expect(sql).toEqual([]);
    });
  });

  // A gateway's API key with a plain body is answered before the Nest route (src/token/introspection-fast-lane.ts);
  // whatever that lane leaves to the route must be answered as for a session.
  describe.each([['a session'], ['an API key']])('bad input from %s', (caller) => {
    let callerOpts: () => Promise<CallOptions>;
    beforeAll(async () => {
      if (caller === 'a session') {
        callerOpts = async () => ({});
        return;
      }
      const made = await app.admin('/sys/apiKey/create', {
        name: 'bad-input-gw',
        permissions: ['sys:token:introspect'],
      });
      const key = made.body.data.key as string;
      callerOpts = async () => ({ token: undefined, headers: { 'x-api-key': key } });
    });
    const ask = async (body: unknown, opts: CallOptions = {}) => {
      const base = await callerOpts();
      return introspect(body, { ...base, ...opts, headers: { ...base.headers, ...opts.headers } });
    };

    it.each([
      ['no token', {}, 'token', '令牌', 'Token'],
      ['an empty token', { token: '' }, 'token', '令牌', 'Token'],
      ['a token of 257 characters', { token: 'x'.repeat(257) }, 'token', '令牌', 'Token'],
      ['a token that is not a string', { token: 12345 }, 'token', '令牌', 'Token'],
      ['an ip that is no address', { token: 'abc', ip: 'not-an-ip' }, 'ip', 'IP地址', 'IP address'],
      ['an IPv6 address with a zone', { token: 'abc', ip: 'fe80::1%eth0' }, 'ip', 'IP地址', 'IP address'],
      ['an ip that is not a string', { token: 'abc', ip: 167772161 }, 'ip', 'IP地址', 'IP address'],
      ['an ip of null', { token: 'abc', ip: null }, 'ip', 'IP地址', 'IP address'],
      // A field the route does not take has no label: the message quotes it as sent.
      ['an unknown field', { token: 'abc', scope: 'all' }, 'scope', 'scope', 'scope'],
    ])(
      '%s is VALIDATION_FAILED naming the field by its label, in zh and en',
      async (_name, body, field, zhLabel, enLabel) => {
        const zh = await ask(body);
        expect(zh.status).toBe(400);
        expect(zh.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(zh.body.message).toContain(zhLabel);
        expect(zh.body.data.errors.map((e: { field: string }) => e.field)).toEqual([field]);
        const en = await ask(body, { headers: { 'accept-language': 'en' } });
        expect(en.body).toMatchObject({ code: 'VALIDATION_FAILED' });
        expect(en.body.message).toContain(enLabel);
      },
    );

    it('a body that is not a JSON object is VALIDATION_FAILED', async () => {
      for (const raw of ['null', '[]', '"token"']) {
        const res = await ask(undefined, { raw });
        expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
      }
    });
  });

  it("a key and a session asking about one token get one answer, in the caller's language", async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const made = await app.admin('/sys/apiKey/create', {
      name: 'same-answer-gw',
      permissions: ['sys:token:introspect'],
    });
    const byKey = await app.post(
      '/sys/token/introspect',
      { token },
      { ip: GATEWAY_IP, headers: { 'x-api-key': made.body.data.key } },
    );
    const bySession = await introspect({ token });
    expect(byKey.status).toBe(200);
    expect(byKey.headers['content-type']).toBe(bySession.headers['content-type']);
    expect(byKey.body).toEqual(bySession.body);
    const en = await app.post(
      '/sys/token/introspect',
      { token },
      {
        ip: GATEWAY_IP,
        headers: { 'x-api-key': made.body.data.key, 'accept-language': 'en' },
      },
    );
    expect(en.body.message).toBe((await introspect({ token }, { headers: { 'accept-language': 'en' } })).body.message);
  });

  it("a key's plain question is answered before the Nest route: its validation pipe never runs", async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const made = await app.admin('/sys/apiKey/create', { name: 'lane-gw', permissions: ['sys:token:introspect'] });
    const pipe = jest.spyOn(BodyValidationPipe.prototype, 'transform');
    try {
      const byKey = await app.post(
        '/sys/token/introspect',
        { token },
        { ip: GATEWAY_IP, headers: { 'x-api-key': made.body.data.key } },
      );
      expect(byKey.body.data).toMatchObject({ active: true, userId: user.id });
      expect(pipe).not.toHaveBeenCalled();
      // An extra field is the route's to refuse: the pipe runs, and names it.
      const refused = await app.post(
        '/sys/token/introspect',
        { token, scope: 'all' },
        { ip: GATEWAY_IP, headers: { 'x-api-key': made.body.data.key } },
      );
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(pipe).toHaveBeenCalled();
    } finally {
      pipe.mockRestore();
    }
  });

  it("answers through a serializer that carries exactly IntrospectionDto's fields", async () => {
    // INTROSPECTION_RESPONSE drops what it does not list: a documented field missing there would
    // silently vanish from the answer.
    const doc = (await app.app.inject({ method: 'GET', url: '/docs-json' })).json();
    const documented = doc.components.schemas.IntrospectionDto.properties as Record<string, any>;
    const typeOf = (p: any) => (p.type === 'array' ? `array of ${p.items.type}` : p.type);
    const serialized = INTROSPECTION_RESPONSE[200].properties.data.properties as Record<string, any>;
    expect(Object.fromEntries(Object.entries(serialized).map(([k, p]) => [k, typeOf(p)]))).toEqual(
      Object.fromEntries(Object.entries(documented).map(([k, p]) => [k, typeOf(p)])),
    );
    // The route does answer through it: a field slipped into the answer on its way is not sent.
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    await gateway();
    const adapter = app.app.getHttpAdapter() as any;
    const send = adapter.reply.bind(adapter);
    const reply = jest
      .spyOn(adapter, 'reply')
      .mockImplementation((response: any, result: any, status?: any) =>
        send(response, result?.userId ? { ...result, tokenHash: sha256hex(token) } : result, status),
      );
    try {
      const slipped = await stateOf(token);
      expect(reply).toHaveBeenCalled();
      expect(slipped).toMatchObject({ active: true, userId: user.id });
      expect(slipped).not.toHaveProperty('tokenHash');
    } finally {
      reply.mockRestore();
    }
  });

  describe('the hot path', () => {
    it('an active token costs one store read (session and codes together) and no SQL', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const callerToken = await gateway();
      await stateOf(token); // the strategy and the caller's session are warm
      const hash = sha256hex(token);
      const { calls, sql } = await traced(async () => {
        const res = await app.post('/sys/token/introspect', { token }, { token: callerToken, ip: GATEWAY_IP });
        expect(res.body.data).toMatchObject({ active: true });
      });
      const forTarget = calls.filter((c) => c.args.includes(hash));
      expect(forTarget).toEqual([
        { method: 'mget', args: JSON.stringify([[`AUTH_TOKEN:${hash}`, `AUTH_PERMS:${hash}`]]) },
      ]);
      // The only other store call: the gateway's own session, read the same way.
      expect(calls.filter((c) => !c.args.includes(hash))).toEqual([
        { method: 'mget', args: expect.stringContaining(sha256hex(callerToken)) },
      ]);
      expect(sql).toEqual([]);
      // The trace does see SQL where there is some.
      const control = await traced(() => app.admin('/sys/user/list', { pageNum: 1, pageSize: 1 }));
      expect(control.sqlCount).toBeGreaterThan(0);
    });

    if (backend.name === 'mariadb+redis') {
      it('Redis sees exactly one command about the token: one MGET', async () => {
        const user = await createActiveUser(app);
        const token = await app.token(user.username, user.password);
        await gateway();
        await stateOf(token);
        const hash = sha256hex(token);
        const monitor = createClient({ url: process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379' });
        await monitor.connect();
        const seen: string[][] = [];
        // A line: `<time> [<db> <client>] "MGET" "key" "key"`.
        await monitor.monitor((line: unknown) => {
          const args = [...String(line).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
          if (args.some((a) => a.includes(hash))) seen.push(args);
        });
        try {
          await stateOf(token);
          // MONITOR streams what the server ran; give the stream a moment to deliver the last lines.
          await new Promise((resolve) => setTimeout(resolve, 200));
        } finally {
          await monitor.close().catch(() => monitor.destroy());
        }
        expect(seen).toHaveLength(1);
        expect(seen[0][0].toUpperCase()).toBe('MGET');
        expect(seen[0].slice(1).map((k) => k.replace(/^[^:]*:/, ''))).toEqual([
          `AUTH_TOKEN:${hash}`,
          `AUTH_PERMS:${hash}`,
        ]);
      });
    }
  });
});
