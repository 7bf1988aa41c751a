import { DataSource, DataSourceOptions } from 'typeorm';

import { dataSourceOptions, initializeDataSource, MIGRATIONS } from '../../src/database/data-source-options';
import { LogSealer } from '../../src/log-seal/log-sealer';
import { LogRetentionService } from '../../src/retention/log-retention.service';
import { BACKENDS } from '../support/backends';
import { FORBIDDEN } from '../support/envelopes';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/**
 * Sealed logs (docs/security.md#sealed-logs): every row of sys_login_log and sys_audit_log is
 * sealed in a chain; POST /sys/auditLog/verify seals what was written, then names the first row
 * that was changed, removed or put in directly in the database.
 */
jest.setTimeout(60_000);

const WRONG = 'Wrong#pass1';

const count = async (app: TestApp, table: string): Promise<number> =>
  Number((await app.db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

/** Logins (good and bad) and administrative actions: rows in both logs. */
async function someActivity(app: TestApp): Promise<void> {
  const user = await createActiveUser(app);
  await app.login(user.username, WRONG);
  await app.token(user.username, user.password);
  await app.admin('/sys/user/lock', { id: user.id });
  await app.admin('/sys/user/unlock', { id: user.id });
  await app.login(user.username, WRONG, { ip: '10.7.7.7' });
}

async function verify(app: TestApp) {
  const res = await app.admin('/sys/auditLog/verify');
  expect(res.body).toMatchObject({ success: true, code: 'OK' });
  return res.body.data as {
    ok: boolean;
    checked: number;
    unsealed: number;
    firstBad: { table: string; id: string; reason: string } | null;
  };
}

/** The ids of a table's rows in chain order. */
async function chainIds(app: TestApp, table: string): Promise<string[]> {
  const rows = await app.db.query(`SELECT id FROM ${table} WHERE seal_seq IS NOT NULL ORDER BY seal_seq`);
  return rows.map((r: { id: unknown }) => String(r.id));
}

describe.each(BACKENDS)('sealed logs on $name', (backend) => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startApp(backend, { env: { LOG_RETENTION_DAYS: '180' } });
    await someActivity(app);
  });
  afterEach(() => app.close());

  it('seals every row in order and, with nothing touched, answers ok for every row; the check is audited', async () => {
    const rows = (await count(app, 'sys_login_log')) + (await count(app, 'sys_audit_log'));
    const result = await verify(app);
    expect(result).toEqual({ ok: true, checked: rows, unsealed: 0, firstBad: null });

    // Every row got a MAC when written, and a place: 1, 2, 3 … in each table, each once.
    for (const table of ['sys_login_log', 'sys_audit_log']) {
      // (The verification's own row comes after: it is sealed by the next pass.)
      const places = await app.db.query(
        `SELECT seal_seq, row_mac FROM ${table} WHERE seal_seq IS NOT NULL ORDER BY seal_seq`,
      );
      expect(places.map((r: { seal_seq: unknown }) => Number(r.seal_seq))).toEqual(
        places.map((_: unknown, i: number) => i + 1),
      );
      expect(places.every((r: { row_mac: string }) => /^[0-9a-f]{64}$/.test(r.row_mac))).toBe(true);
    }
    const audit = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 1, action: 'auditLog.verify' });
    expect(audit.body.data.rows).toEqual([
      expect.objectContaining({
        action: 'auditLog.verify',
        username: 'admin',
        detail: { ok: true, checked: rows, unsealed: 0, firstBad: null },
      }),
    ]);
    // The seal columns are the seal's own: the lists do not show them.
    expect(Object.keys(audit.body.data.rows[0])).not.toContain('seal');
    const logins = await app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 1 });
    expect(Object.keys(logins.body.data.rows[0]).filter((k) => /seal|mac/i.test(k))).toEqual([]);
  });

  it('names a row whose field was changed in the database as altered, and is ok again once it is put back', async () => {
    await app.app.get(LogSealer).sealNow();
    const ids = await chainIds(app, 'sys_login_log');
    const middle = ids[Math.floor(ids.length / 2)];
    const [{ ip }] = await app.db.query('SELECT ip FROM sys_login_log WHERE id = ?', [middle]);
    await app.db.query("UPDATE sys_login_log SET ip = '203.0.113.9' WHERE id = ?", [middle]);

    expect((await verify(app)).firstBad).toEqual({ table: 'sys_login_log', id: middle, reason: 'altered' });

    await app.db.query('UPDATE sys_login_log SET ip = ? WHERE id = ?', [ip, middle]);
    expect(await verify(app)).toMatchObject({ ok: true, firstBad: null });
  });

  it('names an audit row whose detail was rewritten as altered', async () => {
    await app.app.get(LogSealer).sealNow();
    const ids = await chainIds(app, 'sys_audit_log');
    await app.db.query('UPDATE sys_audit_log SET detail = ? WHERE id = ?', ['{"reason":"nothing"}', ids[1]]);
    const result = await verify(app);
    expect(result).toMatchObject({ ok: false, firstBad: { table: 'sys_audit_log', id: ids[1], reason: 'altered' } });
  });

  it("covers the sealed whole account of a login by mobile: another row's copy put there is altered", async () => {
    const users = [await createActiveUser(app), await createActiveUser(app)];
    for (const user of users) await app.token(user.mobile, user.password);
    await app.app.get(LogSealer).sealNow();
    expect(await verify(app)).toMatchObject({ ok: true, firstBad: null });
    const rows = await app.db.query(
      'SELECT id, pii_account FROM sys_login_log WHERE pii_account IS NOT NULL ORDER BY id DESC LIMIT 2',
    );
    expect(rows).toHaveLength(2);
    // The first user's login shown as the second user's mobile to a holder of sys:user:pii: caught.
    await app.db.query('UPDATE sys_login_log SET pii_account = ? WHERE id = ?', [rows[0].pii_account, rows[1].id]);
    expect((await verify(app)).firstBad).toEqual({ table: 'sys_login_log', id: String(rows[1].id), reason: 'altered' });
  });

  it('names a row removed from the middle as missing, and is ok again once it is back', async () => {
    await app.app.get(LogSealer).sealNow();
    const ids = await chainIds(app, 'sys_audit_log');
    const middle = ids[Math.floor(ids.length / 2)];
    const [row] = await app.db.query('SELECT * FROM sys_audit_log WHERE id = ?', [middle]);
    await app.db.query('DELETE FROM sys_audit_log WHERE id = ?', [middle]);

    expect(await verify(app)).toMatchObject({
      ok: false,
      firstBad: { table: 'sys_audit_log', id: middle, reason: 'missing' },
    });

    const columns = Object.keys(row);
    await app.db.query(
      `INSERT INTO sys_audit_log (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      columns.map((c) => row[c]),
    );
    expect(await verify(app)).toMatchObject({ ok: true, firstBad: null });
  });

  it('names the newest row removed as missing: the chain must reach the head it was sealed to', async () => {
    await app.app.get(LogSealer).sealNow();
    const ids = await chainIds(app, 'sys_login_log');
    await app.db.query('DELETE FROM sys_login_log WHERE id = ?', [ids[ids.length - 1]]);
    expect((await verify(app)).firstBad).toEqual({
      table: 'sys_login_log',
      id: ids[ids.length - 1],
      reason: 'missing',
    });
  });

  it('names a row put into the database directly as inserted', async () => {
    await app.db.query(
      "INSERT INTO sys_login_log (user_id, account, login_type, status, ip, login_time) VALUES (NULL, 'forged', 'account', 'success', '10.0.0.66', ?)",
      [new Date(app.clock.nowMs()).toISOString().replace('T', ' ').slice(0, 23)],
    );
    const [{ id }] = await app.db.query("SELECT id FROM sys_login_log WHERE account = 'forged'");
    expect((await verify(app)).firstBad).toEqual({ table: 'sys_login_log', id: String(id), reason: 'inserted' });
  });

  it('names a copy of a sealed row, seal and all, as inserted', async () => {
    await app.app.get(LogSealer).sealNow();
    const ids = await chainIds(app, 'sys_login_log');
    // A copy of the second row, MAC, place and seal included, under a new id; the unique index on
    // seal_seq is dropped first, as someone forging rows could.
    const [row] = await app.db.query('SELECT * FROM sys_login_log WHERE id = ?', [ids[1]]);
    const columns = Object.keys(row).filter((c) => c !== 'id');
    const dropIndex =
      backend.name === 'sqlite+memory'
        ? 'DROP INDEX uq_login_log_seal_seq'
        : 'DROP INDEX uq_login_log_seal_seq ON sys_login_log';
    await app.db.query(dropIndex);
    await app.db.query(
      `INSERT INTO sys_login_log (id, ${columns.join(', ')}) VALUES (?, ${columns.map(() => '?').join(', ')})`,
      [Number(ids[ids.length - 1]) + 1000, ...columns.map((c) => row[c])],
    );
    const result = await verify(app);
    expect(result.firstBad).toEqual({
      table: 'sys_login_log',
      id: String(Number(ids[ids.length - 1]) + 1000),
      reason: 'inserted',
    });
  });

  it('still verifies after retention deleted old rows, and still names a young row removed after it', async () => {
    await app.app.get(LogSealer).sealNow();
    const old = await count(app, 'sys_login_log');
    // Passwords that never expire, so that the administrator still logs in 200 days on.
    await app.saveUserStrategy({ passwordExpireDays: 0 });
    app.clock.advanceDays(200);
    await someActivity(app);
    await app.app.get(LogSealer).sealNow();

    const result = await app.app.get(LogRetentionService).run();
    expect(result!.loginLog).toBe(old);
    expect(await verify(app)).toMatchObject({ ok: true, firstBad: null });

    const ids = await chainIds(app, 'sys_login_log');
    await app.db.query('DELETE FROM sys_login_log WHERE id = ?', [ids[1]]);
    expect((await verify(app)).firstBad).toEqual({ table: 'sys_login_log', id: ids[1], reason: 'missing' });
  });

  it('needs sys:auditLog:verify: FORBIDDEN without it (audited as access.denied), OK with it', async () => {
    await createRole(app, 'auditor_ro', ['sys:auditLog:list']);
    await createRole(app, 'auditor_v', ['sys:auditLog:verify']);
    const reader = await createUser(app, { roles: ['auditor_ro'] });
    const checker = await createUser(app, { roles: ['auditor_v'] });
    const readerToken = await app.token(reader.username, reader.password);
    const checkerToken = await app.token(checker.username, checker.password);

    expect((await app.post('/sys/auditLog/verify', {}, { token: readerToken })).body).toEqual(FORBIDDEN);
    const denied = await app.db.query(
      "SELECT detail FROM sys_audit_log WHERE action = 'access.denied' AND user_id = ?",
      [reader.id],
    );
    expect(JSON.parse(denied[0].detail)).toEqual({ path: '/sys/auditLog/verify', missing: ['sys:auditLog:verify'] });

    const res = await app.post(
      '/sys/auditLog/verify',
      {},
      { token: checkerToken, headers: { 'accept-language': 'en' } },
    );
    expect(res.body).toMatchObject({ success: true, data: { ok: true, firstBad: null } });
    expect((await app.post('/sys/auditLog/verify', { extra: 1 }, { token: checkerToken })).body.code).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('seals rows whose typed text the database would change (a character cut in half, a NUL) as stored', async () => {
    // A surrogate pair cut by the account column's length, and a NUL typed into the form.
    await app.login(`${'a'.repeat(127)}😀`, WRONG);
    await app.login('nul\u0000name', WRONG);
    expect(await verify(app)).toMatchObject({ ok: true, firstBad: null });
  });
});

describe.each(BACKENDS)('rows written before sealing began, on $name', (backend) => {
  it('count as unsealed, never as bad', async () => {
    const provisioned = await backend.provision();
    // The schema as it was before sealing, with rows in both logs.
    const options = {
      ...dataSourceOptions(provisioned.env.DATABASE_URL),
      entities: [],
      migrations: MIGRATIONS.filter((m) => m.name !== 'LogSeals1765900000000'),
    } as DataSourceOptions;
    const before: DataSource = await initializeDataSource(options);
    for (let i = 0; i < 3; i++) {
      await before.query(
        "INSERT INTO sys_login_log (account, login_type, status, ip, login_time) VALUES ('old', 'account', 'passwrong', '10.0.0.1', '2025-01-01 00:00:00.000')",
      );
    }
    await before.query(
      "INSERT INTO sys_audit_log (user_id, username, action, ip, create_time) VALUES ('a', 'a', 'user.lock', '', '2025-01-01 00:00:00.000')",
    );
    await before.destroy();

    const app = await startApp(backend, { provisioned });
    try {
      await someActivity(app);
      const result = await verify(app);
      expect(result).toMatchObject({ ok: true, unsealed: 4, firstBad: null });
      // Still unsealed, whatever happens to them: they were never sealed.
      await app.db.query("UPDATE sys_login_log SET ip = '6.6.6.6' WHERE account = 'old'");
      expect(await verify(app)).toMatchObject({ ok: true, unsealed: 4 });
    } finally {
      await app.close();
      await provisioned.dispose();
    }
  });
});

describe.each(BACKENDS)('two instances writing at once on $name', (backend) => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(backend);
    b = await startApp(backend, { provisioned: a.provisioned });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('keep one chain: every row sealed once, in one order, and the check is ok', async () => {
    const [ua, ub] = [await createUser(a), await createUser(b)];
    const wrongs = (app: TestApp, username: string) =>
      Array.from({ length: 12 }, (_, i) => app.login(username, WRONG, { ip: `10.8.${i}.1` }));
    await Promise.all([
      ...wrongs(a, ua.username),
      ...wrongs(b, ub.username),
      ...wrongs(a, 'nobody_a'),
      ...wrongs(b, 'nobody_b'),
      // Both sealers at once, besides their background passes.
      a.app.get(LogSealer).sealNow(),
      b.app.get(LogSealer).sealNow(),
    ]);
    await Promise.all([a.app.get(LogSealer).sealNow(), b.app.get(LogSealer).sealNow()]);
    const rows = (await count(a, 'sys_login_log')) + (await count(a, 'sys_audit_log'));
    const result = await verify(a);
    // The verification's own row and the admin's login on b may come after: at least every row above.
    expect(result).toMatchObject({ ok: true, firstBad: null, unsealed: 0 });
    expect(result.checked).toBeGreaterThanOrEqual(rows);
    expect(await verify(b)).toMatchObject({ ok: true, firstBad: null });
    const places = await a.db.query('SELECT seal_seq FROM sys_login_log ORDER BY seal_seq');
    expect(places.map((r: { seal_seq: unknown }) => Number(r.seal_seq))).toEqual(
      places.map((_: unknown, i: number) => i + 1),
    );
  });
});

describe.each(BACKENDS)('the sealing key on $name', (backend) => {
  it('is kept in the database when unset, moves to AUDIT_HMAC_KEY by its value, and another key stops the start', async () => {
    const provisioned = await backend.provision();
    try {
      const first = await startApp(backend, { provisioned });
      await someActivity(first);
      const [{ prop_value: stored }] = await first.db.query(
        "SELECT prop_value FROM sys_props WHERE prop_group = 'sys_security' AND prop_key = 'audit_hmac_key'",
      );
      await first.close();

      // The operator moves the generated key into the configuration, as the start log asks.
      const moved = await startApp(backend, { provisioned, env: { AUDIT_HMAC_KEY: stored } });
      expect(await verify(moved)).toMatchObject({ ok: true, firstBad: null });
      await moved.close();

      const other = Buffer.alloc(32, 9).toString('base64');
      await expect(startApp(backend, { provisioned, env: { AUDIT_HMAC_KEY: other } })).rejects.toThrow(
        'AUDIT_HMAC_KEY: not the key the login and audit logs were sealed under',
      );
    } finally {
      await provisioned.dispose();
    }
  });
});
