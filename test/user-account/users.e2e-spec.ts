import { randomBytes } from 'node:crypto';

import { Logger } from '@nestjs/common';

import { fieldLabel } from '../../src/common/texts';
import { Keys } from '../../src/store/keys';
import { BACKENDS } from '../support/backends';
import { FORBIDDEN, NOT_LOGGED_IN, OK_NO_DATA, PASSWORD_NEEDS_UPPER } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { ADMIN_PASSWORD, startApp, TestApp, tokenKey } from '../support/test-app';
import { sleep } from '../support/wait';

const tag = () => randomBytes(4).toString('hex');
const mobileOf = () => `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

/** Every key of a JSON value, at any depth. */
function keysDeep(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysDeep);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [k, ...keysDeep(v)]);
  }
  return [];
}

/** Every line written through Nest's Logger, at any level, while the spies are on. */
function spyOnLogger() {
  const spies = (['log', 'warn', 'error', 'debug', 'verbose'] as const).map((level) =>
    jest.spyOn(Logger.prototype, level),
  );
  return {
    lines: (): string[] => spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(' '))),
    clear: () => spies.forEach((spy) => spy.mockClear()),
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}

describe.each(BACKENDS)('users, roles and the first-start admin on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  describe('first start', () => {
    it('creates exactly one user, admin, holding the built-in role admin with *, and an initial password', async () => {
      const users = await app.db.query('SELECT id, username, password_update_time FROM sys_user');
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({ username: 'admin', password_update_time: null });

      const login = await app.login('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
      expect(login.body).toMatchObject({ success: true, code: 'OK' });
      // The first-start admin's password is initial, so first-login rules apply.
      expect(login.body.data!.tip).toBe('您的密码为初始密码,请尽快修改密码');

      const list = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10 });
      expect(list.body.data.total).toBe(1);
      expect(list.body.data.rows[0]).toMatchObject({ id: users[0].id, username: 'admin', roles: ['admin'] });

      const roles = await app.admin('/sys/role/list');
      expect(roles.body.data).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: 'admin', permissions: ['*'] })]),
      );
      const me = await app.admin('/sys/me/info');
      expect(me.body.data.permissions).toEqual(['*']);
    });

    it('does not create a second admin when another instance starts on the same database', async () => {
      const before = (await app.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n;
      const second = await startApp(backend, { provisioned: app.provisioned });
      try {
        const admins = await second.db.query('SELECT id FROM sys_user WHERE username = ?', ['admin']);
        expect(admins).toHaveLength(1);
        expect(Number((await second.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n)).toBe(Number(before));
        // The admin password is still the first one.
        expect((await second.login('admin', ADMIN_PASSWORD)).body.success).toBe(true);
      } finally {
        await second.close();
      }
    });

    it('without ADMIN_INITIAL_PASSWORD generates a password, logs it once, and it logs in as an initial password', async () => {
      const logger = spyOnLogger();
      let fresh: TestApp | undefined;
      let again: TestApp | undefined;
      try {
        fresh = await startApp(backend, { env: { ADMIN_INITIAL_PASSWORD: undefined as unknown as string } });
        const announced = logger.lines().filter((line) => line.includes('admin') && /password|密码/i.test(line));
        expect(announced).toHaveLength(1);
        // It tells the operator to change it at once.
        expect(announced[0]).toMatch(/change this initial password at once/);
        // The password is the last word of the announcement.
        const password = announced[0].trim().split(/\s+/).at(-1)!;
        expect(password).not.toBe(ADMIN_PASSWORD);
        expect(logger.lines().filter((line) => line.includes(password))).toHaveLength(1);

        const login = await fresh.login('admin', password);
        expect(login.body).toMatchObject({
          success: true,
          data: { tempUser: false, tip: '您的密码为初始密码,请尽快修改密码' },
        });
        const [row] = await fresh.db.query('SELECT password, password_update_time FROM sys_user WHERE username = ?', [
          'admin',
        ]);
        expect(row.password_update_time).toBeNull();
        expect(row.password).toMatch(/^\$2[aby]\$/);

        // A restart on the same database neither creates nor prints a password again.
        logger.clear();
        again = await startApp(backend, {
          provisioned: fresh.provisioned,
          env: { ADMIN_INITIAL_PASSWORD: undefined as unknown as string },
        });
        expect(logger.lines().filter((line) => line.includes(password))).toHaveLength(0);
        expect(await again.db.query('SELECT id FROM sys_user')).toHaveLength(1);
        expect((await again.login('admin', password)).body.success).toBe(true);
      } finally {
        logger.restore();
        await again?.close();
        await fresh?.close();
      }
    });
  });

  describe('/sys/user/create', () => {
    it('with a password answers { id } only, stores a BCrypt hash and keeps the password initial', async () => {
      const username = `u_${tag()}`;
      const res = await app.admin('/sys/user/create', {
        username,
        name: '张三',
        mobile: mobileOf(),
        email: `${username}@example.com`,
        password: await app.encrypt('Given#pw1'),
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      expect(res.body.data).toEqual({ id: expect.any(String) });

      const row = await app.userRow(res.body.data.id);
      expect(row).toMatchObject({ username, name: '张三', password_update_time: null });
      expect(row.password).toMatch(/^\$2[aby]\$/);
      expect(row.password).not.toBe('Given#pw1');
      expect(row.password).not.toContain('Given#pw1');

      const login = await app.login(username, 'Given#pw1');
      expect(login.body).toMatchObject({ success: true, data: { tip: '您的密码为初始密码,请尽快修改密码' } });
    });

    it('without a password generates one meeting the account strategy, returns it once, and it logs in', async () => {
      await app.saveUserStrategy({ minPasswordLength: 16, maxPasswordLength: 18, includeUpperCase: true });
      try {
        const username = `g_${tag()}`;
        const res = await app.admin('/sys/user/create', { username, name: 'Generated' });
        expect(res.body.success).toBe(true);
        expect(res.body.data).toEqual({ id: expect.any(String), password: expect.any(String) });
        const { id, password } = res.body.data;
        expect([...password].length).toBeGreaterThanOrEqual(16);
        expect([...password].length).toBeLessThanOrEqual(18);
        expect(password).toMatch(/[0-9]/);
        expect(password).toMatch(/[A-Z]/);
        expect(password).toMatch(/[a-z]/);
        expect(password).toMatch(/[^\p{L}0-9\s]/u);

        const row = await app.userRow(id);
        expect(row.password_update_time).toBeNull();
        expect(row.password).toMatch(/^\$2[aby]\$/);
        expect(row.password).not.toBe(password);
        const login = await app.login(username, password);
        expect(login.body).toMatchObject({ success: true, data: { tip: '您的密码为初始密码,请尽快修改密码' } });
        // Only the creation answer carries it: the list never does.
        const list = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: username });
        expect(JSON.stringify(list.body)).not.toContain(password);
      } finally {
        await app.saveUserStrategy({ minPasswordLength: 6, maxPasswordLength: 20, includeUpperCase: false });
      }
    });

    it.each([
      ['username', (u: { username: string; mobile: string; email: string }) => ({ username: u.username })],
      ['mobile', (u: { username: string; mobile: string; email: string }) => ({ mobile: u.mobile })],
      ['email', (u: { username: string; mobile: string; email: string }) => ({ email: u.email })],
    ])('refuses a duplicate %s with VALIDATION_FAILED and writes no second row', async (field, clash) => {
      const existing = await createUser(app);
      const fresh = `d_${tag()}`;
      const body = {
        username: fresh,
        name: 'Dup',
        mobile: mobileOf(),
        email: `${fresh}@example.com`,
        password: await app.encrypt('Passw0rd!x'),
        ...clash(existing),
      };
      const res = await app.admin('/sys/user/create', body);
      expect(res.status).toBe(400);
      // The answer names the refused field in data.errors (it was data: null before).
      expect(res.body).toMatchObject({
        success: false,
        code: 'VALIDATION_FAILED',
        data: { errors: [{ field, message: expect.stringContaining(fieldLabel(field, 'zh')) }] },
      });
      expect(res.body.data.errors).toHaveLength(1);
      // Mobiles and e-mails are sealed at rest: the list's whole-value search finds who holds one.
      const found = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: (existing as any)[field] });
      expect(found.body.data.rows.map((r: any) => r.id)).toEqual([existing.id]);
      expect(await app.db.query('SELECT id FROM sys_user WHERE username = ?', [body.username])).toHaveLength(
        field === 'username' ? 1 : 0,
      );
    });

    it('refuses an unknown role with VALIDATION_FAILED and creates nothing', async () => {
      const username = `r_${tag()}`;
      const res = await app.admin('/sys/user/create', {
        username,
        name: 'Role',
        password: await app.encrypt('Passw0rd!x'),
        roles: ['no_such_role'],
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      // The message names the field.
      expect(res.body.message).toContain('角色');
      expect(res.body.message).toContain('no_such_role');
      expect(await app.db.query('SELECT id FROM sys_user WHERE username = ?', [username])).toHaveLength(0);
    });

    it.each([
      ['abc', 'PASSWORD_TOO_SHORT', '密码长度应大于6'],
      ['abc#1'.repeat(5), 'PASSWORD_TOO_LONG', '密码长度应小于20'],
      ['abcdefg#', 'PASSWORD_NEEDS_DIGIT', '密码应包含数字'],
      ['ABCDEF1#', 'PASSWORD_NEEDS_LOWER', '密码应包含小写字符'],
      ['abcdef12', 'PASSWORD_NEEDS_SYMBOL', '密码应包含特殊字符'],
    ])('refuses the password %p with %s and creates nothing', async (password, code, message) => {
      const username = `p_${tag()}`;
      const res = await app.admin('/sys/user/create', {
        username,
        name: 'Weak',
        password: await app.encrypt(password),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, code, message, data: null });
      expect(await app.db.query('SELECT id FROM sys_user WHERE username = ?', [username])).toHaveLength(0);
    });

    it('applies the upper-case rule when the account strategy asks for it', async () => {
      await app.saveUserStrategy({ includeUpperCase: true });
      try {
        const res = await app.admin('/sys/user/create', {
          username: `up_${tag()}`,
          name: 'Upper',
          password: await app.encrypt('abcdef1#'),
        });
        expect(res.body).toMatchObject({ code: 'PASSWORD_NEEDS_UPPER', message: '密码应包含大写字符' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(PASSWORD_NEEDS_UPPER);
      } finally {
        await app.saveUserStrategy({ includeUpperCase: false });
      }
    });

    it('refuses a password sent in plain text', async () => {
      const username = `pt_${tag()}`;
      const res = await app.admin('/sys/user/create', { username, name: 'Plain', password: 'Passw0rd!x' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body).toMatchObject({ success: false, data: namesFields('password') });
      expect(res.body.message).toContain('密码');
      expect(await app.db.query('SELECT id FROM sys_user WHERE username = ?', [username])).toHaveLength(0);
    });

    it('needs sys:user:create', async () => {
      const res = await app.post('/sys/user/create', { username: `n_${tag()}`, name: 'No token' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('NOT_LOGGED_IN');
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('/sys/user/list', () => {
    it('pages with pageNum/pageSize and a total, in a stable order', async () => {
      const common = `pg${tag()}`;
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await createUser(app, { name: `${common} ${i}` }));
      const page = async (pageNum: number) =>
        (await app.admin('/sys/user/list', { pageNum, pageSize: 2, keyword: common })).body.data;
      const [p1, p2, p3, p4] = [await page(1), await page(2), await page(3), await page(4)];
      expect([p1.total, p2.total, p3.total, p4.total]).toEqual([5, 5, 5, 5]);
      expect([p1.rows.length, p2.rows.length, p3.rows.length, p4.rows.length]).toEqual([2, 2, 1, 0]);
      const ids = [...p1.rows, ...p2.rows, ...p3.rows].map((r: any) => r.id);
      expect(new Set(ids).size).toBe(5);
      expect(ids.sort()).toEqual(created.map((u) => u.id).sort());
    });

    it('defaults to the first page and refuses bad paging', async () => {
      const res = await app.admin('/sys/user/list', {});
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({ total: expect.any(Number), rows: expect.any(Array) });
      for (const bad of [{ pageNum: 0 }, { pageSize: 0 }, { pageSize: 10000 }, { pageNum: 'x' }]) {
        const r = await app.admin('/sys/user/list', bad);
        expect(r.status).toBe(400);
        expect(r.body.code).toBe('VALIDATION_FAILED');
      }
    });

    it('matches the keyword against user name and name in part, and a whole mobile or e-mail', async () => {
      const k = tag();
      const mobileTail = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
      const make = async (fields: Record<string, string>) => {
        const res = await app.admin('/sys/user/create', {
          name: 'Someone',
          password: await app.encrypt('Passw0rd!x'),
          ...fields,
        });
        expect(res.body.success).toBe(true);
        return res.body.data.id as string;
      };
      const byUsername = await make({ username: `kw_${k}_a` });
      const byName = await make({ username: `kw_b${tag()}`, name: `Name ${k}` });
      const byMobile = await make({ username: `kw_c${tag()}`, mobile: `18${mobileTail}999` });
      const byEmail = await make({ username: `kw_d${tag()}`, email: `mail.${k}@example.org` });
      const search = async (keyword: string) =>
        (await app.admin('/sys/user/list', { pageNum: 1, pageSize: 50, keyword })).body.data.rows.map((r: any) => r.id);

      expect(await search(`kw_${k}`)).toEqual([byUsername]);
      expect(await search(`Name ${k}`)).toEqual([byName]);
      // Sealed at rest (docs/security.md#personal-data): a mobile or an e-mail matches whole (an e-mail whatever its case), never in part.
      expect(await search(`18${mobileTail}999`)).toEqual([byMobile]);
      expect(await search(`${mobileTail}999`)).toEqual([]);
      expect(await search(`MAIL.${k}@example.org`)).toEqual([byEmail]);
      expect(await search(`mail.${k}`)).toEqual([]);
      expect((await search(k)).sort()).toEqual([byUsername, byName].sort());
      expect(await search(`nothing_${tag()}`)).toEqual([]);
    });

    it('treats %, _ and the escape characters in the keyword as plain characters', async () => {
      const k = tag();
      const res = await app.admin('/sys/user/create', {
        username: `pct${k}`,
        name: `100%_! ${k}`,
        password: await app.encrypt('Passw0rd!x'),
      });
      const list = async (keyword: string) =>
        (await app.admin('/sys/user/list', { pageNum: 1, pageSize: 50, keyword })).body;
      expect((await list(`%_! ${k}`)).data.rows.map((r: any) => r.id)).toEqual([res.body.data.id]);
      expect((await list(`0_! ${k}`)).data.total).toBe(0);
      expect((await list(`%%! ${k}`)).data.total).toBe(0);
      expect((await list(`\\ ${k}`)).data.total).toBe(0);
    });

    it('rows carry id, roles and the lock and disable flags, and never a password or a hash', async () => {
      await createRole(app, 'list_viewer', ['sys:user:list']);
      const user = await createUser(app, { roles: ['list_viewer'] });
      const other = await createUser(app);
      await app.admin('/sys/user/lock', { id: user.id });
      await app.admin('/sys/user/disable', { id: other.id });

      const res = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 200 });
      const rows: any[] = res.body.data.rows;
      const locked = rows.find((r) => r.id === user.id);
      const disabled = rows.find((r) => r.id === other.id);
      expect(locked).toMatchObject({
        id: user.id,
        username: user.username,
        mobile: user.mobile,
        email: user.email,
        roles: ['list_viewer'],
        locked: true,
        disabled: false,
      });
      expect(disabled).toMatchObject({ id: other.id, roles: [], locked: false, disabled: true });
      for (const row of rows) {
        expect(row).toEqual(
          expect.objectContaining({
            id: expect.any(String),
            roles: expect.any(Array),
            locked: expect.any(Boolean),
            disabled: expect.any(Boolean),
          }),
        );
      }
      const json = JSON.stringify(res.body);
      expect(keysDeep(res.body).map((k) => k.toLowerCase())).not.toContain('password');
      expect(json).not.toMatch(/\$2[aby]\$/);
      expect(json).not.toContain(user.password);
    });
  });

  describe('roles and permissions', () => {
    it('/sys/role/save creates a role by code and updates it in place; /sys/role/list shows it', async () => {
      const code = `auditor_${tag()}`;
      const created = await app.admin('/sys/role/save', { code, name: '审计员', permissions: ['sys:loginLog:list'] });
      expect(created.body).toMatchObject({ success: true, code: 'OK' });
      let list = (await app.admin('/sys/role/list')).body.data as any[];
      expect(list.filter((r) => r.code === code)).toEqual([
        expect.objectContaining({ code, name: '审计员', permissions: ['sys:loginLog:list'] }),
      ]);

      const updated = await app.admin('/sys/role/save', {
        code,
        name: 'Auditor',
        permissions: ['sys:loginLog:list', 'sys:user:list'],
      });
      expect(updated.body.success).toBe(true);
      list = (await app.admin('/sys/role/list')).body.data as any[];
      const mine = list.filter((r) => r.code === code);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ code, name: 'Auditor' });
      expect([...mine[0].permissions].sort()).toEqual(['sys:loginLog:list', 'sys:user:list']);
    });

    it('refuses a malformed role', async () => {
      for (const bad of [
        { name: 'no code', permissions: [] },
        { code: 'x', name: 'no permissions' },
        { code: 'x', name: 'x', permissions: 'sys:user:list' },
        { code: 'has space', name: 'x', permissions: [] },
      ]) {
        const res = await app.admin('/sys/role/save', bad);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
    });

    it('a role holding only sys:user:list lets its user list users but not create them', async () => {
      const code = `viewer_${tag()}`;
      await createRole(app, code, ['sys:user:list']);
      const user = await createUser(app, { roles: [code] });
      const token = await app.token(user.username, user.password);

      const list = await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token });
      expect(list.status).toBe(200);
      expect(list.body.success).toBe(true);
      expect(list.body.data.total).toBeGreaterThan(0);

      const username = `f_${tag()}`;
      const create = await app.post(
        '/sys/user/create',
        { username, name: 'Nope', password: await app.encrypt('Passw0rd!x') },
        { token },
      );
      expect(create.status).toBe(403);
      expect(create.body).toEqual(FORBIDDEN);
      expect(await app.db.query('SELECT id FROM sys_user WHERE username = ?', [username])).toHaveLength(0);

      for (const path of ['/sys/role/save', '/sys/role/list', '/sys/user/lock', '/sys/loginLog/list']) {
        const res = await app.post(
          path,
          path === '/sys/role/save'
            ? { code: 'x', name: 'x', permissions: ['*'] }
            : path === '/sys/user/lock'
              ? { id: user.id }
              : {},
          { token },
        );
        expect({ path, code: res.body.code }).toEqual({ path, code: 'FORBIDDEN' });
        expect({ path, status: res.status, message: res.body.message }).toEqual({
          path,
          status: 403,
          message: '没有权限',
        });
      }
    });

    it('a user without any role is refused every permission-gated operation', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      const res = await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect(res.body).toEqual(FORBIDDEN);
    });

    it('the built-in role admin cannot lose *', async () => {
      const res = await app.admin('/sys/role/save', {
        code: 'admin',
        name: '超级管理员',
        permissions: ['sys:user:list'],
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      const admin = ((await app.admin('/sys/role/list')).body.data as any[]).find((r) => r.code === 'admin');
      expect(admin.permissions).toContain('*');
      // The admin still has every permission.
      expect(
        (await app.admin('/sys/user/create', { username: `a_${tag()}`, name: 'Still allowed' })).body.success,
      ).toBe(true);
      // Keeping * while renaming or adding codes is fine.
      const keep = await app.admin('/sys/role/save', {
        code: 'admin',
        name: '超级管理员',
        permissions: ['*', 'sys:user:list'],
      });
      expect(keep.body.success).toBe(true);
    });
  });

  describe('/sys/me/info', () => {
    it('returns { id, username, name, mobile, email, permissions, tempUser } of the caller', async () => {
      const code = `me_${tag()}`;
      await createRole(app, code, ['sys:user:list', 'sys:loginLog:list']);
      const user = await createUser(app, { roles: [code], name: '李四' });
      const token = await app.token(user.username, user.password);
      const res = await app.post('/sys/me/info', {}, { token });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({
        id: user.id,
        username: user.username,
        name: '李四',
        mobile: user.mobile,
        email: user.email,
        permissions: expect.any(Array),
        tempUser: false,
        mfaEnabled: false,
        expireAt: expect.any(Number),
        serverTime: expect.any(Number),
        displayTimeZone: expect.any(String),
        adminMode: 'single',
        mfaMode: 0,
      });
      expect([...res.body.data.permissions].sort()).toEqual(['sys:loginLog:list', 'sys:user:list']);
      // What the console's expiry warning measures, on the service's clock.
      const stored = JSON.parse((await app.store.get(tokenKey(token)))!);
      expect(res.body.data).toMatchObject({ expireAt: stored.expireAt, serverTime: app.clock.nowMs() });
    });

    it('answers tempUser: true for a temporary token (initial password, forceUpdatePassword on)', async () => {
      const user = await createUser(app);
      await app.saveUserStrategy({ forceUpdatePassword: true });
      try {
        const token = await app.token(user.username, user.password);
        const res = await app.post('/sys/me/info', {}, { token });
        expect(res.body.data).toMatchObject({ id: user.id, tempUser: true, mobile: user.mobile, email: user.email });
      } finally {
        await app.saveUserStrategy({ forceUpdatePassword: false });
      }
    });

    it('answers null mobile and e-mail for a user created without them', async () => {
      const username = `nm_${tag()}`;
      const created = await app.admin('/sys/user/create', {
        username,
        name: 'Bare',
        password: await app.encrypt('Passw0rd!x'),
      });
      const token = await app.token(username, 'Passw0rd!x');
      const res = await app.post('/sys/me/info', {}, { token });
      expect(res.body.data).toEqual({
        id: created.body.data.id,
        username,
        name: 'Bare',
        mobile: null,
        email: null,
        permissions: [],
        tempUser: false,
        mfaEnabled: false,
        expireAt: expect.any(Number),
        serverTime: expect.any(Number),
        displayTimeZone: expect.any(String),
        adminMode: 'single',
        mfaMode: 0,
      });
    });

    it('needs a token', async () => {
      const res = await app.post('/sys/me/info');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('NOT_LOGGED_IN');
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });
  });
});

/**
 * Unlock and enable start the failure count again. A wrong password being counted
 * at that moment (the login holds the account's mutex) must not lock the account again with the
 * failures from before: unlock and enable wait for the login mutex, as lock, disable and reset do.
 */
describe.each(BACKENDS)('unlock and enable wait for a login of the same account on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  it.each(['unlock', 'enable'])("/sys/user/%s waits while the account's login mutex is held", async (op) => {
    const user = await createUser(app);
    await app.admin(op === 'unlock' ? '/sys/user/lock' : '/sys/user/disable', { id: user.id });
    const mutexKey = Keys.loginMutex(user.id);
    expect(await app.store.setIfAbsent(mutexKey, 'a login in progress', 10_000)).toBe(true);
    let answered = false;
    const pending = app.admin(`/sys/user/${op}`, { id: user.id }).then((res) => {
      answered = true;
      return res;
    });
    await sleep(200);
    expect(answered).toBe(false);
    const row = await app.userRow(user.id);
    expect(Boolean(op === 'unlock' ? row.locked : row.disabled)).toBe(true);

    await app.store.del(mutexKey);
    const res = await pending;
    expect(res.body).toEqual(OK_NO_DATA);
    const after = await app.userRow(user.id);
    expect(Boolean(op === 'unlock' ? after.locked : after.disabled)).toBe(false);
  });
});
