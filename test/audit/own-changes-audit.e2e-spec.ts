import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS, mariadbRedis } from '../support/backends';
import { FORBIDDEN } from '../support/envelopes';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/**
 * A user's own changes of their credentials are audited (me.password.change, me.mfa.enable,
 * me.mfa.disable, me.mfa.recoveryCodes), by the user on themselves, never with a password or code;
 * refused attempts are not actions.
 */
describe.each(BACKENDS)('own credential changes in the audit log on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const rowsOf = async (userId: string, prefix: string) =>
    (await app.db.query('SELECT * FROM sys_audit_log WHERE target = ? ORDER BY id', [userId])).filter(
      (r: { action: string }) => r.action.startsWith(prefix),
    );

  it('an own password change: me.password.change by the user, from their IP; a wrong old password is none', async () => {
    // An initial password: the user's first own change is this test's.
    const user = await createUser(app);
    const token = await app.token(user.username, user.password, { ip: '10.3.3.3' });
    const post = async (oldPass: string, newPass: string) =>
      app.post(
        '/sys/me/pass/update',
        { oldPass: await app.encrypt(oldPass), newPass: await app.encrypt(newPass) },
        { token, ip: '10.3.3.3' },
      );
    expect((await post('Not#theOld1', 'Another#3c')).body.code).toBe('OLD_PASSWORD_WRONG');
    expect(await rowsOf(user.id, 'me.')).toEqual([]);

    expect((await post(user.password, 'Another#3c')).body.code).toBe('OK');
    const rows = await rowsOf(user.id, 'me.');
    expect(rows).toEqual([
      expect.objectContaining({
        action: 'me.password.change',
        user_id: user.id,
        username: user.username,
        target: user.id,
        target_name: user.username,
        ip: '10.3.3.3',
        detail: null,
      }),
    ]);
    // Shown with a label in the list, as any other action.
    const list = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 5, action: 'me.password.change' });
    expect(list.body.data.rows.map((r: { target: string }) => r.target)).toContain(user.id);
  });

  it('second factor enable, new recovery codes and disable: one row each, no code in any', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const code = (secret: string) => totpCode(secret, stepAt(app.clock.nowMs()));
    const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token })).body.data;
    expect((await app.post('/sys/me/mfa/enable', { code: '000000' }, { token })).body.code).toBe('MFA_CODE_INVALID');
    const enabled = await app.post('/sys/me/mfa/enable', { code: code(secret) }, { token });
    expect(enabled.body.code).toBe('OK');
    app.clock.advance(30_000);
    const renewed = await app.post('/sys/me/mfa/recoveryCodes', { code: code(secret) }, { token });
    expect(renewed.body.code).toBe('OK');
    app.clock.advance(30_000);
    expect((await app.post('/sys/me/mfa/disable', { code: code(secret) }, { token })).body.code).toBe('OK');

    const rows = await rowsOf(user.id, 'me.mfa.');
    expect(rows.map((r: { action: string }) => r.action)).toEqual([
      'me.mfa.enable',
      'me.mfa.recoveryCodes',
      'me.mfa.disable',
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({ user_id: user.id, username: user.username, target: user.id, detail: null });
    }
    const text = JSON.stringify(rows);
    for (const c of [...enabled.body.data.recoveryCodes, ...renewed.body.data.recoveryCodes, secret])
      expect(text).not.toContain(c);
  });
});

describe('access.denied across instances (mariadb+redis)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(mariadbRedis);
    // One clock for both, as instances share real time: the rows are counted per minute of it.
    b = await startApp(mariadbRedis, { provisioned: a.provisioned, clock: a.clock });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('one row per session, path and minute, whichever instance refused', async () => {
    await createRole(a, 'reader_x', ['sys:loginLog:list']);
    const reader = await createUser(a, { roles: ['reader_x'] });
    const token = await a.token(reader.username, reader.password);
    const refused = await Promise.all(
      [a, b, a, b, a, b].map((node) => node.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token })),
    );
    for (const res of refused) expect(res.body).toEqual(FORBIDDEN);
    const rows = async () =>
      a.db.query("SELECT detail FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ?", [reader.id]);
    expect(await rows()).toHaveLength(1);
    expect(JSON.parse((await rows())[0].detail)).toEqual({ path: '/sys/user/list', missing: ['sys:user:list'] });

    // Another path is another row; the next minute another again.
    expect((await b.post('/sys/role/list', {}, { token })).body).toEqual(FORBIDDEN);
    expect(await rows()).toHaveLength(2);
    a.clock.advance(61_000);
    expect((await b.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token })).body).toEqual(FORBIDDEN);
    expect((await a.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token })).body).toEqual(FORBIDDEN);
    expect(await rows()).toHaveLength(3);
  });
});
