import { randomBytes } from 'node:crypto';

import { Logger } from '@nestjs/common';
import ExcelJS from 'exceljs';

import { ADMIN_SETS } from '../../src/common/permissions';
import { Backend, BACKENDS } from '../support/backends';
import { FORBIDDEN, OK_NO_DATA } from '../support/envelopes';
import { namesFields } from '../support/field-errors';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

const tag = () => randomBytes(4).toString('hex');
const THREE = { ADMIN_MODE: 'three' };
const setOf = (set: 'system' | 'security' | 'audit') => ADMIN_SETS.find((s) => s.set === set)!;

/**
 * ADMIN_MODE=three (三员分立, docs/security.md#three-administrators) on a fresh instance: the three
 * administrators, the set rule on roles and on grants, the built-in roles kept, nobody changing their
 * own roles.
 */
describe.each(BACKENDS)('three administrators on $name', (backend) => {
  let app: TestApp;
  const tokens: Record<string, string> = {};
  /** A call as one of the three administrators. */
  const as = (who: 'sysadmin' | 'secadmin' | 'auditadmin', path: string, body: unknown = {}, lang?: string) =>
    app.post(path, body, { token: tokens[who], headers: lang ? { 'accept-language': lang } : {} });

  beforeAll(async () => {
    app = await startApp(backend, { env: THREE });
    for (const who of ['sysadmin', 'secadmin', 'auditadmin']) tokens[who] = await app.token(who, ADMIN_PASSWORD);
  });
  afterAll(() => app.close());

  /** A user made by the system administrator, without roles, and (when `roles`) given them by the security one. */
  const newUser = async (roles?: string[]) => {
    const username = `u_${tag()}`;
    const created = await as('sysadmin', '/sys/user/create', {
      username,
      name: username,
      password: await app.encrypt('Passw0rd!x'),
    });
    expect(created.body.success).toBe(true);
    const id: string = created.body.data.id;
    if (roles) expect((await as('secadmin', '/sys/user/grant', { id, roles })).body).toEqual(OK_NO_DATA);
    return { id, username };
  };
  const saveRole = (permissions: string[], code = `r_${tag()}`, lang?: string) =>
    as('secadmin', '/sys/role/save', { code, name: code, permissions }, lang);

  it('creates only sysadmin, secadmin and auditadmin, each holding the built-in role of its set, and no role holds *', async () => {
    const users = await app.db.query('SELECT username, password_update_time FROM sys_user ORDER BY username');
    expect(users.map((u: any) => u.username)).toEqual(['auditadmin', 'secadmin', 'sysadmin']);
    expect(users.every((u: any) => u.password_update_time === null)).toBe(true);
    const roles = (await as('secadmin', '/sys/role/list')).body.data;
    expect(roles.map((r: any) => r.code).sort()).toEqual(['auditadmin', 'secadmin', 'sysadmin']);
    expect(roles.some((r: any) => r.permissions.includes('*'))).toBe(false);
    for (const set of ADMIN_SETS) {
      const role = roles.find((r: any) => r.code === set.role);
      expect(role).toMatchObject({ name: set.name.zh, users: [set.role], builtIn: true, sets: [set.set] });
      expect([...role.permissions].sort()).toEqual([...set.codes].sort());
      const me = (await as(set.role, '/sys/me/info')).body.data;
      expect(me).toMatchObject({ username: set.role, adminMode: 'three' });
      expect([...me.permissions].sort()).toEqual([...set.codes].sort());
    }
    // Each reaches its own set's routes only.
    expect((await as('auditadmin', '/sys/user/list', { pageNum: 1, pageSize: 10 })).body).toEqual(FORBIDDEN);
    expect((await as('sysadmin', '/sys/strategy/login/info')).body).toEqual(FORBIDDEN);
    expect((await as('secadmin', '/sys/loginLog/list', { pageNum: 1, pageSize: 10 })).body).toEqual(FORBIDDEN);
    expect((await as('auditadmin', '/sys/auditLog/list', { pageNum: 1, pageSize: 10 })).body.success).toBe(true);
  });

  it('answers the table of sets, in the caller language, to a holder of sys:role:list', async () => {
    const en = (await as('secadmin', '/sys/permission/sets', {}, 'en')).body.data;
    expect(en).toEqual(ADMIN_SETS.map((s) => ({ set: s.set, role: s.role, name: s.name.en, codes: [...s.codes] })));
    expect((await as('sysadmin', '/sys/permission/sets')).body.data[2].name).toBe('审计管理员');
    expect((await as('auditadmin', '/sys/permission/sets')).body).toEqual(FORBIDDEN);
  });

  it('refuses a role mixing two sets, or holding *, with a field message in the caller language; one set is saved', async () => {
    const mixed = await saveRole(['sys:loginLog:list', 'sys:user:create'], undefined, 'en');
    expect(mixed.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', data: namesFields('permissions') });
    expect(mixed.body.message).toContain('must all belong to one of the system, security and audit sets');
    const zh = await saveRole(['sys:loginLog:list', 'sys:strategy:login:save']);
    expect(zh.body.message).toContain('一个角色的权限只能属于系统、安全、审计中的一类');
    expect((await saveRole(['*'])).body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('permissions') });
    // The set rule replaces "within the caller's codes": the security administrator makes an audit role.
    const code = `auditor_${tag()}`;
    expect((await saveRole(['sys:loginLog:list', 'sys:auditLog:list'], code)).body.success).toBe(true);
    const role = (await as('secadmin', '/sys/role/list')).body.data.find((r: any) => r.code === code);
    expect(role).toMatchObject({ sets: ['audit'], builtIn: false });
    expect((await as('secadmin', '/sys/role/delete', { code })).body).toEqual(OK_NO_DATA);
  });

  it('keeps the built-in roles: no save, no delete', async () => {
    for (const set of ADMIN_SETS) {
      const save = await saveRole([...set.codes], set.role, 'en');
      expect(save.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('code') });
      expect(save.body.message).toBe(
        `The built-in role ${set.role} cannot be changed or deleted (three administrators)`,
      );
      const del = await as('secadmin', '/sys/role/delete', { code: set.role });
      expect(del.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('code') });
    }
    const [row] = await app.db.query('SELECT permissions FROM sys_role WHERE code = ?', ['auditadmin']);
    expect(JSON.parse(row.permissions).sort()).toEqual([...setOf('audit').codes].sort());
  });

  it('grants need sys:user:grant: the system administrator creates without roles, the security one gives them', async () => {
    const withRoles = await as('sysadmin', '/sys/user/create', {
      username: `u_${tag()}`,
      name: 'x',
      password: await app.encrypt('Passw0rd!x'),
      roles: ['auditadmin'],
    });
    expect(withRoles.body).toEqual(FORBIDDEN);
    const user = await newUser();
    expect((await as('sysadmin', '/sys/user/update', { id: user.id, roles: ['auditadmin'] })).body).toEqual(FORBIDDEN);
    expect((await as('sysadmin', '/sys/user/grant', { id: user.id, roles: ['auditadmin'] })).body).toEqual(FORBIDDEN);
    expect((await as('secadmin', '/sys/user/grant', { id: user.id, roles: ['auditadmin'] })).body).toEqual(OK_NO_DATA);
    const token = await app.token(user.username, 'Passw0rd!x');
    const me = (await app.post('/sys/me/info', {}, { token })).body.data;
    expect([...me.permissions].sort()).toEqual([...setOf('audit').codes].sort());
    // And takes them back (the target's codes are not the caller's: the set rule stands for them).
    expect((await as('secadmin', '/sys/user/grant', { id: user.id, roles: [] })).body).toEqual(OK_NO_DATA);
    expect((await app.post('/sys/me/info', {}, { token })).body.data.permissions).toEqual([]);
    const audit = await app.db.query("SELECT detail FROM sys_audit_log WHERE action = 'user.update' AND target = ?", [
      user.id,
    ]);
    expect(audit.map((a: any) => JSON.parse(a.detail).new.roles)).toEqual([['auditadmin'], []]);
  });

  it('the security administrator changes roles through /sys/user/update too, and nothing else there', async () => {
    const user = await newUser();
    expect((await as('secadmin', '/sys/user/update', { id: user.id, roles: ['auditadmin'] })).body).toEqual(OK_NO_DATA);
    const held = await app.db.query('SELECT role_code FROM sys_user_role WHERE user_id = ?', [user.id]);
    expect(held.map((r: any) => r.role_code)).toEqual(['auditadmin']);
    // Anything but the roles is the system administrator's (sys:user:update): refused whole, audited.
    const renamed = await as('secadmin', '/sys/user/update', { id: user.id, name: 'renamed', roles: [] });
    expect(renamed.body).toEqual(FORBIDDEN);
    expect((await as('secadmin', '/sys/user/update', { id: user.id, name: 'renamed' })).body).toEqual(FORBIDDEN);
    const [row] = await app.db.query('SELECT name FROM sys_user WHERE id = ?', [user.id]);
    expect(row.name).toBe(user.username);
    expect(
      (await app.db.query('SELECT role_code FROM sys_user_role WHERE user_id = ?', [user.id])).map(
        (r: any) => r.role_code,
      ),
    ).toEqual(['auditadmin']);
    const denied = await app.db.query(
      "SELECT detail FROM sys_audit_log WHERE action = 'access.denied' AND username = 'secadmin'",
    );
    expect(denied.map((d: any) => JSON.parse(d.detail))).toContainEqual(
      expect.objectContaining({ path: '/sys/user/update', missing: ['sys:user:update'] }),
    );
    // The rest stays the system administrator's, on a user whose codes it holds (none, once the roles are gone).
    expect((await as('secadmin', '/sys/user/update', { id: user.id, roles: [] })).body).toEqual(OK_NO_DATA);
    expect((await as('sysadmin', '/sys/user/update', { id: user.id, name: 'renamed' })).body).toEqual(OK_NO_DATA);
  });

  it('the system administrator imports users without roles, as /sys/user/create takes them', async () => {
    const book = new ExcelJS.Workbook();
    const ws = book.addWorksheet('users');
    ws.addRow(['用户名', '姓名', '手机号', '邮箱', '角色']);
    const username = `imp_${tag()}`;
    ws.addRow([username, 'Imported', '', `${username}@example.com`, '']);
    const file = Buffer.from(await book.xlsx.writeBuffer()).toString('base64');
    const res = await as('sysadmin', '/sys/user/import', { file });
    expect(res.body).toMatchObject({ success: true, data: { total: 1, created: 1, errors: [] } });
    // Roles in a row still need sys:user:grant, as in /sys/user/create.
    const other = new ExcelJS.Workbook();
    const sheet = other.addWorksheet('users');
    sheet.addRow(['用户名', '姓名', '手机号', '邮箱', '角色']);
    sheet.addRow([`imp_${tag()}`, 'Imported', '', `imp_${tag()}@example.com`, 'auditadmin']);
    const withRoles = await as('sysadmin', '/sys/user/import', {
      file: Buffer.from(await other.xlsx.writeBuffer()).toString('base64'),
    });
    expect(withRoles.body.success).toBe(false);
  });

  it("refuses a user's roles of two sets, naming roles", async () => {
    const user = await newUser();
    const res = await as('secadmin', '/sys/user/grant', { id: user.id, roles: ['auditadmin', 'sysadmin'] }, 'en');
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('roles') });
    expect(res.body.message).toContain("A user's roles must all belong to one of the system");
    const viewer = `viewer_${tag()}`;
    expect((await saveRole(['sys:user:list'], viewer)).body.success).toBe(true);
    // sys:user:list lies in two sets: with either one's role it stays within one.
    expect((await as('secadmin', '/sys/user/grant', { id: user.id, roles: ['sysadmin', viewer] })).body).toEqual(
      OK_NO_DATA,
    );
    const roles = await app.db.query('SELECT role_code FROM sys_user_role WHERE user_id = ? ORDER BY role_code', [
      user.id,
    ]);
    expect(roles.map((r: any) => r.role_code)).toEqual([viewer, 'sysadmin'].sort());
  });

  it('refuses a role save that would make one of its holders hold two sets', async () => {
    const code = `ops_${tag()}`;
    expect((await saveRole(['sys:loginLog:list'], code)).body.success).toBe(true);
    await newUser([code, 'auditadmin']);
    const res = await saveRole(['sys:online:list'], code, 'en');
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('permissions') });
    expect(res.body.message).toContain('1 user(s) holding this role would hold permissions of two administrator sets');
    expect((await saveRole(['sys:loginLog:list', 'sys:loginLog:export'], code)).body.success).toBe(true);
  });

  it('lets nobody change their own roles', async () => {
    const [{ id }] = await app.db.query('SELECT id FROM sys_user WHERE username = ?', ['secadmin']);
    const res = await as('secadmin', '/sys/user/grant', { id, roles: ['secadmin', `x_${tag()}`] });
    expect(res.body).toEqual(FORBIDDEN);
    expect((await as('secadmin', '/sys/user/grant', { id, roles: [] })).body).toEqual(FORBIDDEN);
    const roles = await app.db.query('SELECT role_code FROM sys_user_role WHERE user_id = ?', [id]);
    expect(roles.map((r: any) => r.role_code)).toEqual(['secadmin']);
  });
});

