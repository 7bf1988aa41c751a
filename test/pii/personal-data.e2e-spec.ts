import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';

import { PiiReencryptJob } from '../../src/user-account/pii-reencrypt.job';
import { BACKENDS, Provisioned } from '../support/backends';
import { createActiveUser, createRole, TestUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const newKey = () => randomBytes(32).toString('base64');
const masked = (u: TestUser) => ({
  mobile: `${u.mobile.slice(0, 3)}****${u.mobile.slice(-4)}`,
  email: `${u.email[0]}***@example.com`,
});

/**
 * Personal data (docs/security.md#personal-data): mobiles and e-mails sealed at rest with a keyed hash for
 * look-ups, masked in lists and exports unless the caller holds sys:user:pii, whole in /sys/user/detail
 * (audited), re-encrypted by PiiReencryptJob after a key rotation or from rows written before encryption.
 */
describe.each(BACKENDS)('personal data on $name', (backend) => {
  let provisioned: Provisioned;
  let app: TestApp;
  const key = newKey();
  beforeAll(async () => {
    provisioned = await backend.provision();
    app = await startApp(backend, { provisioned, env: { PII_ENCRYPTION_KEY: key } });
  });
  afterAll(async () => {
    await app?.close();
    await provisioned.dispose();
  });

  async function viewer(codes: string[]): Promise<string> {
    const role = `pii_${randomBytes(3).toString('hex')}`;
    await createRole(app, role, codes);
    const user = await createActiveUser(app, { roles: [role] });
    return app.token(user.username, user.password);
  }

  async function exported(token: string, keyword: string): Promise<string> {
    const res = await app.app.inject({
      method: 'POST',
      url: '/sys/user/export',
      headers: { 'content-type': 'application/json', 'admin-token': token, 'x-forwarded-for': '10.0.0.1' },
      payload: JSON.stringify({ keyword, columns: 'fields' }),
    });
    expect(res.statusCode).toBe(200);
    return res.body;
  }

  it('masks mobiles and e-mails in the list and the export unless the caller holds sys:user:pii', async () => {
    const user = await createActiveUser(app);
    const lister = await viewer(['sys:user:list']);
    const holder = await viewer(['sys:user:list', 'sys:user:pii']);
    const row = async (token: string) =>
      (await app.post('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: user.username }, { token })).body.data
        .rows[0];

    expect(await row(lister)).toMatchObject(masked(user));
    expect(await row(holder)).toMatchObject({ mobile: user.mobile, email: user.email });
    const sheet = await exported(lister, user.username);
    expect(sheet).toContain(masked(user).mobile);
    expect(sheet).not.toContain(user.mobile);
    expect(sheet).not.toContain(user.email);
    expect(await exported(holder, user.username)).toContain(user.email);
  });

  it('/sys/user/detail shows them whole to a holder of sys:user:pii, audited as user.pii.view; masked to others', async () => {
    const user = await createActiveUser(app);
    const lister = await viewer(['sys:user:list']);
    const holder = await viewer(['sys:user:list', 'sys:user:pii']);

    const plain = await app.post('/sys/user/detail', { id: user.id }, { token: lister });
    expect(plain.body.data).toMatchObject({ id: user.id, ...masked(user) });
    const whole = await app.post('/sys/user/detail', { id: user.id }, { token: holder });
    expect(whole.body.data).toMatchObject({ id: user.id, mobile: user.mobile, email: user.email });

    const audit = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 50, action: 'user.pii.view' });
    expect(audit.body.data.rows.filter((r: any) => r.target === user.id)).toHaveLength(1);
    expect(
      (await app.post('/sys/user/detail', { id: user.id }, { token: await viewer(['sys:online:list']) })).body.code,
    ).toBe('FORBIDDEN');
    const unknown = await app.post(
      '/sys/user/detail',
      { id: '00000000-0000-0000-0000-000000000000' },
      { token: holder },
    );
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  it('logs in by mobile and by e-mail (any case); the login log masks them but to a holder of sys:user:pii', async () => {
    const user = await createActiveUser(app);
    expect((await app.login(user.mobile, user.password)).body.success).toBe(true);
    expect((await app.login(user.email.toUpperCase(), user.password)).body.success).toBe(true);
    const accounts = async (token: string) =>
      (await app.post('/sys/loginLog/list', { pageNum: 1, pageSize: 50 }, { token })).body.data.rows
        .map((r: any) => r.account)
        .join('\n');
    const lister = await accounts(await viewer(['sys:loginLog:list']));
    expect(lister).toContain(masked(user).mobile);
    expect(lister).not.toContain(user.mobile);
    expect(lister.toLowerCase()).not.toContain(user.email);
    const holder = await accounts(await viewer(['sys:loginLog:list', 'sys:user:pii']));
    expect(holder).toContain(user.mobile);
    expect(holder).toContain(user.email.toUpperCase());
    expect(holder).not.toContain(masked(user).mobile);
    // The export follows the list; the user's own history shows the user's own accounts whole.
    const exportedBy = async (token: string) =>
      (
        await app.app.inject({
          method: 'POST',
          url: '/sys/loginLog/export',
          headers: { 'content-type': 'application/json', 'admin-token': token },
          payload: JSON.stringify({ account: user.mobile, columns: 'fields' }),
        })
      ).body;
    const plainSheet = await exportedBy(await viewer(['sys:loginLog:export']));
    expect(plainSheet).toContain(masked(user).mobile);
    expect(plainSheet).not.toContain(user.mobile);
    expect(await exportedBy(await viewer(['sys:loginLog:export', 'sys:user:pii']))).toContain(user.mobile);
    const own = await app.post(
      '/sys/me/loginLog',
      { pageNum: 1, pageSize: 10 },
      { token: await app.token(user.username, user.password) },
    );
    expect(own.body.data.rows.map((r: any) => r.account)).toEqual(
      expect.arrayContaining([user.mobile, user.email.toUpperCase()]),
    );
  });

  it('keeps a long account typed with an @ (127 Chinese characters) whole for a holder, without failing the login', async () => {
    const typed = `${'张'.repeat(120)}@qq.com`;
    expect((await app.login(typed, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
    const rows = (
      await app.post(
        '/sys/loginLog/list',
        { pageNum: 1, pageSize: 5 },
        { token: await viewer(['sys:loginLog:list', 'sys:user:pii']) },
      )
    ).body.data.rows;
    expect(rows.map((r: any) => r.account)).toContain(typed);
  });

  it('the audit log masks a changed mobile and e-mail but to a holder of sys:user:pii, in the list and the export', async () => {
    const user = await createActiveUser(app);
    const next = {
      mobile: `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
      email: `n.${user.username}@example.org`,
    };
    expect((await app.admin('/sys/user/update', { id: user.id, ...next })).body.success).toBe(true);
    const detailFor = async (codes: string[]) =>
      (
        await app.post(
          '/sys/auditLog/list',
          { pageNum: 1, pageSize: 10, action: 'user.update', target: user.id },
          { token: await viewer(codes) },
        )
      ).body.data.rows[0].detail;
    expect(await detailFor(['sys:auditLog:list'])).toEqual({
      username: user.username,
      old: masked(user),
      new: { mobile: `${next.mobile.slice(0, 3)}****${next.mobile.slice(-4)}`, email: 'n***@example.org' },
    });
    expect(await detailFor(['sys:auditLog:list', 'sys:user:pii'])).toEqual({
      username: user.username,
      old: { mobile: user.mobile, email: user.email },
      new: next,
    });
    const sheetFor = async (codes: string[]) =>
      (
        await app.app.inject({
          method: 'POST',
          url: '/sys/auditLog/export',
          headers: { 'content-type': 'application/json', 'admin-token': await viewer(codes) },
          payload: JSON.stringify({ action: 'user.update', target: user.id, columns: 'fields' }),
        })
      ).body;
    const plainSheet = await sheetFor(['sys:auditLog:export']);
    expect(plainSheet).toContain(masked(user).mobile);
    expect(plainSheet).not.toContain(next.mobile);
    expect(await sheetFor(['sys:auditLog:export', 'sys:user:pii'])).toContain(next.mobile);
  });

  it('refuses a mobile or e-mail another user holds, and one equal to another user name', async () => {
    const user = await createActiveUser(app);
    for (const clash of [{ mobile: user.mobile }, { email: user.email.toUpperCase() }, { username: user.mobile }]) {
      const res = await app.admin('/sys/user/create', {
        username: `c_${randomBytes(3).toString('hex')}`,
        name: 'Clash',
        password: await app.encrypt('Passw0rd!x'),
        ...clash,
      });
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('rows written before encryption are sealed by the job, and log in by mobile before and after', async () => {
    const user = await createActiveUser(app);
    const mobile = `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const email = `Legacy.${randomBytes(3).toString('hex')}@example.com`;
    // As an upgrade finds a row: plain values, no hashes, plain identifier rows.
    await app.db.query(
      'UPDATE sys_user SET mobile = ?, email = ?, mobile_hash = NULL, email_hash = NULL, pii_version = NULL WHERE id = ?',
      [mobile, email, user.id],
    );
    const value = app.db.driver.escape('value');
    await app.db.query(`DELETE FROM sys_user_identifier WHERE user_id = ? AND kind IN ('mobile', 'email')`, [user.id]);
    await app.db.query(
      `INSERT INTO sys_user_identifier (${value}, user_id, kind) VALUES (?, ?, 'mobile'), (?, ?, 'email')`,
      [mobile, user.id, email.toLowerCase(), user.id],
    );
    expect((await app.login(mobile, user.password)).body.success).toBe(true);

    expect(await app.app.get(PiiReencryptJob).run()).toBeGreaterThanOrEqual(1);
    const [row] = await app.db.query('SELECT mobile, email, pii_version FROM sys_user WHERE id = ?', [user.id]);
    expect(row.pii_version).toMatch(/^standard-/);
    expect(row.mobile).not.toContain(mobile);
    expect(row.email).not.toContain(email);
    expect((await app.login(mobile, user.password)).body.success).toBe(true);
    expect((await app.login(email, user.password)).body.success).toBe(true);
    expect((await app.admin('/sys/user/detail', { id: user.id })).body.data).toMatchObject({ mobile, email });
    // Done once: a second run finds nothing to do.
    expect(await app.app.get(PiiReencryptJob).run()).toBe(0);
  });

  it('a rotated key: values under the previous one still read and log in, and the job moves them', async () => {
    const user = await createActiveUser(app);
    const [before] = await app.db.query('SELECT pii_version FROM sys_user WHERE id = ?', [user.id]);
    const rotated = await startApp(backend, {
      provisioned,
      env: { PII_ENCRYPTION_KEY: newKey(), PII_ENCRYPTION_KEY_PREVIOUS: key },
    });
    try {
      await rotated.app.get(PiiReencryptJob).run();
      const [after] = await rotated.db.query('SELECT pii_version FROM sys_user WHERE id = ?', [user.id]);
      expect(after.pii_version).not.toBe(before.pii_version);
      expect((await rotated.login(user.mobile, user.password)).body.success).toBe(true);
      expect((await rotated.admin('/sys/user/detail', { id: user.id })).body.data).toMatchObject({
        mobile: user.mobile,
        email: user.email,
      });
    } finally {
      await rotated.close();
    }
    // Back under the first key (the rotated one as previous): still readable.
  });

  it('a dump of the database holds no mobile number or e-mail address in plain text', async () => {
    const users = [await createActiveUser(app), await createActiveUser(app)];
    const changed = users[1];
    const next = {
      mobile: `136${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
      email: `moved.${changed.username}@example.org`,
    };
    expect((await app.admin('/sys/user/update', { id: changed.id, ...next })).body.success).toBe(true);
    expect((await app.login(next.mobile, changed.password)).body.success).toBe(true);
    await app.app.get(PiiReencryptJob).run();
    const secrets = [...users.flatMap((u) => [u.mobile, u.email]), next.mobile, next.email];
    const dump = await dumpOf(app, backend.name);
    for (const secret of secrets) {
      expect(dump.includes(secret)).toBe(false);
      expect(dump.toLowerCase().includes(secret.toLowerCase())).toBe(false);
    }
    // The dump is real: it holds what is not personal data.
    expect(dump.includes(users[0].username)).toBe(true);
  });
});

/** Every column of every table: the SQLite file's bytes (and its WAL), or a SELECT * of every MariaDB table. */
async function dumpOf(app: TestApp, backend: string): Promise<string> {
  if (backend.startsWith('sqlite')) {
    await app.db.query('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => undefined);
    const file = app.provisioned.env.DATABASE_URL.replace(/^sqlite:/, '');
    const parts = [file, `${file}-wal`, `${file}-journal`]
      .filter(existsSync)
      .map((f) => readFileSync(f).toString('latin1'));
    return parts.join('\n');
  }
  const tables: { name: string }[] = await app.db.query(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()',
  );
  const out: string[] = [];
  for (const { name } of tables) {
    const rows = await app.db.query(`SELECT * FROM \`${name}\``);
    out.push(JSON.stringify(rows));
  }
  return out.join('\n');
}
