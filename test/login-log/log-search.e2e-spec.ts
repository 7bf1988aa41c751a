import { randomBytes } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import { createUser } from '../support/factories';
import { epochMs, startApp, TestApp } from '../support/test-app';

const tag = () => randomBytes(3).toString('hex');

/**
 * The log filters match a prefix, index-friendly; failure reasons are kept
 * as codes; a lock caused by failures is an event in both logs.
 */
describe.each(BACKENDS)('log search, failure codes and lock events on $name', (backend) => {
  let app: TestApp;
  const sqlite = backend.name === 'sqlite+memory';

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const loginRows = async (filters: Record<string, unknown>) => {
    const res = await app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 200, ...filters });
    if (!res.body.success) throw new Error(`list failed: ${res.body.code} ${res.body.message}`);
    return res.body.data.rows as any[];
  };
  const auditRows = async (filters: Record<string, unknown>) => {
    const res = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 200, ...filters });
    if (!res.body.success) throw new Error(`list failed: ${res.body.code} ${res.body.message}`);
    return res.body.data.rows as any[];
  };

  it('account and ip match a prefix: adm finds admin, 127.0 finds 127.0.0.1', async () => {
    const user = await createUser(app);
    await app.token(user.username, user.password, { ip: '127.0.0.1' });
    await app.token(user.username, user.password, { ip: '10.127.0.1' });

    const adm = await loginRows({ account: 'adm' });
    expect(adm.map((r) => r.account)).toContain('admin');
    expect(adm.every((r) => r.account.toLowerCase().startsWith('adm'))).toBe(true);
    // LIKE is case-insensitive on both databases (SQLite for ASCII, MariaDB's default collation).
    expect((await loginRows({ account: 'ADM' })).length).toBe(adm.length);

    const local = await loginRows({ ip: '127.0' });
    expect(local.map((r) => `${r.account}@${r.ip}`)).toContain(`${user.username}@127.0.0.1`);
    expect(local.every((r) => r.ip.startsWith('127.0'))).toBe(true);
    // A prefix, not a substring: 10.127.0.1 is not found by 127.0.
    expect(local.map((r) => r.ip)).not.toContain('10.127.0.1');
    // The whole value still finds exactly itself, with the filters combined.
    expect((await loginRows({ account: user.username, ip: '10.127.0.1' })).map((r) => r.ip)).toEqual(['10.127.0.1']);
  });

  it('takes %, _, ! and \\ in the input literally', async () => {
    const t = `q${tag()}`;
    const accounts = [`${t}a%b`, `${t}aXb`, `${t}a_c`, `${t}aYc`, `${t}a\\d`, `${t}a!e`, `${t}a!!e`];
    // Unknown accounts are logged as typed.
    for (const account of accounts) await app.login(account, 'Wrong#pass1');
    const found = async (account: string) => (await loginRows({ account })).map((r) => r.account).sort();

    expect(await found(`${t}a`)).toEqual([...accounts].sort());
    expect(await found(`${t}a%`)).toEqual([`${t}a%b`]);
    expect(await found(`${t}a_`)).toEqual([`${t}a_c`]);
    expect(await found(`${t}a\\`)).toEqual([`${t}a\\d`]);
    expect(await found(`${t}a!`)).toEqual([`${t}a!!e`, `${t}a!e`]);
    expect(await found(`${t}a!!`)).toEqual([`${t}a!!e`]);
    // A wildcard alone matches only values that start with it: none here.
    expect(await loginRows({ account: '%' })).toEqual([]);
    expect(await loginRows({ account: '_' })).toEqual([]);
    expect(await loginRows({ ip: '%' })).toEqual([]);
    const [{ total }] = [(await app.admin('/sys/loginLog/list', { account: 'a%' })).body.data];
    expect(total).toBe(0);
  });

  it('the prefix filters can use an index (EXPLAIN)', async () => {
    // Enough rows that a full scan is the worse plan, and fresh statistics.
    await app.db.query(
      `INSERT INTO sys_login_log (user_id, account, user_name, login_type, status, ip, browser, os, login_time, failure_reason, failure_code)
       WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 9),
         n(i) AS (SELECT a.i * 1000 + b.i * 100 + c.i * 10 + e.i + 1 FROM d a, d b, d c, d e WHERE a.i < 3)
       SELECT NULL, ${sqlite ? "'bulk' || i" : "CONCAT('bulk', i)"}, NULL, 'account', 'passwrong', ${sqlite ? "'172.16.' || (i % 250) || '.' || (i % 200)" : "CONCAT('172.16.', i % 250, '.', i % 200)"}, NULL, NULL, '2020-01-01 00:00:00', NULL, NULL FROM n`,
    );
    await app.db.query(sqlite ? 'ANALYZE' : 'ANALYZE TABLE sys_login_log, sys_audit_log');
    const plans: Record<string, [string, string]> = {
      idx_login_log_account: ['sys_login_log', 'account'],
      idx_login_log_ip: ['sys_login_log', 'ip'],
      idx_audit_log_username: ['sys_audit_log', 'username'],
      idx_audit_log_target_name: ['sys_audit_log', 'target_name'],
    };
    for (const [index, [table, column]] of Object.entries(plans)) {
      const sql = `SELECT COUNT(1) AS n FROM ${table} WHERE ${column} LIKE ? ESCAPE '!'`;
      if (sqlite) {
        const plan = await app.db.query(`EXPLAIN QUERY PLAN ${sql}`, ['bulk12%']);
        // SEARCH ... USING [COVERING] INDEX idx (col>? AND col<?): a range, not a SCAN of the table.
        expect(plan.map((p: any) => p.detail).join('\n')).toMatch(
          new RegExp(`SEARCH .*INDEX ${index} \\(${column}>\\? AND ${column}<\\?\\)`),
        );
      } else {
        const [plan] = await app.db.query(`EXPLAIN ${sql}`, ['bulk12%']);
        expect(plan).toMatchObject({ key: index, type: 'range' });
      }
    }
    // The filter itself over those rows.
    expect((await app.admin('/sys/loginLog/list', { account: 'bulk12' })).body.data.total).toBe(111);
    await app.db.query("DELETE FROM sys_login_log WHERE account LIKE 'bulk%'");
  });

  it('the failure that locks the account is marked ACCOUNT_LOCKED, and system audits user.lock with the reason', async () => {
    const user = await createUser(app);
    await app.saveLoginStrategy({ maxFailureTimes: 3, lockMinutes: 30 });
    try {
      for (let i = 0; i < 3; i++) {
        app.clock.advance(1_000);
        expect((await app.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
      }
      app.clock.advance(1_000);
      expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
    } finally {
      await app.saveLoginStrategy({ maxFailureTimes: 5, lockMinutes: 1440 });
    }
    const rows = await loginRows({ account: user.username });
    // Newest first: the refused login, then the failure that locked, then the two before it.
    expect(rows.map((r) => [r.status, r.failureCode, r.failureReason])).toEqual([
      ['locked', 'ACCOUNT_LOCKED', '用户已被锁定'],
      ['passwrong', 'ACCOUNT_LOCKED', '用户名或密码错误'],
      ['passwrong', 'BAD_CREDENTIALS', '用户名或密码错误'],
      ['passwrong', 'BAD_CREDENTIALS', '用户名或密码错误'],
    ]);
    const { unlock_time: unlockTime } = await app.userRow(user.id);
    const [lock] = await auditRows({ action: 'user.lock', target: user.username });
    expect(lock).toMatchObject({
      userId: 'system',
      username: 'system',
      target: user.id,
      targetName: user.username,
      ip: '',
      detail: {
        username: user.username,
        reason: 'failures',
        failures: 3,
        old: { locked: false, unlockTime: null },
        new: { locked: true, unlockTime: expect.any(String) },
      },
    });
    expect(Date.parse(lock.detail.new.unlockTime)).toBe(epochMs(unlockTime));
    await app.admin('/sys/user/unlock', { id: user.id });
  });

  it("records administrators' lock, unlock, disable and enable as old → new", async () => {
    const user = await createUser(app);
    for (const op of ['lock', 'unlock', 'disable', 'enable']) {
      app.clock.advance(1_000);
      expect((await app.admin(`/sys/user/${op}`, { id: user.id })).body.success).toBe(true);
    }
    const rows = await auditRows({ target: user.username });
    expect(rows.map((r) => [r.action, r.detail.old, r.detail.new])).toEqual([
      ['user.enable', { disabled: true }, { disabled: false }],
      ['user.disable', { disabled: false }, { disabled: true }],
      ['user.unlock', { locked: true, unlockTime: expect.any(String) }, { locked: false, unlockTime: null }],
      ['user.lock', { locked: false, unlockTime: null }, { locked: true, unlockTime: expect.any(String) }],
      ['user.create', undefined, undefined],
    ]);
  });

  it('audit filters: the administrator and the target by prefix (id or name), wildcards literal', async () => {
    const user = await createUser(app, { username: `pfx_${tag()}` });
    await app.admin('/sys/user/lock', { id: user.id });
    const byName = await auditRows({ target: user.username.slice(0, 8) });
    expect(byName.map((r) => r.action)).toEqual(expect.arrayContaining(['user.lock', 'user.create']));
    expect(
      byName.every(
        (r) =>
          r.targetName?.toLowerCase().startsWith(user.username.slice(0, 8)) ||
          r.target?.startsWith(user.username.slice(0, 8)),
      ),
    ).toBe(true);
    expect((await auditRows({ target: user.id.slice(0, 8) })).map((r) => r.target)).toContain(user.id);
    expect((await auditRows({ target: user.id })).every((r) => r.target === user.id)).toBe(true);
    const admins = await auditRows({ username: 'adm' });
    expect(admins.length).toBeGreaterThan(0);
    expect(admins.every((r) => r.username === 'admin')).toBe(true);
    expect(await auditRows({ username: '%' })).toEqual([]);
    expect(await auditRows({ target: 'pfx!' })).toEqual([]);
    expect(await auditRows({ target: 'pfx%' })).toEqual([]);
    expect(await auditRows({ target: 'pfx_' })).toEqual(
      expect.arrayContaining([expect.objectContaining({ target: user.id })]),
    );
    await app.admin('/sys/user/unlock', { id: user.id });
  });

  it("audit rows filter by beginTime and endTime, both inclusive (the console's date shortcuts)", async () => {
    const user = await createUser(app);
    const times: Date[] = [];
    for (const op of ['lock', 'unlock', 'disable']) {
      app.clock.advance(60_000);
      times.push(app.clock.now());
      await app.admin(`/sys/user/${op}`, { id: user.id });
    }
    const actions = async (range: Record<string, string>) =>
      (await auditRows({ target: user.id, ...range })).map((r) => r.action);
    expect(await actions({ beginTime: times[1].toISOString() })).toEqual(['user.disable', 'user.unlock']);
    expect(await actions({ endTime: times[1].toISOString() })).toEqual(['user.unlock', 'user.lock', 'user.create']);
    expect(await actions({ beginTime: times[1].toISOString(), endTime: times[1].toISOString() })).toEqual([
      'user.unlock',
    ]);
    const bad = await app.admin('/sys/auditLog/list', { beginTime: '2024-02-30' });
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'beginTime' }] } });
    await app.admin('/sys/user/enable', { id: user.id });
  });
});
