import { randomBytes } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import { FORBIDDEN } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { permsKey, startApp, TestApp } from '../support/test-app';

const tag = () => randomBytes(4).toString('hex');

/** Role saves and role assignments stay within the caller's codes. */
describe.each(BACKENDS)("grants stay within the caller's permission codes on $name", (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  /** A user whose only role holds exactly `codes`, logged in; returns the token and the role's code. */
  const caller = async (codes: string[]) => {
    const role = `narrow_${tag()}`;
    await createRole(app, role, codes);
    const user = await createUser(app, { roles: [role] });
    return { role, user, token: await app.token(user.username, user.password) };
  };
  const livePerms = async (token: string) => JSON.parse((await app.store.get(permsKey(token)))!) as string[];
  const roleOf = async (code: string) =>
    ((await app.admin('/sys/role/list')).body.data as any[]).find((r) => r.code === code);
  const newUser = async (token: string, roles: string[]) => {
    const username = `g_${tag()}`;
    const res = await app.post(
      '/sys/user/create',
      { username, name: 'Granted', password: await app.encrypt('Passw0rd!x'), roles },
      { token },
    );
    return { res, username, rows: await app.db.query('SELECT id FROM sys_user WHERE username = ?', [username]) };
  };

  describe("/sys/user/resetPass (the reset hands out the password, so it grants the target's codes)", () => {
    it('a caller holding only sys:user:resetPass cannot reset the password of a user holding more, a * holder included; nothing changes', async () => {
      const { token } = await caller(['sys:user:resetPass']);
      const superAdmin = await createUser(app, { roles: ['admin'] });
      const wider = `wider_${tag()}`;
      await createRole(app, wider, ['sys:user:list']);
      const target = await createUser(app, { roles: [wider] });
      for (const id of [superAdmin.id, target.id]) {
        const before = (await app.userRow(id)).password;
        const res = await app.post('/sys/user/resetPass', { id }, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(expect.objectContaining({ success: false, code: 'FORBIDDEN', data: null }));
        expect((await app.userRow(id)).password).toBe(before);
      }
      expect((await app.login(target.username, target.password)).body.success).toBe(true);
      expect((await app.login(superAdmin.username, superAdmin.password)).body.success).toBe(true);
    });

    it('can reset a user whose codes it holds; a * holder can reset anyone', async () => {
      const { token } = await caller(['sys:user:resetPass', 'sys:user:list']);
      const within = `within_${tag()}`;
      await createRole(app, within, ['sys:user:list']);
      const plain = await createUser(app, { roles: [within] });
      const res = await app.post('/sys/user/resetPass', { id: plain.id }, { token });
      expect(res.body).toMatchObject({ success: true, data: { password: expect.any(String) } });
      const wider = `wider_${tag()}`;
      await createRole(app, wider, ['sys:auditLog:list']);
      const other = await createUser(app, { roles: [wider] });
      expect((await app.admin('/sys/user/resetPass', { id: other.id })).body.success).toBe(true);
    });
  });

  describe('/sys/user/create', () => {
    it('a caller holding only sys:user:create cannot create a user with the role admin, and no row is written', async () => {
      const { token } = await caller(['sys:user:create']);
      const { res, rows } = await newUser(token, ['admin']);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect(rows).toHaveLength(0);
    });

    it("nor with a role that holds one code beyond the caller's", async () => {
      const { token } = await caller(['sys:user:create', 'sys:user:list']);
      const wider = `wider_${tag()}`;
      await createRole(app, wider, ['sys:user:list', 'sys:loginLog:list']);
      const { res, rows } = await newUser(token, [wider]);
      expect(res.body).toEqual(FORBIDDEN);
      expect(rows).toHaveLength(0);
    });

    it('can create a user with roles whose codes it holds (its own role included), or with no role', async () => {
      const { token, role } = await caller(['sys:user:create', 'sys:user:list']);
      const within = `within_${tag()}`;
      await createRole(app, within, ['sys:user:list']);
      const created = await newUser(token, [within, role]);
      expect(created.res.body).toMatchObject({ success: true, code: 'OK' });
      expect(created.rows).toEqual([{ id: created.res.body.data.id }]);
      const roles = (await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: created.username })).body
        .data.rows[0].roles;
      expect([...roles].sort()).toEqual([within, role].sort());
      expect((await newUser(token, [])).res.body.success).toBe(true);
    });

    it('an unknown role is still VALIDATION_FAILED, not FORBIDDEN', async () => {
      const { token } = await caller(['sys:user:create']);
      const { res } = await newUser(token, [`nope_${tag()}`]);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('a * holder may give any role, admin included', async () => {
      const username = `ga_${tag()}`;
      const res = await app.admin('/sys/user/create', {
        username,
        name: 'Second admin',
        password: await app.encrypt('Passw0rd!x'),
        roles: ['admin'],
      });
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      const token = await app.token(username, 'Passw0rd!x');
      expect((await app.post('/sys/me/info', {}, { token })).body.data.permissions).toEqual(['*']);
    });
  });

  describe('/sys/role/save', () => {
    it('a caller holding only sys:role:save cannot put * into its own role; its live session keeps its codes', async () => {
      const { token, role } = await caller(['sys:role:save']);
      const res = await app.post(
        '/sys/role/save',
        { code: role, name: role, permissions: ['sys:role:save', '*'] },
        { token },
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect(await livePerms(token)).toEqual(['sys:role:save']);
      expect((await roleOf(role)).permissions).toEqual(['sys:role:save']);
      // The session really cannot do more than before.
      expect((await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token })).body).toEqual(FORBIDDEN);
    });

    it('nor a single code it lacks, into its own role or a new one', async () => {
      const { token, role } = await caller(['sys:role:save', 'sys:user:list']);
      const own = await app.post(
        '/sys/role/save',
        { code: role, name: role, permissions: ['sys:role:save', 'sys:user:list', 'sys:user:create'] },
        { token },
      );
      expect(own.body).toEqual(FORBIDDEN);
      expect([...(await livePerms(token))].sort()).toEqual(['sys:role:save', 'sys:user:list']);
      const fresh = `fresh_${tag()}`;
      const other = await app.post(
        '/sys/role/save',
        { code: fresh, name: fresh, permissions: ['sys:user:lock'] },
        { token },
      );
      expect(other.body).toEqual(FORBIDDEN);
      expect(await roleOf(fresh)).toBeUndefined();
    });

    it('can save a role within its codes: a new one, and its own with fewer codes', async () => {
      const { token, role } = await caller(['sys:role:save', 'sys:user:list']);
      const fresh = `fresh_${tag()}`;
      const created = await app.post(
        '/sys/role/save',
        { code: fresh, name: fresh, permissions: ['sys:user:list'] },
        { token },
      );
      expect(created.body).toMatchObject({ success: true, code: 'OK' });
      expect((await roleOf(fresh)).permissions).toEqual(['sys:user:list']);
      const own = await app.post(
        '/sys/role/save',
        { code: role, name: 'renamed', permissions: ['sys:role:save'] },
        { token },
      );
      expect(own.body).toMatchObject({ success: true, code: 'OK' });
      expect(await livePerms(token)).toEqual(['sys:role:save']);
    });

    it('cannot edit a role that holds codes beyond its own: neither strip * from admin nor rename it', async () => {
      const { token } = await caller(['sys:role:save', 'sys:user:list']);
      for (const permissions of [['*'], ['*', 'sys:user:list'], ['sys:user:list']]) {
        const res = await app.post('/sys/role/save', { code: 'admin', name: 'taken over', permissions }, { token });
        expect({ permissions, body: res.body }).toEqual({ permissions, body: FORBIDDEN });
      }
      expect(await roleOf('admin')).toMatchObject({ name: '超级管理员', permissions: ['*'] });

      const above = `above_${tag()}`;
      await createRole(app, above, ['sys:user:list', 'sys:loginLog:list']);
      const strip = await app.post(
        '/sys/role/save',
        { code: above, name: above, permissions: ['sys:user:list'] },
        { token },
      );
      expect(strip.body).toEqual(FORBIDDEN);
      expect([...(await roleOf(above)).permissions].sort()).toEqual(['sys:loginLog:list', 'sys:user:list']);
    });

    it("a * holder may put any code into any role, and the members' sessions follow", async () => {
      const { token, role } = await caller(['sys:user:list']);
      const res = await app.admin('/sys/role/save', {
        code: role,
        name: role,
        permissions: ['sys:user:list', 'sys:loginLog:list'],
      });
      expect(res.body.success).toBe(true);
      expect([...(await livePerms(token))].sort()).toEqual(['sys:loginLog:list', 'sys:user:list']);
      const star = await app.admin('/sys/role/save', { code: `star_${tag()}`, name: 'star', permissions: ['*'] });
      expect(star.body.success).toBe(true);
    });
  });
});
