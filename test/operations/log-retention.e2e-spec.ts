import { LogRetentionService, RETENTION_BATCH } from '../../src/retention/log-retention.service';
import { BACKENDS } from '../support/backends';
import { createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A DATETIME(3) value as both SQLite (TypeORM's UTC text) and MariaDB (session time zone Z) read it. */
const sqlTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);

/** Inserts login-log rows at the given times, in multi-row statements (fast enough for 100 000). */
async function insertLoginRows(
  app: TestApp,
  rows: { time: number; account?: string; userId?: string | null; status?: string }[],
) {
  for (let i = 0; i < rows.length; i += 1_000) {
    const chunk = rows.slice(i, i + 1_000);
    const values = chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
    const params = chunk.flatMap((r) => [
      r.userId ?? null,
      r.account ?? 'bulk',
      'account',
      r.status ?? 'passwrong',
      '10.1.1.1',
      sqlTime(r.time),
    ]);
    await app.db.query(
      `INSERT INTO sys_login_log (user_id, account, login_type, status, ip, login_time) VALUES ${values}`,
      params,
    );
  }
}

async function insertAuditRows(app: TestApp, times: number[], action = 'user.lock') {
  for (const time of times) {
    await app.db.query(
      'INSERT INTO sys_audit_log (user_id, username, action, ip, create_time) VALUES (?, ?, ?, ?, ?)',
      ['someone', 'someone', action, '10.1.1.1', sqlTime(time)],
    );
  }
}

const count = async (app: TestApp, sql: string, params: unknown[] = []) =>
  Number((await app.db.query(sql, params))[0].n);

describe.each(BACKENDS)('log retention on $name', (backend) => {
  describe('with LOG_RETENTION_DAYS=180', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend, { env: { LOG_RETENTION_DAYS: '180' } });
    });
    afterAll(() => app.close());

    it('deletes rows older than the retention, keeps the boundary and younger ones, and audits its work', async () => {
      const now = app.clock.nowMs();
      const edge = now - 180 * DAY_MS;
      await insertLoginRows(app, [
        { time: edge - 1, account: 'old-1' },
        { time: edge - 400 * DAY_MS, account: 'old-2' },
        { time: edge, account: 'edge' },
        { time: edge + 1, account: 'young' },
      ]);
      await insertAuditRows(app, [edge - 1, edge - DAY_MS], 'user.unlock');
      await insertAuditRows(app, [edge, edge + 1], 'user.enable');

      const result = await app.app.get(LogRetentionService).run();

      expect(result).toEqual({ cutoff: new Date(edge), loginLog: 2, auditLog: 2 });
      const accounts = (
        await app.db.query(
          "SELECT account FROM sys_login_log WHERE account IN ('old-1', 'old-2', 'edge', 'young') ORDER BY account",
        )
      ).map((r: { account: string }) => r.account);
      expect(accounts).toEqual(['edge', 'young']);
      expect(await count(app, "SELECT COUNT(*) AS n FROM sys_audit_log WHERE action = 'user.unlock'")).toBe(0);
      expect(await count(app, "SELECT COUNT(*) AS n FROM sys_audit_log WHERE action = 'user.enable'")).toBe(2);

      const audit = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 10, action: 'log.retention' });
      expect(audit.body.data.rows).toEqual([
        expect.objectContaining({
          userId: 'system',
          username: 'system',
          action: 'log.retention',
          ip: '',
          detail: {
            retentionDays: 180,
            maxFailureInterval: 24,
            cutoff: new Date(edge).toISOString(),
            loginLog: 2,
            auditLog: 2,
          },
        }),
      ]);
    });

    it('runs on one instance at a time: a second run while one holds the job does nothing', async () => {
      const service = app.app.get(LogRetentionService);
      const [first, second] = await Promise.all([service.run(), service.run()]);
      expect([first, second].filter((r) => r !== null)).toHaveLength(1);
    });

    it('the daily tick runs the job once a day, whichever instance ticks first', async () => {
      const service = app.app.get(LogRetentionService);
      const spy = jest.spyOn(service, 'run');
      try {
        await service.daily();
        await service.daily();
        expect(spy).toHaveBeenCalledTimes(1);
        app.clock.advanceDays(1);
        await service.daily();
        expect(spy).toHaveBeenCalledTimes(2);
      } finally {
        spy.mockRestore();
        app.clock.advanceDays(-1);
      }
    });

    it(`deletes 100 000 rows in statements of at most ${RETENTION_BATCH} rows`, async () => {
      const now = app.clock.nowMs();
      const old = now - 181 * DAY_MS;
      await insertLoginRows(
        app,
        Array.from({ length: 100_000 }, (_, i) => ({ time: old - i * 1_000 })),
      );
      await insertLoginRows(
        app,
        Array.from({ length: 10 }, (_, i) => ({ time: now - i * 1_000, account: 'bulk-young' })),
      );

      // Every statement the database is sent, as the driver's query runner receives it.
      const runner = app.db.createQueryRunner();
      const proto = Object.getPrototypeOf(runner);
      await runner.release();
      const deletes: number[] = [];
      const realQuery = proto.query;
      const spied = jest.spyOn(proto, 'query').mockImplementation(function (this: unknown, ...args: any[]) {
        const [sql, params] = args as [string, unknown[] | undefined];
        if (/^\s*DELETE/i.test(sql) && /sys_login_log/.test(sql)) deletes.push(params?.length ?? 0);
        return realQuery.apply(this, args);
      });
      let result;
      try {
        result = await app.app.get(LogRetentionService).run();
      } finally {
        spied.mockRestore();
      }

      expect(result!.loginLog).toBe(100_000);
      expect(deletes.length).toBe(100);
      expect(Math.max(...deletes)).toBeLessThanOrEqual(RETENTION_BATCH);
      expect(deletes.reduce((a, b) => a + b, 0)).toBe(100_000);
      expect(await count(app, "SELECT COUNT(*) AS n FROM sys_login_log WHERE account = 'bulk'")).toBe(0);
      expect(await count(app, "SELECT COUNT(*) AS n FROM sys_login_log WHERE account = 'bulk-young'")).toBe(10);
    }, 120_000);
  });

  describe('with a retention shorter than the failure window', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend, { env: { LOG_RETENTION_DAYS: '180' } });
    });
    afterAll(() => app.close());

    it('keeps the failures the lock still counts: the user is locked by the next wrong password', async () => {
      // A failure window of 200 days, longer than the retention of 180.
      await app.saveLoginStrategy({ maxFailureTimes: 5, maxFailureInterval: 200 * 24 });
      const user = await createUser(app);
      const now = app.clock.nowMs();
      // Four failures 190 days ago: past the retention, inside the 200-day window.
      await insertLoginRows(
        app,
        [1, 2, 3, 4].map((i) => ({
          time: now - 190 * DAY_MS + i * 1_000,
          account: user.username,
          userId: user.id,
          status: 'passwrong',
        })),
      );
      // And one failure older than the window, which may go.
      await insertLoginRows(app, [
        { time: now - 200 * DAY_MS - HOUR_MS, account: user.username, userId: user.id, status: 'passwrong' },
      ]);

      const result = await app.app.get(LogRetentionService).run();

      expect(result!.cutoff).toEqual(new Date(now - 200 * 24 * HOUR_MS));
      expect(result!.loginLog).toBe(1);
      expect(
        await count(app, "SELECT COUNT(*) AS n FROM sys_login_log WHERE user_id = ? AND status = 'passwrong'", [
          user.id,
        ]),
      ).toBe(4);
      expect((await app.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
      expect((await app.userRow(user.id)).locked).toBeTruthy();
      expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
    });
  });

  describe('with LOG_RETENTION_DAYS=0', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend, { env: { LOG_RETENTION_DAYS: '0' } });
    });
    afterAll(() => app.close());

    it('keeps everything', async () => {
      await insertLoginRows(app, [{ time: app.clock.nowMs() - 5_000 * DAY_MS, account: 'ancient' }]);
      expect(await app.app.get(LogRetentionService).run()).toBeNull();
      expect(await count(app, "SELECT COUNT(*) AS n FROM sys_login_log WHERE account = 'ancient'")).toBe(1);
    });
  });
});
