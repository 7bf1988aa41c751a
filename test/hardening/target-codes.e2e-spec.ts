import { randomBytes } from 'node:crypto';

import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS } from '../support/backends';
import { FORBIDDEN, OK_NO_DATA } from '../support/envelopes';
import { createRole, createUser, TestUser } from '../support/factories';
import { sha256hex, startApp, TestApp } from '../support/test-app';

const tag = () => randomBytes(4).toString('hex');

/**
 * "acting on an account needs all of its codes", and "unlock and enable change nothing
 * on an account that is not locked / not disabled". A narrow helpdesk permission must not reach the
 * accounts above its holder: with `sys:user:unlock` alone one could restart a `*` holder's failure
 * count after every few guesses, with `sys:user:mfaReset` alone strip its second factor.
 */
describe.each(BACKENDS)('acting on another user on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
    await app.saveLoginStrategy({ maxFailureTimes: 5, lockMinutes: 30 });
  });
  afterAll(() => app.close());

  /** A user whose only role holds exactly `codes`, logged in. */
  const caller = async (codes: string[]) => {
    const role = `helpdesk_${tag()}`;
    await createRole(app, role, codes);
    const user = await createUser(app, { roles: [role] });
    return { user, token: await app.token(user.username, user.password, { ip: '10.3.3.3' }) };
  };
  /** A user holding `*` (the built-in role admin), logged in; the session is what a refused action must not end. */
  const superAdmin = async () => {
    const user = await createUser(app, { roles: ['admin'] });
    return { user, token: await app.token(user.username, user.password) };
  };
  const alive = async (token: string) => (await app.post('/sys/me/info', {}, { token })).body.success;
  /** n wrong passwords, then a second passes (a restarted count starts after them, not at their instant). */
  const wrongPasswords = async (user: TestUser, n: number) => {
    for (let i = 0; i < n; i++)
      expect((await app.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
    app.clock.advance(1_000);
  };
  const deniedRows = (actorId: string) =>
    app.db.query("SELECT * FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ? ORDER BY id", [actorId]);

  it('sys:user:unlock alone cannot unlock a * holder locked by wrong passwords: FORBIDDEN, still locked, and the refusal is audited', async () => {
    const { user: helpdesk, token } = await caller(['sys:user:unlock']);
    const { user: target } = await superAdmin();
    await wrongPasswords(target, 5);
    expect((await app.login(target.username, target.password)).body.code).toBe('ACCOUNT_LOCKED');

    const res = await app.post('/sys/user/unlock', { id: target.id }, { token, ip: '10.3.3.3' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(!!(await app.userRow(target.id)).locked).toBe(true);
    expect((await app.login(target.username, target.password)).body.code).toBe('ACCOUNT_LOCKED');

    // Written before the answer: the refusal is in the log by the time its caller sees it.
    const [row] = await deniedRows(helpdesk.id);
    expect(row).toMatchObject({
      username: helpdesk.username,
      target: target.id,
      target_name: target.username,
      ip: '10.3.3.3',
    });
    expect(JSON.parse(row.detail)).toEqual({ path: '/sys/user/unlock', missing: ['*'], username: target.username });
  });

  it('sys:user:enable alone cannot enable a disabled * holder', async () => {
    const { token } = await caller(['sys:user:enable']);
    const { user: target } = await superAdmin();
    expect((await app.admin('/sys/user/disable', { id: target.id })).body.success).toBe(true);
    expect((await app.post('/sys/user/enable', { id: target.id }, { token })).body).toEqual(FORBIDDEN);
    expect(!!(await app.userRow(target.id)).disabled).toBe(true);
  });

  it.each([
    ['/sys/user/lock', 'sys:user:lock'],
    ['/sys/user/disable', 'sys:user:disable'],
    ['/sys/user/resetPass', 'sys:user:resetPass'],
    ['/sys/user/delete', 'sys:user:delete'],
  ])('%s with only %s cannot act on a * holder: nothing changes and its session lives on', async (path, code) => {
    const { token } = await caller([code]);
    const { user: target, token: targetToken } = await superAdmin();
    const before = await app.userRow(target.id);
    expect((await app.post(path, { id: target.id }, { token })).body).toEqual(FORBIDDEN);
    const after = await app.userRow(target.id);
    expect([!!after.locked, !!after.disabled, after.password, after.delete_time ?? null]).toEqual([
      !!before.locked,
      !!before.disabled,
      before.password,
      before.delete_time ?? null,
    ]);
    expect(await alive(targetToken)).toBe(true);
  });

  it('/sys/user/update with only sys:user:update cannot change the e-mail of a user holding more', async () => {
    const { token } = await caller(['sys:user:update']);
    const wider = `wider_${tag()}`;
    await createRole(app, wider, ['sys:user:update', 'sys:loginLog:list']);
    const target = await createUser(app, { roles: [wider] });
    const res = await app.post('/sys/user/update', { id: target.id, email: `taken_${tag()}@example.com` }, { token });
    expect(res.body).toEqual(FORBIDDEN);
    expect((await app.userRow(target.id)).email).toBe(target.email);
  });

  it("sys:user:mfaReset alone cannot strip a * holder's second factor nor end its sessions", async () => {
    const { token } = await caller(['sys:user:mfaReset']);
    const { user: target, token: targetToken } = await superAdmin();
    const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token: targetToken })).body.data;
    const enabled = await app.post(
      '/sys/me/mfa/enable',
      { code: totpCode(secret, stepAt(app.clock.nowMs())) },
      { token: targetToken },
    );
    expect(enabled.body.success).toBe(true);

    expect((await app.post('/sys/user/mfa/reset', { id: target.id }, { token })).body).toEqual(FORBIDDEN);
    expect(await alive(targetToken)).toBe(true);
    const rows = await app.db.query('SELECT user_id FROM sys_user_mfa WHERE user_id = ?', [target.id]);
    expect(rows).toHaveLength(1);
  });

  it('sys:online:kickout cannot end the session of a * holder; it still ends a session within its codes', async () => {
    const { token } = await caller(['sys:online:kickout']);
    const { token: targetToken } = await superAdmin();
    const res = await app.post('/sys/online/kickout', { tokenId: sha256hex(targetToken) }, { token });
    expect(res.body).toEqual(FORBIDDEN);
    expect(await alive(targetToken)).toBe(true);

    const plain = await createUser(app);
    const plainToken = await app.token(plain.username, plain.password);
    expect((await app.post('/sys/online/kickout', { tokenId: sha256hex(plainToken) }, { token })).body).toEqual(
      OK_NO_DATA,
    );
    expect(await alive(plainToken)).toBe(false);
  });

  it('a bulk { ids } request is all or nothing: one * holder among them and none is locked', async () => {
    const { token } = await caller(['sys:user:lock']);
    const within = await createUser(app);
    const { user: target } = await superAdmin();
    const res = await app.post('/sys/user/lock', { ids: [within.id, target.id] }, { token });
    expect(res.body).toEqual(FORBIDDEN);
    for (const id of [within.id, target.id]) expect(!!(await app.userRow(id)).locked).toBe(false);
    expect((await app.post('/sys/user/lock', { ids: [within.id] }, { token })).body).toEqual(OK_NO_DATA);
    expect(!!(await app.userRow(within.id)).locked).toBe(true);
  });

  it("a caller holding every code of the target may act on it (a user without roles: any caller with the route's code)", async () => {
    const { token } = await caller(['sys:user:lock', 'sys:user:unlock', 'sys:loginLog:list']);
    const role = `peer_${tag()}`;
    await createRole(app, role, ['sys:loginLog:list']);
    const peer = await createUser(app, { roles: [role] });
    expect((await app.post('/sys/user/lock', { id: peer.id }, { token })).body).toEqual(OK_NO_DATA);
    expect((await app.post('/sys/user/unlock', { id: peer.id }, { token })).body).toEqual(OK_NO_DATA);
    expect(!!(await app.userRow(peer.id)).locked).toBe(false);
  });

  it("a route's own missing code is audited as access.denied too, at most once per session, path and minute", async () => {
    const { user: narrow, token } = await caller(['sys:loginLog:list']);
    for (let i = 0; i < 3; i++)
      expect((await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token })).body).toEqual(FORBIDDEN);
    const rows = await deniedRows(narrow.id);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].detail)).toEqual({ path: '/sys/user/list', missing: ['sys:user:list'] });
    expect(rows[0].target).toBeNull();

    app.clock.advance(61_000);
    expect((await app.post('/sys/user/list', { pageNum: 1, pageSize: 10 }, { token })).body).toEqual(FORBIDDEN);
    expect(await deniedRows(narrow.id)).toHaveLength(2);
  });

  describe('unlock and enable of an account that is not locked / not disabled change nothing', () => {
    it('unlock answers OK but does not restart the failure count: the fifth wrong password still locks', async () => {
      const target = await createUser(app);
      await wrongPasswords(target, 4);
      expect((await app.admin('/sys/user/unlock', { id: target.id })).body).toEqual(OK_NO_DATA);
      await wrongPasswords(target, 1);
      expect((await app.login(target.username, target.password)).body.code).toBe('ACCOUNT_LOCKED');
    });

    it('enable answers OK but does not restart the failure count of an enabled account', async () => {
      const target = await createUser(app);
      await wrongPasswords(target, 4);
      expect((await app.admin('/sys/user/enable', { ids: [target.id] })).body).toEqual(OK_NO_DATA);
      await wrongPasswords(target, 1);
      expect((await app.login(target.username, target.password)).body.code).toBe('ACCOUNT_LOCKED');
    });

    it('a locked account is unlocked and its count starts again, as before', async () => {
      const target = await createUser(app);
      await wrongPasswords(target, 5);
      expect((await app.admin('/sys/user/unlock', { id: target.id })).body).toEqual(OK_NO_DATA);
      await wrongPasswords(target, 4);
      expect((await app.login(target.username, target.password)).body.success).toBe(true);
    });
  });
});
