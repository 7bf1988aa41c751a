import { randomBytes } from 'node:crypto';

import { controllerRoutes } from '../../src/common/api-docs';
import { apiKeyReaches, PERMISSIONS, REQUIRES_FRESH_PROOF } from '../../src/common/auth-context';
import { PERMISSION_REGISTRY } from '../../src/common/permissions';
import { BACKENDS } from '../support/backends';
import { FORBIDDEN, NOT_LOGGED_IN, OK_NO_DATA } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { sha256hex, startApp, TestApp } from '../support/test-app';

const DAY = 86_400_000;
const KEY = /^lps_[0-9A-Za-z]{43}$/;
const tag = () => randomBytes(3).toString('hex');
/** Every code a key may hold: the registry's (`*` is not one of them). */
const KEY_CODES = PERMISSION_REGISTRY.map((p) => p.code);

/**
 * API keys of internal services: made once and shown once, stored as a hash, used as
 * `Authorization: Bearer lps_…` or `X-Api-Key`, limited by codes, addresses and expiry, revoked for
 * good, and everything done with one audited as `apikey:<name>`.
 */
describe.each(BACKENDS)('API keys on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const create = (body: Record<string, unknown>, token?: string) =>
    token ? app.post('/sys/apiKey/create', body, { token, ip: '10.9.9.9' }) : app.admin('/sys/apiKey/create', body);
  /** A key made by admin; its id, key and name. */
  const newKey = async (fields: Record<string, unknown> = {}) => {
    const name = `svc-${tag()}`;
    const res = await create({ name, permissions: ['sys:user:list'], ...fields });
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    return { id: res.body.data.id as string, key: res.body.data.key as string, name };
  };
  const bearer = (key: string, path: string, body: unknown = {}, ip = '10.0.0.1') =>
    app.post(path, body, { ip, headers: { authorization: `Bearer ${key}` } });
  const header = (key: string, path: string, body: unknown = {}, ip = '10.0.0.1') =>
    app.post(path, body, { ip, headers: { 'x-api-key': key } });
  /** A route called with the key and an empty body (POST) or none (GET). */
  const withEmptyBody = (key: string, route: { method: string; path: string }) =>
    app.app.inject({
      method: route.method.toUpperCase() as 'GET' | 'POST',
      url: route.path,
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.1' },
      ...(route.method === 'post' ? { payload: '{}' } : {}),
    });
  const listed = async () => (await app.admin('/sys/apiKey/list')).body.data as any[];
  const count = async (table: string) => Number((await app.db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const page = { pageNum: 1, pageSize: 10 };

  it('create answers the key once; it works in either header; the list shows its prefix and last use, never the key or its hash', async () => {
    const name = `billing-${tag()}`;
    const res = await create({ name, permissions: ['sys:user:list'], expiresInDays: 30, ipRanges: ['10.0.0.0/8'] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['id', 'key']);
    const { id, key } = res.body.data;
    expect(key).toMatch(KEY);

    // Stored as its SHA-256 only.
    const [row] = await app.db.query('SELECT * FROM sys_api_key WHERE id = ?', [id]);
    expect(row.key_hash).toBe(sha256hex(key));
    expect(JSON.stringify(row)).not.toContain(key.slice(8));

    const made = app.clock.nowMs();
    app.clock.advance(5_000);
    const viaBearer = await bearer(key, '/sys/user/list', page);
    expect(viaBearer.body).toMatchObject({ success: true, code: 'OK', data: { total: expect.any(Number) } });
    app.clock.advance(5_000);
    expect((await header(key, '/sys/user/list', page)).body.success).toBe(true);

    const all = await listed();
    const mine = all.find((k) => k.id === id);
    expect(mine).toEqual({
      id,
      name,
      prefix: key.slice(0, 8),
      permissions: ['sys:user:list'],
      createTime: new Date(made).toISOString(),
      expireTime: new Date(made + 30 * DAY).toISOString(),
      lastUsedTime: new Date(made + 10_000).toISOString(),
      ipRanges: ['10.0.0.0/8'],
      revoked: false,
    });
    const text = JSON.stringify(all);
    expect(text).not.toContain(key);
    expect(text).not.toContain(sha256hex(key));
  });

  it("checks the key's codes like a session's; a refusal is audited with the key as actor", async () => {
    const { id, key, name } = await newKey();
    const target = await createUser(app);
    const res = await bearer(key, '/sys/user/lock', { id: target.id });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(!!Number((await app.userRow(target.id)).locked)).toBe(false);
    const [denied] = await app.db.query(
      "SELECT * FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ? ORDER BY id",
      [id],
    );
    expect(denied).toMatchObject({ username: `apikey:${name}`, ip: '10.0.0.1' });
    expect(JSON.parse(denied.detail)).toMatchObject({ path: '/sys/user/lock', missing: ['sys:user:lock'] });
  });

  it('a user lock done with a key is audited with actor apikey:<name>; the key needs every code of the user it acts on', async () => {
    const { id, key, name } = await newKey({ permissions: ['sys:user:list', 'sys:user:lock', 'sys:user:unlock'] });
    const target = await createUser(app);
    expect((await bearer(key, '/sys/user/lock', { id: target.id }, '10.4.4.4')).body).toEqual(OK_NO_DATA);
    expect(!!Number((await app.userRow(target.id)).locked)).toBe(true);
    const rows = await app.db.query("SELECT * FROM sys_audit_log WHERE action = 'user.lock' AND target = ?", [
      target.id,
    ]);
    expect(rows).toEqual([
      expect.objectContaining({
        user_id: id,
        username: `apikey:${name}`,
        target_name: target.username,
        ip: '10.4.4.4',
      }),
    ]);
    // Listed as such by the audit log's own search, by the actor's name.
    const found = await app.admin('/sys/auditLog/list', { ...page, username: `apikey:${name}`, action: 'user.lock' });
    expect(found.body.data.rows).toEqual([expect.objectContaining({ username: `apikey:${name}`, target: target.id })]);

    // A user holding `*` is beyond a key's codes (as beyond a narrow administrator's).
    const superUser = await createUser(app, { roles: ['admin'] });
    expect((await bearer(key, '/sys/user/lock', { id: superUser.id })).body).toEqual(FORBIDDEN);
    expect(!!Number((await app.userRow(superUser.id)).locked)).toBe(false);
  });

  it('never reaches /sys/me/*, /sys/apiKey/* nor the routes of a person, whatever its codes: FORBIDDEN, never 500', async () => {
    const { key } = await newKey({ permissions: KEY_CODES });
    for (const path of [
      '/sys/me/info',
      '/sys/me/sessions',
      '/sys/me/mfa/setup',
      '/sys/me/reauth',
      '/sys/apiKey/list',
      '/sys/apiKey/create',
      '/sys/apiKey/revoke',
      '/sys/logout',
      '/sys/message/list',
      '/sys/message/streamTicket',
      '/auth/qrcode/generate',
    ]) {
      const res = await header(key, path);
      expect([path, res.status, res.body]).toEqual([path, 403, FORBIDDEN]);
    }
    const stream = await app.app.inject({ method: 'GET', url: '/sys/message/stream', headers: { 'x-api-key': key } });
    expect([stream.statusCode, stream.json()]).toEqual([403, FORBIDDEN]);
  });

  it('may hold the keys’ own codes, yet never reaches their routes with them', async () => {
    const { key } = await newKey({ permissions: ['sys:apiKey:list', 'sys:apiKey:create', 'sys:apiKey:revoke'] });
    for (const path of ['/sys/apiKey/list', '/sys/apiKey/create', '/sys/apiKey/revoke']) {
      expect([path, (await bearer(key, path, { name: `x-${tag()}`, permissions: [], id: 'x' })).body]).toEqual([
        path,
        FORBIDDEN,
      ]);
    }
  });

  it('reaches every route its codes name, beyond the refused paths: none answers it FORBIDDEN', async () => {
    const { key } = await newKey({ permissions: KEY_CODES });
    const reached = controllerRoutes(app.app).filter((route) => {
      const codes: string[] = Reflect.getMetadata(PERMISSIONS, route.handler) ?? [];
      const fresh = Reflect.getMetadata(REQUIRES_FRESH_PROOF, route.handler) === true;
      return apiKeyReaches(route.path, codes, fresh);
    });
    expect(reached.map((r) => r.path)).toEqual(expect.arrayContaining(['/sys/user/lock', '/sys/online/list']));
    for (const route of reached) {
      const res = await withEmptyBody(key, route);
      expect([route.path, res.statusCode === 403 && res.json().code === 'FORBIDDEN']).toEqual([route.path, false]);
    }
    // The online list answers a key's page, no session of its own marked current.
    const online = await bearer(key, '/sys/online/list', page);
    expect(online.body.success).toBe(true);
    expect(online.body.data.rows.every((r: any) => r.current === false)).toBe(true);
  });

  it('every route answers a key holding every code it may hold without a 500', async () => {
    const { key } = await newKey({ permissions: KEY_CODES });
    const routes = controllerRoutes(app.app);
    expect(routes.length).toBeGreaterThan(35);
    for (const route of routes) {
      const res = await withEmptyBody(key, route);
      expect([route.path, res.statusCode < 500]).toEqual([route.path, true]);
    }
  });

  it('needs no fresh proof while reauthForAdmin is on: it has no session to prove', async () => {
    const { key } = await newKey({ permissions: ['sys:user:list', 'sys:user:lock'] });
    const target = await createUser(app);
    await app.saveLoginStrategy({ reauthForAdmin: true });
    try {
      expect((await header(key, '/sys/user/lock', { id: target.id })).body).toEqual(OK_NO_DATA);
    } finally {
      await app.saveLoginStrategy({ reauthForAdmin: false });
    }
  });

  it('outside its address ranges (IPv4 and IPv6) the key answers NOT_LOGGED_IN', async () => {
    const { key } = await newKey({ ipRanges: ['10.20.0.0/16', '2001:db8::/32', '192.168.1.7'] });
    for (const ip of ['10.20.3.4', '2001:db8::5', '192.168.1.7']) {
      expect([ip, (await bearer(key, '/sys/user/list', page, ip)).body.success]).toEqual([ip, true]);
    }
    for (const ip of ['10.21.0.1', '2001:db9::1', '192.168.1.8', '127.0.0.1']) {
      const res = await bearer(key, '/sys/user/list', page, ip);
      expect([ip, res.status, res.body]).toEqual([ip, 401, NOT_LOGGED_IN]);
    }
  });

  it('after its expiry the key answers NOT_LOGGED_IN', async () => {
    const { key } = await newKey({ expiresInDays: 2 });
    app.clock.advance(2 * DAY - 1_000);
    try {
      expect((await bearer(key, '/sys/user/list', page)).body.success).toBe(true);
      app.clock.advance(1_000);
      const res = await bearer(key, '/sys/user/list', page);
      expect([res.status, res.body]).toEqual([401, NOT_LOGGED_IN]);
    } finally {
      app.clock.advance(-2 * DAY);
    }
  });

  it('revoked, it answers NOT_LOGGED_IN at once; the list says so; revoke is audited once and repeats as OK', async () => {
    const { id, key, name } = await newKey();
    expect((await bearer(key, '/sys/user/list', page)).body.success).toBe(true);
    expect((await app.admin('/sys/apiKey/revoke', { id })).body).toEqual(OK_NO_DATA);
    expect((await bearer(key, '/sys/user/list', page)).body).toEqual(NOT_LOGGED_IN);
    expect((await header(key, '/sys/user/list', page)).body).toEqual(NOT_LOGGED_IN);
    expect((await listed()).find((k) => k.id === id)).toMatchObject({ revoked: true });
    expect((await app.admin('/sys/apiKey/revoke', { id })).body).toEqual(OK_NO_DATA);
    const rows = await app.db.query(
      "SELECT action, username, target, target_name, detail FROM sys_audit_log WHERE action LIKE 'apiKey.%' AND target = ? ORDER BY id",
      [id],
    );
    expect(rows.map((r: any) => [r.action, r.username, r.target_name])).toEqual([
      ['apiKey.create', 'admin', name],
      ['apiKey.revoke', 'admin', name],
    ]);
    for (const r of rows) expect(r.detail).not.toContain(key.slice(8));
    expect((await app.admin('/sys/apiKey/revoke', { id: 'no-such-key' })).status).toBe(404);
  });

  it('an unknown key, a malformed X-Api-Key and a key sent as Admin-Token answer NOT_LOGGED_IN; Admin-Token wins over Bearer', async () => {
    const unknown = `lps_${'A'.repeat(43)}`;
    expect((await bearer(unknown, '/sys/user/list', page)).body).toEqual(NOT_LOGGED_IN);
    expect((await header('lps_short', '/sys/user/list', page)).body).toEqual(NOT_LOGGED_IN);
    expect((await header('', '/sys/user/list', page)).body).toEqual(NOT_LOGGED_IN);
    const { key } = await newKey();
    expect((await app.post('/sys/user/list', page, { token: key })).body).toEqual(NOT_LOGGED_IN);
    // A session sent as Admin-Token beside a Bearer key: the session is the caller.
    const token = await app.adminToken();
    const both = await app.post(
      '/sys/me/info',
      {},
      { token, ip: '10.9.9.9', headers: { authorization: `Bearer ${key}` } },
    );
    expect(both.body).toMatchObject({ success: true, data: { username: 'admin' } });
  });

  it('codes beyond the creator are FORBIDDEN; `*` is refused; nothing is made', async () => {
    const role = `keymaker_${tag()}`;
    await createRole(app, role, ['sys:apiKey:create', 'sys:apiKey:list', 'sys:user:list']);
    const maker = await createUser(app, { roles: [role] });
    const token = await app.token(maker.username, maker.password, { ip: '10.9.9.9' });
    const keys = await count('sys_api_key');
    const actions = Number(
      (await app.db.query("SELECT COUNT(*) AS n FROM sys_audit_log WHERE action = 'apiKey.create'"))[0].n,
    );

    const beyond = await create({ name: `x-${tag()}`, permissions: ['sys:user:list', 'sys:user:lock'] }, token);
    expect([beyond.status, beyond.body]).toEqual([403, FORBIDDEN]);
    for (const permissions of [['*'], ['sys:user:list', '*']]) {
      const res = await app.admin('/sys/apiKey/create', { name: `x-${tag()}`, permissions });
      expect([permissions, res.status, res.body.code, res.body.data]).toEqual([
        permissions,
        400,
        'VALIDATION_FAILED',
        namesFields('permissions'),
      ]);
    }
    expect(await count('sys_api_key')).toBe(keys);
    const within = await create({ name: `ok-${tag()}`, permissions: ['sys:user:list'] }, token);
    expect(within.body.success).toBe(true);
    expect(await count('sys_api_key')).toBe(keys + 1);
    expect(
      Number((await app.db.query("SELECT COUNT(*) AS n FROM sys_audit_log WHERE action = 'apiKey.create'"))[0].n),
    ).toBe(actions + 1);
  });

  it('bad input answers VALIDATION_FAILED naming the field, in zh and en, and makes nothing', async () => {
    const taken = await newKey();
    const keys = await count('sys_api_key');
    const audit = await count('sys_audit_log');
    const good = { name: `ok-${tag()}`, permissions: ['sys:user:list'] };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, ipRanges: ['10.0.0.0/33'] }, 'ipRanges'],
      [{ ...good, ipRanges: ['10.0.0.1', 'not-an-ip'] }, 'ipRanges'],
      [{ ...good, ipRanges: ['2001:db8::/129'] }, 'ipRanges'],
      [{ ...good, ipRanges: ['fe80::1%eth0'] }, 'ipRanges'],
      [{ ...good, ipRanges: '10.0.0.0/8' }, 'ipRanges'],
      [{ ...good, permissions: ['sys:user:list', 'sys:no:such'] }, 'permissions'],
      [{ ...good, permissions: [] }, 'permissions'],
      [{ ...good, permissions: 'sys:user:list' }, 'permissions'],
      [{ ...good, name: 'n'.repeat(49) }, 'name'],
      [{ ...good, name: '' }, 'name'],
      [{ ...good, name: 'has space' }, 'name'],
      [{ ...good, name: taken.name.toUpperCase() }, 'name'],
      [{ ...good, expiresInDays: 0 }, 'expiresInDays'],
      [{ ...good, expiresInDays: 3651 }, 'expiresInDays'],
      [{ ...good, expiresInDays: 1.5 }, 'expiresInDays'],
      [{ ...good, expiresInDays: '30' }, 'expiresInDays'],
      [{ ...good, expiresInDays: null }, 'expiresInDays'],
      [{ ...good, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await app.admin('/sys/apiKey/create', body);
      expect([body, res.status, res.body.code, res.body.data]).toEqual([
        body,
        400,
        'VALIDATION_FAILED',
        namesFields(field),
      ]);
    }
    const en = await app.post(
      '/sys/apiKey/create',
      { ...good, ipRanges: ['300.0.0.0/8'] },
      { token: await app.adminToken(), ip: '10.9.9.9', headers: { 'accept-language': 'en' } },
    );
    expect(en.body.message).toBe(
      'IP ranges: each entry must be an IP address or a CIDR range (such as 10.0.0.0/8, 2001:db8::/32)',
    );
    const zh = await app.admin('/sys/apiKey/create', { ...good, permissions: ['sys:no:such'] });
    expect(zh.body.message).toBe('权限中有未知的权限编码: sys:no:such');
    expect(await count('sys_api_key')).toBe(keys);
    expect(await count('sys_audit_log')).toBe(audit);
  });

  it('the built-in admin (holding `*`) may use the routes; a caller without the codes may not', async () => {
    expect((await app.admin('/sys/apiKey/list')).body.success).toBe(true);
    const user = await createUser(app);
    const token = await app.token(user.username, user.password);
    for (const path of ['/sys/apiKey/list', '/sys/apiKey/create', '/sys/apiKey/revoke']) {
      expect((await app.post(path, {}, { token })).body).toEqual(FORBIDDEN);
    }
  });
});