/** Every line written through Nest's Logger at warn level while the spy is on. */
function spyOnWarnings() {
  const spy = jest.spyOn(Logger.prototype, 'warn');
  return {
    lines: (): string[] => spy.mock.calls.map((args) => args.map(String).join(' ')),
    restore: () => spy.mockRestore(),
  };
}

/** An installation started in single mode, then again with ADMIN_MODE=three on the same database. */
describe.each(BACKENDS)('an installation switched to three administrators on $name', (backend: Backend) => {
  it('names each role and user breaking the set rule in the start log; they keep working until a save puts them right', async () => {
    const provisioned = await backend.provision();
    try {
      const single = await startApp(backend, { provisioned });
      const mixedRole = `mixed_${tag()}`;
      const auditRole = `auditor_${tag()}`;
      const systemRole = `helpdesk_${tag()}`;
      let mixedUser = '';
      try {
        for (const [code, permissions] of [
          [mixedRole, ['sys:user:list', 'sys:loginLog:list']],
          [auditRole, ['sys:loginLog:list']],
          [systemRole, ['sys:user:lock']],
        ] as const) {
          expect((await single.admin('/sys/role/save', { code, name: code, permissions })).body.success).toBe(true);
        }
        mixedUser = `two_${tag()}`;
        const created = await single.admin('/sys/user/create', {
          username: mixedUser,
          name: mixedUser,
          password: await single.encrypt('Passw0rd!x'),
          roles: [auditRole, systemRole],
        });
        expect(created.body.success).toBe(true);
      } finally {
        await single.close();
      }

      const warnings = spyOnWarnings();
      let three: TestApp;
      let lines: string[];
      try {
        three = await startApp(backend, { provisioned, env: THREE });
      } finally {
        // Restoring the spy forgets its calls.
        lines = warnings.lines();
        warnings.restore();
      }
      try {
        const report = lines.filter((l) => l.includes('ADMIN_MODE=three'));
        expect(report.sort()).toEqual(
          [
            `ADMIN_MODE=three: role "admin" has codes of no one administrator set (system, security, audit); it keeps working until it is saved within one`,
            `ADMIN_MODE=three: role "${mixedRole}" has codes of no one administrator set (system, security, audit); it keeps working until it is saved within one`,
            `ADMIN_MODE=three: user "admin" has roles (admin) whose codes lie in no one administrator set; it keeps them until its roles are changed`,
            `ADMIN_MODE=three: user "${mixedUser}" has roles (${[auditRole, systemRole].sort().join(', ')}) whose codes lie in no one administrator set; it keeps them until its roles are changed`,
          ].sort(),
        );
        // No first-start accounts on an installation with users; the built-in roles are there to give.
        const usernames = (await three.db.query('SELECT username FROM sys_user')).map((u: any) => u.username);
        expect(usernames.sort()).toEqual(['admin', mixedUser].sort());
        const codes = (await three.db.query('SELECT code FROM sys_role')).map((r: any) => r.code);
        expect(codes).toEqual(expect.arrayContaining(['sysadmin', 'secadmin', 'auditadmin', 'admin']));

        // admin keeps working, with `*`.
        expect((await three.admin('/sys/user/list', { pageNum: 1, pageSize: 10 })).body.success).toBe(true);
        // But no save keeps a violation: neither the mixed role as it is, nor admin with `*`.
        const same = await three.admin('/sys/role/save', {
          code: mixedRole,
          name: mixedRole,
          permissions: ['sys:user:list', 'sys:loginLog:list'],
        });
        expect(same.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('permissions') });
        const keepAll = await three.admin('/sys/role/save', { code: 'admin', name: 'admin', permissions: ['*'] });
        expect(keepAll.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('permissions') });
        // The mixed user's roles change only into one set.
        const [{ id }] = await three.db.query('SELECT id FROM sys_user WHERE username = ?', [mixedUser]);
        // The same roles sent again are a save that would keep the violation; a change must land within one set.
        const kept = await three.admin('/sys/user/grant', { id, roles: [systemRole, auditRole] });
        expect(kept.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('roles') });
        const still = await three.admin('/sys/user/grant', { id, roles: [auditRole, 'sysadmin'] });
        expect(still.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('roles') });
        expect((await three.admin('/sys/user/grant', { id, roles: [auditRole] })).body).toEqual(OK_NO_DATA);
        const fixed = await three.admin('/sys/role/save', {
          code: mixedRole,
          name: mixedRole,
          permissions: ['sys:loginLog:list'],
        });
        expect(fixed.body.success).toBe(true);
        // `admin` is not built in here: it may lose `*` and be deleted once nobody holds it. The way out:
        // admin (holding `*`, so sys:user:grant) makes a security administrator, who retires admin.
        const adminRole = (await three.admin('/sys/role/list')).body.data.find((r: any) => r.code === 'admin');
        expect(adminRole.builtIn).toBe(false);
        const officer = `sec_${tag()}`;
        const made = await three.admin('/sys/user/create', {
          username: officer,
          name: officer,
          password: await three.encrypt('Passw0rd!x'),
          roles: ['secadmin'],
        });
        expect(made.body.success).toBe(true);
        const secToken = await three.token(officer, 'Passw0rd!x');
        const [{ id: adminId }] = await three.db.query('SELECT id FROM sys_user WHERE username = ?', ['admin']);
        const retire = await three.post('/sys/user/grant', { id: adminId, roles: [] }, { token: secToken });
        expect(retire.body).toEqual(OK_NO_DATA);
        const gone = await three.post('/sys/role/delete', { code: 'admin' }, { token: secToken });
        expect(gone.body).toEqual(OK_NO_DATA);
        expect(await three.db.query("SELECT code FROM sys_role WHERE permissions LIKE '%*%'")).toEqual([]);
      } finally {
        await three.close();
      }
    } finally {
      await provisioned.dispose();
    }
  }, 60_000);
});
