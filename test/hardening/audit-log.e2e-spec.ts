import { AuditLogService } from '../../src/audit/audit-log.service';
import { createActiveUser, createRole, createUser, TestUser } from '../factories';
import { BACKENDS } from '../support/backends';
import { startApp, TestApp } from '../support/test-app';

/** Issue 5.6: the audit log of administrative actions and /sys/auditLog/list. */
describe.each(BACKENDS)('audit log of administrative actions on $name', (backend) => {
  let app: TestApp;
  let adminId: string;
  let user: TestUser;

  beforeAll(async () => {
    app = await startApp(backend);
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
      detail: { old: { maxFailureTimes: 5, lockMinutes: 1440 }, new: { maxFailureTimes: 7, lockMinutes: 30 } },
      ip: '10.9.9.9',
      createTime: at,
    });
    // The next save shows the previous values as old.
    await app.saveLoginStrategy({ maxFailureTimes: 5 });
    expect((await latest()).detail).toEqual({ old: { maxFailureTimes: 7 }, new: { maxFailureTimes: 5 } });
  });

  it('records an account-strategy save, also when it comes form-encoded', async () => {
    const res = await app.post('/sys/strategy/user/save', {}, {
      token: await app.adminToken(), ip: '10.9.9.9', raw: 'minPasswordLength=8&includeUpperCase=true', contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.body.success).toBe(true);
    expect(await latest()).toMatchObject({
      action: 'strategy.user.save', target: 'user_strategy',
      detail: { old: { minPasswordLength: 6, includeUpperCase: false }, new: { minPasswordLength: 8, includeUpperCase: true } },
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
    expect(rows.map((r) => r.action)).toEqual(['user.resetPass', 'user.enable', 'user.disable', 'user.unlock', 'user.lock']);
    for (const row of rows) {
      expect(row).toMatchObject({ userId: adminId, username: 'admin', target: target.id, detail: { username: target.username }, ip: '10.9.9.9' });
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
      action: 'online.kickout', userId: adminId, target: user.id, detail: { tokenId: session.tokenId, username: user.username },
    });
  });

  it('records nothing for refused actions: bad input, unknown ids, missing permission', async () => {
    const before = (await list()).total;
    expect((await app.admin('/sys/user/lock', { id: 'no-such-user' })).body.code).toBe('NOT_FOUND');
    expect((await app.admin('/sys/user/disable', { id: 42 })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.admin('/sys/strategy/login/save', { maxFailureTimes: 0 })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.admin('/sys/online/kickout', { tokenId: 'f'.repeat(64) })).body.code).toBe('NOT_FOUND');
    const token = await app.token(user.username, user.password);
    expect((await app.post('/sys/user/lock', { id: user.id }, { token })).body.code).toBe('FORBIDDEN');
    expect((await list()).total).toBe(before);
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
    const second = await app.post('/sys/auditLog/list', { pageNum: 2, pageSize: 2 }, { token: auditorToken });
    expect(second.body.data.rows[0].id).not.toBe(all.body.data.rows[0].id);
    // An auditor reads; it cannot act.
    expect((await app.post('/sys/user/lock', { id: user.id }, { token: auditorToken })).body.code).toBe('FORBIDDEN');

    expect((await list({ action: 'user.lock' })).rows.every((r) => r.action === 'user.lock')).toBe(true);
    expect((await list({ target: user.id })).rows.map((r) => r.action)).toEqual(['online.kickout']);
    expect((await list({ username: 'admin' })).total).toBe(total);
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
