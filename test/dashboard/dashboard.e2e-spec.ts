import { BACKENDS } from '../support/backends';
import { createActiveUser, createRole } from '../support/factories';
import { FakeClock } from '../support/fake-clock';
import { startApp, TestApp } from '../support/test-app';

/**
 * POST /sys/dashboard/summary: the home page's figures, days and hours in DISPLAY_TIMEZONE, each
 * block only for a caller holding the code that reads its source.
 */
describe.each(BACKENDS)('the dashboard on $name', (backend) => {
  let app: TestApp;
  let reader: { username: string; password: string };
  const clock = new FakeClock(new Date('2026-03-09T15:00:00Z'));

  beforeAll(async () => {
    app = await startApp(backend, { clock, env: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } });
    // 23:00 on 9 March in Shanghai (yesterday): the administrator and both users log in once.
    await createRole(app, 'log-reader', ['sys:loginLog:list']);
    reader = await createActiveUser(app, { roles: ['log-reader'] });
    const user = await createActiveUser(app);
    // 40 days back: outside the 30 days.
    clock.set(new Date('2026-01-29T04:00:00Z'));
    expect((await app.login(user.username, user.password)).body.success).toBe(true);
    // 23:30 on 9 March in Shanghai: yesterday's failure.
    clock.set(new Date('2026-03-09T15:30:00Z'));
    expect((await app.login(user.username, 'Wrong#Pass1', { ip: '10.8.8.8' })).body.success).toBe(false);
    // 00:10 on 10 March: today, hour 0.
    clock.set(new Date('2026-03-09T16:10:00Z'));
    expect((await app.login(user.username, user.password)).body.success).toBe(true);
    // 09:20: two failures from one address.
    clock.set(new Date('2026-03-10T01:20:00Z'));
    for (let i = 0; i < 2; i++)
      expect((await app.login(user.username, 'Wrong#Pass1', { ip: '10.9.9.9' })).body.success).toBe(false);
    // 09:30: the administrator logs in (app.admin does) and the proofs of /sys/me/* are not logins.
    clock.set(new Date('2026-03-10T01:30:00Z'));
    expect(
      (
        await app.post(
          '/sys/me/reauth',
          { password: await app.encrypt('Wrong#Pass1') },
          { token: await app.adminToken() },
        )
      ).body.success,
    ).toBe(false);
  });
  afterAll(() => app.close());

  it('counts logins by day and by hour in DISPLAY_TIMEZONE, with the top refusals of today', async () => {
    const res = await app.admin('/sys/dashboard/summary', {});
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    const { logins } = res.body.data;
    expect(logins.today).toEqual({ success: 2, failure: 2 });
    expect(logins.byHour).toHaveLength(24);
    expect(logins.byHour[0]).toEqual({ hour: 0, success: 1, failure: 0 });
    expect(logins.byHour[9]).toEqual({ hour: 9, success: 1, failure: 2 });
    expect(logins.byHour.filter((h: { hour: number }) => ![0, 9].includes(h.hour))).toEqual(
      expect.arrayContaining([{ hour: 8, success: 0, failure: 0 }]),
    );
    expect(logins.byDay).toHaveLength(30);
    expect(logins.byDay[0].date).toBe('2026-02-09');
    expect(logins.byDay.at(-1)).toEqual({ date: '2026-03-10', success: 2, failure: 2 });
    expect(logins.byDay.at(-2)).toEqual({ date: '2026-03-09', success: 3, failure: 1 });
    const total = logins.byDay.reduce(
      (n: number, d: { success: number; failure: number }) => n + d.success + d.failure,
      0,
    );
    expect(total).toBe(8);
    expect(logins.topFailureIps).toEqual([{ ip: '10.9.9.9', count: 2 }]);
    expect(logins.topFailureReasons).toEqual([{ code: expect.any(String), count: 2 }]);
  });

  it('counts users by state, expiring passwords, sessions, and the baseline fields not met', async () => {
    const { data } = (await app.admin('/sys/dashboard/summary', {})).body;
    const [{ n }] = await app.db.query('SELECT COUNT(*) AS n FROM sys_user');
    expect(data.users.total).toBe(Number(n));
    expect(Object.keys(data.users.byState).sort()).toEqual(['disabled', 'expired', 'initial', 'locked', 'normal']);
    expect(data.passwords).toEqual({ expiringIn7Days: 0 });
    expect(data.sessions.online).toBeGreaterThanOrEqual(1);
    expect(data.baseline).toContainEqual({ field: 'mfaMode', expected: 2, actual: 0 });
    expect(data.baseline.map((g: { field: string }) => g.field)).toContain('minPasswordLength');

    await app.saveUserStrategy({ passwordExpireDays: 10 });
    // A password changed 5 days ago expires in 5 days.
    const user = await createActiveUser(app);
    await app.db.query(
      'UPDATE sys_user SET password_update_time = ? WHERE id = ?',
      // As both databases store a DATETIME(3) in UTC.
      [new Date(clock.now().getTime() - 5 * 86_400_000).toISOString().replace('T', ' ').slice(0, 23), user.id],
    );
    const after = (await app.admin('/sys/dashboard/summary', {})).body.data;
    expect(after.passwords.expiringIn7Days).toBeGreaterThanOrEqual(1);
    expect(after.baseline.map((g: { field: string }) => g.field)).toContain('passwordExpireDays');
    await app.saveUserStrategy({ passwordExpireDays: 0 });
  });

  it('gives each block only to a holder of the code that reads its source', async () => {
    const token = await app.token(reader.username, reader.password);
    const res = await app.post('/sys/dashboard/summary', {}, { token });
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data)).toEqual(['logins']);
  });

  it('is for logged-in callers only', async () => {
    const res = await app.post('/sys/dashboard/summary', {});
    expect(res.status).toBe(401);
  });
});
