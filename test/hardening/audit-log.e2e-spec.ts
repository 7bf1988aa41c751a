import { Controller, HttpCode, Module, Post } from '@nestjs/common';
import { getRepositoryToken } from '@nestjs/typeorm';

import { AuditModule } from '../../src/audit/audit.module';
import { actedBy, AuditAction, AuditLogService, SYSTEM_ACTOR } from '../../src/audit/audit-log.service';
import { Actor, CurrentActor, RequirePermissions } from '../../src/common/auth-context';
import { StrategyService } from '../../src/strategy/strategy.service';
import { SysPropEntity } from '../../src/strategy/sys-prop.entity';
import { RoleEntity } from '../../src/user-account/role.entity';
import { RoleService } from '../../src/user-account/role.service';
import { BACKENDS } from '../support/backends';
import { createActiveUser, createRole, createUser, TestUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';
import { sleep } from '../support/wait';

/**
 * The extension point: a new audited action is one line in AuditAction and one record() call where
 * the action happens, with the actor the request's session gives. 'test.probe' stands for that line.
 */
@Controller('test/audit')
class ProbeController {
  constructor(private readonly audit: AuditLogService) {}

  @Post('probe')
  @HttpCode(200)
  @RequirePermissions('sys:auditLog:list')
  async probe(@CurrentActor() actor: Actor) {
    await this.audit.record({
      action: 'test.probe' as AuditAction,
      ...actedBy(actor),
      targetId: 'probe',
      detail: { n: 1 },
    });
  }
}

@Module({ imports: [AuditModule], controllers: [ProbeController] })
class ProbeModule {}

/** The audit log of administrative actions and /sys/auditLog/list. */
describe.each(BACKENDS)('audit log of administrative actions on $name', (backend) => {
  let app: TestApp;
  let adminId: string;
  let user: TestUser;

  beforeAll(async () => {
    app = await startApp(backend, { imports: [ProbeModule] });
    adminId = (await app.admin('/sys/me/info')).body.data.id;
    user = await createActiveUser(app);
  });
  afterAll(() => app.close());

  const list = async (query: Record<string, unknown> = {}) => {
    const res = await app.admin('/sys/auditLog/list', { pageSize: 200, ...query });
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    return res.body.data as { total: number; rows: any[] };
  };
  const latest = async () => (await list({ pageSize: 1 })).rows[0];
  /** Rows of actions: a refusal writes only its own access.denied row. */
  const actions = async () =>
    Number((await app.db.query("SELECT COUNT(*) AS n FROM sys_audit_log WHERE action <> 'access.denied'"))[0].n);
  const denials = async (actorId: string) =>
    (await app.db.query("SELECT detail FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ?", [actorId]))
      .map((r: any) => JSON.parse(r.detail).path)
      .sort();

  it('records a login-strategy save with who, when, where, and the old and new values of the saved fields', async () => {
    app.clock.advanceMinutes(3);
    const at = app.clock.now().toISOString();
    await app.saveLoginStrategy({ maxFailureTimes: 7, lockMinutes: 30 });
    expect(await latest()).toEqual({
      id: expect.any(String),
      userId: adminId,
      username: 'admin',
      action: 'strategy.login.save',
      target: 'user_login_strategy',
      targetName: null,
      detail: { old: { maxFailureTimes: 5, lockMinutes: 1440 }, new: { maxFailureTimes: 7, lockMinutes: 30 } },
      ip: '10.9.9.9',
      createTime: at,
    });
    // The next save shows the previous values as old.
    await app.saveLoginStrategy({ maxFailureTimes: 5 });
    expect((await latest()).detail).toEqual({ old: { maxFailureTimes: 7 }, new: { maxFailureTimes: 5 } });
  });

  it('records an account-strategy save, also when it comes form-encoded', async () => {
    const res = await app.post(
      '/sys/strategy/user/save',
      {},
      {
        token: await app.adminToken(),
        ip: '10.9.9.9',
        raw: 'minPasswordLength=8&includeUpperCase=true',
        contentType: 'application/x-www-form-urlencoded',
      },
    );
    expect(res.body.success).toBe(true);
    expect(await latest()).toMatchObject({
      action: 'strategy.user.save',
      target: 'user_strategy',
      detail: {
        old: { minPasswordLength: 6, includeUpperCase: false },
        new: { minPasswordLength: 8, includeUpperCase: true },
      },
    });
    await app.saveUserStrategy({ minPasswordLength: 6, includeUpperCase: false });
  });

  it('records lock, unlock, disable, enable and password reset with the target user, and never the generated password', async () => {
    const target = await createUser(app);
    const before = (await list()).total;
    for (const op of ['lock', 'unlock', 'disable', 'enable']) {
      app.clock.advance(1_000);
      expect((await app.admin(`/sys/user/${op}`, { id: target.id })).body.success).toBe(true);
    }
    const reset = await app.admin('/sys/user/resetPass', { id: target.id });
    const generated = reset.body.data.password as string;
    expect(generated).toEqual(expect.any(String));

    const page = await list();
    expect(page.total).toBe(before + 5);
    const rows = page.rows.slice(0, 5);
    expect(rows.map((r) => r.action)).toEqual([
      'user.resetPass',
      'user.enable',
      'user.disable',
      'user.unlock',
      'user.lock',
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({
        userId: adminId,
        username: 'admin',
        target: target.id,
        targetName: target.username,
        detail: { username: target.username },
        ip: '10.9.9.9',
      });
    }
    // Newest first, each at the clock's time.
    expect(new Date(rows[1].createTime).getTime() - new Date(rows[4].createTime).getTime()).toBe(3_000);
    const stored = JSON.stringify(await app.db.query('SELECT * FROM sys_audit_log'));
    expect(stored).not.toContain(generated);
  });

  it('records a kick-out with the user whose session ended', async () => {
    await app.token(user.username, user.password, { ip: '10.20.0.5' });
    const online = await app.admin('/sys/online/list', { pageSize: 200 });
    const session = online.body.data.rows.find((r: any) => r.userId === user.id);
    expect((await app.admin('/sys/online/kickout', { tokenId: session.tokenId })).body.success).toBe(true);
    expect(await latest()).toMatchObject({
      action: 'online.kickout',
      userId: adminId,
      target: user.id,
      targetName: user.username,
      detail: { tokenId: session.tokenId, username: user.username },
    });
  });

  it("records a user creation with the new user's id and name, and neither the given nor the generated password", async () => {
    await createRole(app, 'viewer', ['sys:user:list']);
    const given = await app.encrypt('Given#Pass1');
    const withPassword = await app.admin('/sys/user/create', {
      username: 'aud_given',
      name: 'Given',
      password: given,
      roles: ['viewer'],
    });
    expect(withPassword.body.success).toBe(true);
    expect(await latest()).toMatchObject({
      userId: adminId,
      username: 'admin',
      action: 'user.create',
      target: withPassword.body.data.id,
      targetName: 'aud_given',
      detail: { username: 'aud_given', roles: ['viewer'] },
      ip: '10.9.9.9',
    });
    const generated = await app.admin('/sys/user/create', { username: 'aud_generated', name: 'Generated' });
    const password = generated.body.data.password as string;
    expect(password).toEqual(expect.any(String));
    expect(await latest()).toMatchObject({
      action: 'user.create',
      target: generated.body.data.id,
      targetName: 'aud_generated',
      detail: { username: 'aud_generated', roles: [] },
    });
    const stored = JSON.stringify(await app.db.query('SELECT * FROM sys_audit_log'));
    for (const secret of [password, given, 'Given#Pass1']) expect(stored).not.toContain(secret);
    // A refused creation (duplicate user name) is not recorded.
    const before = (await list()).total;
    expect((await app.admin('/sys/user/create', { username: 'aud_given', name: 'Again' })).body.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await list()).total).toBe(before);
  });

  it('records a role save with the role code and, old → new, the fields it changed', async () => {
    await createRole(app, 'aud_role', ['sys:user:list']);
    expect(await latest()).toMatchObject({
      userId: adminId,
      action: 'role.save',
      target: 'aud_role',
      targetName: 'aud_role',
      detail: { old: null, new: { name: 'aud_role', permissions: ['sys:user:list'] } },
    });
    expect(
      (
        await app.admin('/sys/role/save', {
          code: 'aud_role',
          name: 'Auditing',
          permissions: ['sys:user:list', 'sys:auditLog:list'],
        })
      ).body.success,
    ).toBe(true);
    expect(await latest()).toMatchObject({
      action: 'role.save',
      target: 'aud_role',
      targetName: 'Auditing',
      detail: {
        old: { name: 'aud_role', permissions: ['sys:user:list'] },
        new: { name: 'Auditing', permissions: ['sys:user:list', 'sys:auditLog:list'] },
      },
    });
  });

  /**
   * Holds the first write that `repository.method` makes until `entry` has been called `calls` times
   * (at most 2 s): two saves of one thing are then in flight together, each past its own start.
   */
  const holdFirstWrite = (repository: any, method: string, entry: jest.SpyInstance, calls: number) => {
    const original = repository[method].bind(repository);
    let first = true;
    return jest.spyOn(repository, method).mockImplementation(async (...args: unknown[]) => {
      if (first) {
        first = false;
        for (let waited = 0; entry.mock.calls.length < calls && waited < 2_000; waited += 10) await sleep(10);
      }
      return original(...args);
    });
  };

  /** Two rows of one target saved at once: one starts from `initial`, the other from what the first wrote; the last wrote `final`. */
  const expectChained = (rows: any[], initial: unknown, final: unknown) => {
    expect(rows).toHaveLength(2);
    const first = rows.find((r) => JSON.stringify(r.detail.old) === JSON.stringify(initial));
    expect(first).toBeDefined();
    const second = rows.find((r) => r !== first)!;
    expect(second.detail.old).toEqual(first.detail.new);
    expect(second.detail.new).toEqual(final);
  };

  it('gives two saves of one setting group at once each its own old and new values', async () => {
    const strategy = app.app.get(StrategyService);
    await app.saveLoginStrategy({ maxFailureTimes: 5 });
    const entry = jest.spyOn(strategy, 'saveLogin');
    const hold = holdFirstWrite(app.app.get(getRepositoryToken(SysPropEntity)), 'upsert', entry, 2);
    const before = (await list()).total;
    try {
      const saves = await Promise.all(
        [11, 12].map((n) => app.admin('/sys/strategy/login/save', { maxFailureTimes: n })),
      );
      expect(saves.map((r) => r.body.success)).toEqual([true, true]);
    } finally {
      hold.mockRestore();
      entry.mockRestore();
    }
    const stored = (await app.admin('/sys/strategy/login/info')).body.data.maxFailureTimes;
    const rows = (await list({ action: 'strategy.login.save', pageSize: 2 })).rows;
    expect((await list()).total).toBe(before + 2);
    expectChained(rows, { maxFailureTimes: 5 }, { maxFailureTimes: stored });
    await app.saveLoginStrategy({ maxFailureTimes: 5 });
  });

  it('gives two saves of one role at once each its own old and new permission codes', async () => {
    await createRole(app, 'aud_race', ['sys:user:list']);
    const roles = app.app.get(RoleService);
    const entry = jest.spyOn(roles, 'save');
    const hold = holdFirstWrite(app.app.get(getRepositoryToken(RoleEntity)), 'save', entry, 2);
    try {
      const saves = await Promise.all(
        [['sys:user:lock'], ['sys:user:unlock']].map((permissions) =>
          app.admin('/sys/role/save', { code: 'aud_race', name: 'aud_race', permissions }),
        ),
      );
      expect(saves.map((r) => r.body.success)).toEqual([true, true]);
    } finally {
      hold.mockRestore();
      entry.mockRestore();
    }
    const stored = (await app.admin('/sys/role/list')).body.data.find((r: any) => r.code === 'aud_race').permissions;
    expectChained(
      (await list({ action: 'role.save', target: 'aud_race' })).rows.slice(0, 2),
      { permissions: ['sys:user:list'] },
      { permissions: stored },
    );
  });

  it('records no action for the self-protection refusals, only the refusals themselves, and changes nothing', async () => {
    const before = await actions();
    const row = await app.userRow(adminId);
    for (const op of ['lock', 'disable', 'resetPass']) {
      expect((await app.admin(`/sys/user/${op}`, { id: adminId })).body.code).toBe('FORBIDDEN');
    }
    await createRole(app, 'aud_locker', ['sys:user:lock', 'sys:user:disable']);
    const locker = await createActiveUser(app, { roles: ['aud_locker'] });
    const afterSetup = await actions();
    const token = await app.token(locker.username, locker.password);
    expect((await app.post('/sys/user/disable', { id: adminId }, { token })).body.code).toBe('FORBIDDEN');
    expect((await app.post('/sys/user/lock', { id: adminId }, { token })).body.code).toBe('FORBIDDEN');
    expect(await actions()).toBe(afterSetup);
    // The role save and the user creation of the set-up, and the user's own first password change.
    expect(afterSetup - before).toBe(3);
    expect(await denials(locker.id)).toEqual(['/sys/user/disable', '/sys/user/lock']);
    expect(await app.userRow(adminId)).toEqual(row);
  });

  it('takes actions that are not admin handlers through its port, with the actor and target names', async () => {
    await app.app.get(AuditLogService).record({
      action: 'qrcode.authorize',
      actorId: user.id,
      actorName: user.username,
      targetId: user.id,
      targetName: user.username,
      ip: '10.1.2.3',
      detail: { tokenId: 'abc' },
    });
    expect(await latest()).toMatchObject({
      action: 'qrcode.authorize',
      userId: user.id,
      username: user.username,
      target: user.id,
      targetName: user.username,
      ip: '10.1.2.3',
      detail: { tokenId: 'abc' },
    });
    await app.app
      .get(AuditLogService)
      .record({ action: 'user.recover', ...SYSTEM_ACTOR, targetId: user.id, targetName: user.username });
    expect(await latest()).toMatchObject({
      action: 'user.recover',
      userId: 'system',
      username: 'system',
      ip: '',
      detail: null,
    });
    await app.db.query('DELETE FROM sys_audit_log WHERE action IN (?, ?)', ['qrcode.authorize', 'user.recover']);
  });

  it('records a new action through the port with the actor of the request, and lists it', async () => {
    expect((await app.admin('/test/audit/probe')).body.success).toBe(true);
    expect((await list({ action: 'test.probe' })).rows).toEqual([
      {
        id: expect.any(String),
        userId: adminId,
        username: 'admin',
        action: 'test.probe',
        target: 'probe',
        targetName: null,
        detail: { n: 1 },
        ip: '10.9.9.9',
        createTime: app.clock.now().toISOString(),
      },
    ]);
    await app.db.query('DELETE FROM sys_audit_log WHERE action = ?', ['test.probe']);
  });

  it('records no action for refused actions: bad input, unknown ids, missing permission (that one is access.denied)', async () => {
    const before = await actions();
    expect((await app.admin('/sys/user/lock', { id: 'no-such-user' })).body.code).toBe('NOT_FOUND');
    expect((await app.admin('/sys/user/disable', { id: 42 })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.admin('/sys/strategy/login/save', { maxFailureTimes: 0 })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.admin('/sys/online/kickout', { tokenId: 'f'.repeat(64) })).body.code).toBe('NOT_FOUND');
    const token = await app.token(user.username, user.password);
    expect((await app.post('/sys/user/lock', { id: user.id }, { token })).body.code).toBe('FORBIDDEN');
    expect(await actions()).toBe(before);
    expect(await denials(user.id)).toContain('/sys/user/lock');
  });

  it('lists with the permission sys:auditLog:list only, paged and filtered', async () => {
    const token = await app.token(user.username, user.password);
    expect((await app.post('/sys/auditLog/list', {}, { token })).body.code).toBe('FORBIDDEN');
    expect((await app.post('/sys/auditLog/list', {})).body.code).toBe('NOT_LOGGED_IN');

    await createRole(app, 'auditor', ['sys:auditLog:list']);
    const auditor = await createActiveUser(app, { roles: ['auditor'] });
    const auditorToken = await app.token(auditor.username, auditor.password);
    const all = await app.post('/sys/auditLog/list', { pageNum: 1, pageSize: 2 }, { token: auditorToken });
    expect(all.body.success).toBe(true);
    expect(all.body.data.rows).toHaveLength(2);
    const total = all.body.data.total;
    expect(total).toBeGreaterThanOrEqual(9);
    // Everything so far was done by admin, but for the refusals of other callers (access.denied)
    // and the users' own password changes.
    const othersRefused =
      (await list({ action: 'access.denied' })).rows.filter((r) => r.username !== 'admin').length +
      (await list({ action: 'me.password.change' })).total;
    const second = await app.post('/sys/auditLog/list', { pageNum: 2, pageSize: 2 }, { token: auditorToken });
    expect(second.body.data.rows[0].id).not.toBe(all.body.data.rows[0].id);
    // An auditor reads; it cannot act.
    expect((await app.post('/sys/user/lock', { id: user.id }, { token: auditorToken })).body.code).toBe('FORBIDDEN');

    expect((await list({ action: 'user.lock' })).rows.every((r) => r.action === 'user.lock')).toBe(true);
    expect((await list({ target: user.id })).rows.map((r) => r.action)).toEqual([
      'online.kickout',
      'me.password.change',
      'user.create',
    ]);
    expect((await list({ username: 'admin' })).total).toBe(total - othersRefused);
    expect((await list({ username: 'nobody' })).total).toBe(0);
    expect((await app.admin('/sys/auditLog/list', { pageSize: 500 })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.admin('/sys/auditLog/list', { bogus: 1 })).body.code).toBe('VALIDATION_FAILED');
  });

  it('does not turn a done action into an error when the audit record cannot be written', async () => {
    const target = await createUser(app);
    const spy = jest.spyOn(app.app.get(AuditLogService), 'record').mockRejectedValueOnce(new Error('db gone'));
    try {
      expect((await app.admin('/sys/user/disable', { id: target.id })).body.success).toBe(true);
    } finally {
      spy.mockRestore();
    }
    expect((await app.userRow(target.id)).disabled).toBeTruthy();
  });
});
