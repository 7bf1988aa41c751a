import { AccountStateService } from '../../src/user-account/account-state.service';
import { BACKENDS } from '../support/backends';
import { codeOf } from '../support/code-of';
import { createActiveUser, createRole, TestUser } from '../support/factories';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

// FORBIDDEN has one message; both refusals (one's own account, the last usable holder of *) use it.
const SELF = { zh: '没有权限', en: 'Permission denied' };
const LAST = SELF;

/**
 * Self-protection: before this, admin → Users → its own row → 禁用 logged the only
 * administrator out for good, with nothing left that could undo it.
 */
describe.each(BACKENDS)('administrators cannot lock themselves out on $name', (backend) => {
  let app: TestApp;
  let adminId: string;
  /** Holds the user operations but not `*`. */
  let operator: TestUser;
  let operatorToken: string;

  beforeAll(async () => {
    app = await startApp(backend);
    adminId = (await app.admin('/sys/me/info')).body.data.id;
    await createRole(app, 'useradmin', [
      'sys:user:lock',
      'sys:user:unlock',
      'sys:user:disable',
      'sys:user:enable',
      'sys:user:resetPass',
    ]);
    operator = await createActiveUser(app, { roles: ['useradmin'] });
  });
  beforeEach(async () => {
    operatorToken = await app.token(operator.username, operator.password);
  });
  afterAll(() => app.close());

  const asOperator = (path: string, body: unknown, headers?: Record<string, string>) =>
    app.post(path, body, { token: operatorToken, headers });
  /** Audit rows of actions (a refusal's own access.denied row is not one). */
  const auditRows = async () =>
    Number((await app.db.query("SELECT COUNT(*) AS n FROM sys_audit_log WHERE action <> 'access.denied'"))[0].n);

  it.each(['lock', 'disable', 'resetPass'])(
    "refuses %s of the caller's own account, saying why, and changes nothing",
    async (op) => {
      const before = await app.userRow(adminId);
      const audits = await auditRows();
      const zh = await app.admin(`/sys/user/${op}`, { id: adminId });
      expect(zh.status).toBe(403);
      expect(zh.body).toEqual({ success: false, code: 'FORBIDDEN', message: SELF.zh, data: null });
      const en = await app.post(
        `/sys/user/${op}`,
        { id: adminId },
        { token: await app.adminToken(), headers: { 'accept-language': 'en' } },
      );
      expect(en.body).toEqual({ success: false, code: 'FORBIDDEN', message: SELF.en, data: null });

      // Same row, the session still works, the password still logs in, no action audited (only the refusal).
      expect(await app.userRow(adminId)).toEqual(before);
      expect((await app.admin('/sys/me/info')).body.data.id).toBe(adminId);
      expect((await app.login('admin', ADMIN_PASSWORD)).body.success).toBe(true);
      expect(await auditRows()).toBe(audits);
    },
  );

  it('refuses an operator without * locking or disabling the only enabled, unlocked holder of *', async () => {
    for (const op of ['lock', 'disable']) {
      const res = await asOperator(`/sys/user/${op}`, { id: adminId });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, code: 'FORBIDDEN', message: LAST.zh, data: null });
      expect((await asOperator(`/sys/user/${op}`, { id: adminId }, { 'accept-language': 'en' })).body.message).toBe(
        LAST.en,
      );
    }
    const row = await app.userRow(adminId);
    expect(Boolean(row.locked) || Boolean(row.disabled)).toBe(false);
    expect((await app.admin('/sys/me/info')).body.success).toBe(true);
    // The operator's own account is protected the same way.
    expect((await asOperator('/sys/user/disable', { id: operator.id })).body).toMatchObject({
      code: 'FORBIDDEN',
      message: SELF.zh,
    });
  });

  it('allows it while another holder of * stays usable, and refuses the last one', async () => {
    // An operator without * cannot act on a holder of * at all, whoever else is left;
    // the rule of the last holder is then for callers holding * — here the service's own calls.
    const accounts = app.app.get(AccountStateService);
    await createRole(app, 'superuser', ['*']);
    const second = await createActiveUser(app, { roles: ['superuser'] });
    expect((await asOperator('/sys/user/disable', { id: adminId })).body).toMatchObject({ code: 'FORBIDDEN' });
    expect(Boolean((await app.userRow(adminId)).disabled)).toBe(false);
    expect(await codeOf(accounts.changeState([adminId], 'disable', operator.id))).toBe('ok');
    // Now `second` is the last one.
    expect(await codeOf(accounts.changeState([second.id], 'lock', operator.id))).toBe('FORBIDDEN');
    expect(await codeOf(accounts.changeState([second.id], 'disable', operator.id))).toBe('FORBIDDEN');
    expect(await app.token(second.username, second.password)).toEqual(expect.any(String));
    // A disabled holder does not count; enabling admin makes `second` lockable again.
    await accounts.changeState([adminId], 'enable');
    expect(await codeOf(accounts.changeState([second.id], 'lock', operator.id))).toBe('ok');
    expect(await codeOf(accounts.changeState([adminId], 'lock', operator.id))).toBe('FORBIDDEN');
    await accounts.changeState([second.id], 'unlock');
    // The reset of another holder of * keeps it usable, so the self-protection allows it; but it hands
    // out the password, so only a caller holding every code of the target may.
    expect((await asOperator('/sys/user/resetPass', { id: second.id })).body.code).toBe('FORBIDDEN');
    expect((await app.admin('/sys/user/resetPass', { id: second.id })).body.success).toBe(true);
    // Leave admin as the only usable holder for the next test.
    expect(await codeOf(accounts.changeState([second.id], 'disable', operator.id))).toBe('ok');
  });

  it('lets exactly one of two holders of * disabling each other at the same moment succeed', async () => {
    await createRole(app, 'superuser', ['*']);
    const a = await createActiveUser(app, { roles: ['superuser'] });
    const b = await createActiveUser(app, { roles: ['superuser'] });
    // Leave a and b as the only usable holders: admin is disabled by a.
    const tokenA = await app.token(a.username, a.password);
    const tokenB = await app.token(b.username, b.password);
    expect((await app.post('/sys/user/disable', { id: adminId }, { token: tokenA })).body.success).toBe(true);

    const [byA, byB] = await Promise.all([
      app.post('/sys/user/disable', { id: b.id }, { token: tokenA }),
      app.post('/sys/user/disable', { id: a.id }, { token: tokenB }),
    ]);
    // The loser is refused by the check (FORBIDDEN) or, when the winner ended its session first, at the door.
    const codes = [byA.body.code, byB.body.code].sort();
    expect(codes).toContain('OK');
    expect(['FORBIDDEN', 'NOT_LOGGED_IN']).toContain(codes.find((c) => c !== 'OK'));
    const rows = [await app.userRow(a.id), await app.userRow(b.id)];
    expect(rows.filter((r) => !r.disabled)).toHaveLength(1);

    // Put admin back as the only usable holder for the next test.
    const [survivor, survivorId] = byA.body.success ? [tokenA, a.id] : [tokenB, b.id];
    expect((await app.post('/sys/user/enable', { id: adminId }, { token: survivor })).body.success).toBe(true);
    expect((await app.admin('/sys/user/disable', { id: survivorId })).body.success).toBe(true);
  });

  it('keeps a usable holder of * when the two refusable changes reach the service at once, again and again', async () => {
    // Below the HTTP layer so that both checks are in flight together (the token guard of the loser
    // would otherwise often refuse it first): the store-wide mutex alone must decide.
    const accounts = app.app.get(AccountStateService);
    await createRole(app, 'superuser', ['*']);
    const a = await createActiveUser(app, { roles: ['superuser'] });
    const b = await createActiveUser(app, { roles: ['superuser'] });
    const token = await app.token(a.username, a.password);
    expect((await app.post('/sys/user/disable', { id: adminId }, { token })).body.success).toBe(true);
    for (let round = 0; round < 5; round++) {
      const outcomes = await Promise.all([
        codeOf(round % 2 ? accounts.changeState([b.id], 'lock', a.id) : accounts.changeState([b.id], 'disable', a.id)),
        codeOf(accounts.changeState([a.id], 'disable', b.id)),
      ]);
      expect(outcomes.sort()).toEqual(['FORBIDDEN', 'ok']);
      const usable = [await app.userRow(a.id), await app.userRow(b.id)].filter((r) => !r.disabled && !r.locked);
      expect(usable).toHaveLength(1);
      for (const id of [a.id, b.id]) {
        await accounts.changeState([id], 'enable');
        await accounts.changeState([id], 'unlock');
      }
    }
    await accounts.changeState([adminId], 'enable');
  });
  it('refuses a role save that takes * from the last usable holders, and allows it while others remain', async () => {
    // An app of its own: the tests above leave other holders of * behind.
    const own = await startApp(backend);
    try {
      const ownAdminId = (await own.admin('/sys/me/info')).body.data.id;
      await createRole(own, 'root', ['*']);
      const root = await createActiveUser(own, { roles: ['root'] });
      const token = await own.token(root.username, root.password);
      const as = (path: string, body: unknown) => own.post(path, body, { token });
      expect((await as('/sys/user/disable', { id: ownAdminId })).body.success).toBe(true);
      // Only `root` now gives a usable account *: stripping it would shut every administrator out.
      const strip = await as('/sys/role/save', { code: 'root', name: 'root', permissions: ['sys:role:save'] });
      expect(strip.status).toBe(403);
      expect(strip.body).toEqual({ success: false, code: 'FORBIDDEN', message: LAST.zh, data: null });
      const role = ((await as('/sys/role/list', {})).body.data as any[]).find((r) => r.code === 'root');
      expect(role.permissions).toEqual(['*']);
      expect((await as('/sys/user/list', { pageNum: 1, pageSize: 1 })).body.success).toBe(true);
      // With admin usable again, `root` may lose *.
      expect((await as('/sys/user/enable', { id: ownAdminId })).body.success).toBe(true);
      expect(
        (await as('/sys/role/save', { code: 'root', name: 'root', permissions: ['sys:role:save'] })).body.success,
      ).toBe(true);
    } finally {
      await own.close();
    }
  });
  it('an id spelt another way (upper case, padded) reaches the same protections and ends the same sessions', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    for (const variant of [adminId.toUpperCase(), `${adminId} `]) {
      const self = await app.admin('/sys/user/disable', { id: variant });
      // The variant is malformed (too long), names nobody (SQLite compares bytes) or is the caller's own account.
      expect(['FORBIDDEN', 'NOT_FOUND', 'VALIDATION_FAILED']).toContain(self.body.code);
      expect(Boolean(Number((await app.userRow(adminId)).disabled))).toBe(false);
    }
    const locked = await app.admin('/sys/user/lock', { id: user.id.toUpperCase() });
    expect(['OK', 'NOT_FOUND']).toContain(locked.body.code);
    if (locked.body.code === 'OK') {
      // An administrator's lock ends the user's sessions, whatever spelling reached the row.
      expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('NOT_LOGGED_IN');
      await app.admin('/sys/user/unlock', { id: user.id });
    } else {
      expect(Boolean(Number((await app.userRow(user.id)).locked))).toBe(false);
    }
  });
});
