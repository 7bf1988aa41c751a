import { DormantAccountJob } from '../../src/dormant-account/dormant-account.job';
import { UserEntity } from '../../src/user-account/user.entity';
import { BACKENDS } from '../support/backends';
import { ACCOUNT_DISABLED, NOT_LOGGED_IN } from '../support/envelopes';
import { createActiveUser, createRole, createUser, TestUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const DAY = 86_400_000;

/**
 * dormantDays: the daily job, run through its method with the fake clock, on SQLite +
 * memory and MariaDB + Redis. One app per test: the job looks at every account there is.
 */
describe.each(BACKENDS)('dormant accounts on $name', (backend) => {
  let app: TestApp;

  beforeEach(async () => {
    app = await startApp(backend);
    // The administrator's own password must not expire while the clock moves months.
    await app.saveUserStrategy({ passwordExpireDays: 0, dormantDays: 90 });
  });
  afterEach(() => app.close());

  const sweep = () => app.app.get(DormantAccountJob).run();
  const disabled = async (user: { id: string }) => !!Number((await app.userRow(user.id)).disabled);
  const systemDisables = async (): Promise<any[]> =>
    app.db.query("SELECT * FROM sys_audit_log WHERE action = 'user.disable' AND user_id = 'system' ORDER BY target");
  const dormantNotices = async (): Promise<any[]> =>
    app.db.query("SELECT * FROM sys_notification WHERE kind = 'account-dormant' ORDER BY user_id, channel");
  const ids = (...users: { id: string }[]) => users.map((u) => u.id).sort();

  it('disables exactly the accounts without a login for dormantDays days, audits and notifies them, once', async () => {
    const loggedInLongAgo = await createActiveUser(app); // logs in now to change the initial password
    const neverLoggedIn = await createUser(app);
    await createRole(app, 'dormant_super', ['*']);
    const superUser = await createUser(app, { roles: ['dormant_super'] });
    const recentLogin = await createActiveUser(app);
    const disabledBefore = await createUser(app);
    expect((await app.admin('/sys/user/disable', { id: disabledBefore.id })).body.success).toBe(true);

    app.clock.advanceDays(30);
    const recentlyCreated = await createUser(app);
    app.clock.advanceDays(30);
    await app.token(recentLogin.username, recentLogin.password);
    app.clock.advanceDays(31);

    expect(await sweep()).toBe(2);
    expect(await disabled(loggedInLongAgo)).toBe(true);
    expect(await disabled(neverLoggedIn)).toBe(true);
    for (const kept of [superUser, recentLogin, recentlyCreated]) expect(await disabled(kept)).toBe(false);
    expect(await disabled(disabledBefore)).toBe(true);
    // The built-in administrator holds `*` too.
    const [admin] = await app.db.query("SELECT disabled FROM sys_user WHERE username = 'admin'");
    expect(Number(admin.disabled)).toBe(0);

    const audits = await systemDisables();
    expect(audits.map((r) => r.target).sort()).toEqual(ids(loggedInLongAgo, neverLoggedIn));
    const byTarget = new Map(audits.map((r) => [r.target, r]));
    expect(byTarget.get(neverLoggedIn.id)).toMatchObject({ username: 'system', target_name: neverLoggedIn.username });
    expect(JSON.parse(byTarget.get(neverLoggedIn.id).detail)).toEqual({
      username: neverLoggedIn.username,
      reason: 'dormant',
      dormantDays: 90,
      lastLoginTime: null,
    });
    expect(JSON.parse(byTarget.get(loggedInLongAgo.id).detail).lastLoginTime).toEqual(expect.any(String));
    // Site message and e-mail (the users have a mailbox) to each.
    const notices = await dormantNotices();
    expect(notices.map((n) => `${n.user_id}:${n.channel}`).sort()).toEqual(
      ids(loggedInLongAgo, neverLoggedIn)
        .flatMap((id) => [`${id}:email`, `${id}:site`])
        .sort(),
    );

    expect((await app.login(loggedInLongAgo.username, loggedInLongAgo.password)).body).toEqual(ACCOUNT_DISABLED);

    // Once: a second sweep finds nothing left.
    expect(await sweep()).toBe(0);
    expect(await systemDisables()).toHaveLength(2);
    expect(await dormantNotices()).toHaveLength(4);
  });

  it('counts to the millisecond: dormantDays after the last login, not before', async () => {
    const user = await createActiveUser(app);
    app.clock.advance(90 * DAY - 1);
    expect(await sweep()).toBe(0);
    expect(await disabled(user)).toBe(false);
    app.clock.advance(1);
    expect(await sweep()).toBe(1);
    expect(await disabled(user)).toBe(true);
  });

  it('dormantDays = 0 disables nobody', async () => {
    await app.saveUserStrategy({ dormantDays: 0 });
    const user = await createUser(app);
    app.clock.advanceDays(3000);
    expect(await sweep()).toBe(0);
    expect(await disabled(user)).toBe(false);
  });

  it('an account enabled again by an administrator gets dormantDays to log in before the next disable', async () => {
    const user = await createActiveUser(app);
    app.clock.advanceDays(91);
    expect(await sweep()).toBe(1);
    expect((await app.admin('/sys/user/enable', { id: user.id })).body.success).toBe(true);
    app.clock.advanceDays(1);
    expect(await sweep()).toBe(0);
    expect(await disabled(user)).toBe(false);
    app.clock.advanceDays(90);
    expect(await sweep()).toBe(1);
    expect(await disabled(user)).toBe(true);
  });

  it("ends the account's sessions as an administrator's disable does", async () => {
    const user: TestUser = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    // A session renewed for months does not count as a login (counts successful logins).
    await app.db.getRepository(UserEntity).update(user.id, { lastLoginTime: new Date(app.clock.nowMs() - 100 * DAY) });
    expect((await app.post('/sys/me/info', {}, { token })).body.success).toBe(true);
    expect(await sweep()).toBe(1);
    expect((await app.post('/sys/me/info', {}, { token })).body).toEqual(NOT_LOGGED_IN);
    expect(await app.sessionOf(token)).toBeNull();
  });

  if (backend.name === 'mariadb+redis') {
    it('two instances sweeping at once disable, audit and notify each account once', async () => {
      const other = await startApp(backend, { provisioned: app.provisioned, clock: app.clock });
      try {
        const users = await Promise.all(Array.from({ length: 6 }, () => createUser(app)));
        app.clock.advanceDays(91);
        const [here, there] = await Promise.all([sweep(), other.app.get(DormantAccountJob).run()]);
        expect(here + there).toBe(6);
        expect((await systemDisables()).map((r) => r.target).sort()).toEqual(ids(...users));
        expect(await dormantNotices()).toHaveLength(12);
      } finally {
        await other.close();
      }
    });
  }
});
