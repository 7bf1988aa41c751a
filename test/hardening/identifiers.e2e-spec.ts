import { randomBytes, randomUUID } from 'node:crypto';

import { hash } from 'bcrypt';
import { DataSource } from 'typeorm';

import { dataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { PiiReencryptJob } from '../../src/user-account/pii-reencrypt.job';
import { BACKENDS } from '../support/backends';
import { createUser } from '../support/factories';
import { FakeClock } from '../support/fake-clock';
import { namesLabel } from '../support/field-errors';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

const tag = () => randomBytes(4).toString('hex');
const mobileOf = () => `136${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

/** "login identifiers are unique across fields", compared the same way on both databases. */
describe.each(BACKENDS)('login identifiers are unique across fields on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const create = async (fields: Record<string, unknown>) =>
    app.admin('/sys/user/create', { name: 'Ident', password: await app.encrypt('Passw0rd!x'), ...fields });
  const count = async (column: string, value: string) =>
    Number((await app.db.query(`SELECT COUNT(*) AS n FROM sys_user WHERE ${column} = ?`, [value]))[0].n);
  /** VALIDATION_FAILED naming exactly `fields` in data.errors. */
  const refusedOn = (res: { status: number; body: any }, fields: string[]) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(res.body.data.errors.map((e: any) => e.field)).toEqual(fields);
    // Each message names its field by its label (a role's code: 角色编码), never by its input name.
    for (const e of res.body.data.errors) expect(namesLabel(e.message, e.field)).toBe(true);
  };

  describe('across fields', () => {
    it("refuses a user name equal to another user's mobile, and a mobile equal to another user's user name", async () => {
      const existing = await createUser(app);
      const taken = await create({ username: existing.mobile });
      refusedOn(taken, ['username']);
      expect(await count('username', existing.mobile)).toBe(0);

      const digits = mobileOf();
      expect((await create({ username: digits })).body.success).toBe(true);
      const mobile = await create({ username: `m_${tag()}`, mobile: digits });
      refusedOn(mobile, ['mobile']);
      expect(await count('mobile', digits)).toBe(0);
    });

    it("accepts a user name equal to the same user's own mobile (only another user's are refused); a login by it is a user-name login", async () => {
      const digits = mobileOf();
      const res = await create({ username: digits, mobile: digits });
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      expect(await count('username', digits)).toBe(1);
      const login = await app.login(digits, 'Passw0rd!x');
      expect(login.body.success).toBe(true);
      expect((await app.logRows(digits)).at(-1)).toMatchObject({ login_type: 'account', status: 'success' });
      // The value stays taken for everybody else, in every field.
      refusedOn(await create({ username: `u${digits}`, mobile: digits }), ['mobile']);
    });

    it('names every refused field', async () => {
      const existing = await createUser(app);
      refusedOn(await create({ username: existing.username, mobile: existing.mobile, email: existing.email }), [
        'username',
        'mobile',
        'email',
      ]);
    });

    it('login by that value keeps reaching the account that holds it', async () => {
      const holder = await createUser(app);
      await create({ username: holder.mobile });
      const login = await app.login(holder.mobile, holder.password);
      expect(login.body.success).toBe(true);
      const [row] = (await app.logRows(holder.mobile)).slice(-1);
      expect(row).toMatchObject({ user_id: holder.id, login_type: 'mobile' });
    });
  });

  describe('case and accents, the same on SQLite and MariaDB', () => {
    it('refuses case variants of a user name and of an e-mail', async () => {
      const existing = await createUser(app);
      refusedOn(await create({ username: existing.username.toUpperCase() }), ['username']);
      expect(await count('username', existing.username.toUpperCase())).toBe(0);
      const email = existing.email.replace(/^./, (c) => c.toUpperCase()).replace('example.com', 'Example.COM');
      refusedOn(await create({ username: `e_${tag()}`, email }), ['email']);
      expect(await count('email', email)).toBe(0);
    });

    it('keeps accent variants apart: josé@ and jose@ are two e-mails', async () => {
      const local = `jose${tag()}`;
      const plain = await create({ username: `a_${tag()}`, email: `${local}@example.com` });
      const accented = await create({ username: `b_${tag()}`, email: `${local.replace('jose', 'josé')}@example.com` });
      expect(plain.body).toMatchObject({ success: true, code: 'OK' });
      expect(accented.body).toMatchObject({ success: true, code: 'OK' });
      // Each logs in to its own account.
      const token = await app.token(`${local.replace('jose', 'josé')}@example.com`, 'Passw0rd!x');
      expect((await app.post('/sys/me/info', {}, { token })).body.data.id).toBe(accented.body.data.id);
    });

    it('logs in by a user name or an e-mail in any case; the log keeps the type of the matched field', async () => {
      const login = await app.login('ADMIN', ADMIN_PASSWORD);
      expect(login.body).toMatchObject({ success: true, code: 'OK' });
      expect((await app.logRows('ADMIN')).slice(-1)[0]).toMatchObject({ login_type: 'account', status: 'success' });

      const user = await createUser(app);
      const upper = user.email.toUpperCase();
      expect((await app.login(upper, user.password)).body.success).toBe(true);
      expect((await app.logRows(upper)).slice(-1)[0]).toMatchObject({ user_id: user.id, login_type: 'email' });
    });
  });

  it('the user list keyword still matches user names and e-mails in any case', async () => {
    const user = await createUser(app);
    const search = async (keyword: string) =>
      (await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword })).body.data.rows.map((r: any) => r.id);
    expect(await search(user.username.toUpperCase())).toEqual([user.id]);
    expect(await search(user.email.toUpperCase())).toEqual([user.id]);
  });

  describe('under concurrent requests', () => {
    it('10 parallel creates of one user name (in varying case): exactly one succeeds, the rest are VALIDATION_FAILED', async () => {
      const base = `par_${tag()}`;
      const names = Array.from({ length: 10 }, (_, i) => (i % 2 ? base.toUpperCase() : base));
      const password = await app.encrypt('Passw0rd!x');
      const token = await app.adminToken();
      const answers = await Promise.all(
        names.map((username) =>
          app.post('/sys/user/create', { username, name: 'Race', password }, { token, ip: '10.9.9.9' }),
        ),
      );
      expect(answers.filter((r) => r.body.success)).toHaveLength(1);
      for (const r of answers.filter((a) => !a.body.success)) refusedOn(r, ['username']);
      const rows = await app.db.query('SELECT username FROM sys_user WHERE LOWER(username) = ?', [base]);
      expect(rows).toHaveLength(1);
    });

    it('3 parallel saves of one new role code answer 200, never 5xx, and leave one role (5 rounds)', async () => {
      const token = await app.adminToken();
      for (let round = 0; round < 5; round++) {
        const code = `race_${tag()}`;
        const answers = await Promise.all(
          [0, 1, 2].map((i) =>
            app.post(
              '/sys/role/save',
              { code, name: `race ${i}`, permissions: ['sys:user:list'] },
              { token, ip: '10.9.9.9' },
            ),
          ),
        );
        expect({ round, statuses: answers.map((r) => r.status) }).toEqual({ round, statuses: [200, 200, 200] });
        expect(await app.db.query('SELECT code FROM sys_role WHERE code = ?', [code])).toHaveLength(1);
      }
    });

    it('parallel saves of case variants of one new role code: one role, the rest VALIDATION_FAILED', async () => {
      const code = `rc_${tag()}`;
      const token = await app.adminToken();
      const answers = await Promise.all(
        [code, code.toUpperCase(), `R${code.slice(1)}`].map((c) =>
          app.post('/sys/role/save', { code: c, name: c, permissions: [] }, { token, ip: '10.9.9.9' }),
        ),
      );
      expect(answers.filter((r) => r.body.success)).toHaveLength(1);
      for (const r of answers.filter((a) => !a.body.success)) refusedOn(r, ['code']);
    });
  });

  describe('role codes', () => {
    it('a case variant of an existing code is a duplicate: VALIDATION_FAILED on both databases, the role unchanged', async () => {
      const code = `cv_${tag()}`;
      expect(
        (await app.admin('/sys/role/save', { code, name: 'first', permissions: ['sys:user:list'] })).body.success,
      ).toBe(true);
      const variant = await app.admin('/sys/role/save', { code: code.toUpperCase(), name: 'second', permissions: [] });
      refusedOn(variant, ['code']);
      expect(variant.body.message).toContain(code);
      const roles = (await app.admin('/sys/role/list')).body.data.filter((r: any) => r.code.toLowerCase() === code);
      expect(roles).toEqual([
        {
          code,
          name: 'first',
          permissions: ['sys:user:list'],
          userCount: 0,
          users: [],
          sets: ['system', 'security'],
          builtIn: false,
        },
      ]);
      // The exact code still updates in place.
      expect((await app.admin('/sys/role/save', { code, name: 'again', permissions: [] })).body.success).toBe(true);
      // And a user cannot be given the variant: it names no role.
      const res = await create({ username: `rv_${tag()}`, roles: [code.toUpperCase()] });
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });
  });
});

/** The migration fills sys_user_identifier from the users that exist before it. */
describe.each(BACKENDS)('sys_user_identifier backfill of existing users on $name', (backend) => {
  it('keeps every login that worked before, and refuses new clashes with the old users', async () => {
    const provisioned = await backend.provision();
    const url = provisioned.env.DATABASE_URL;
    const before = new DataSource({
      ...dataSourceOptions(url),
      migrations: MIGRATIONS.slice(0, 3),
      migrationsRun: false,
    } as any);
    await before.initialize();
    await before.runMigrations();
    const password = await hash('Passw0rd!x', 4);
    const insert = (id: string, username: string, mobile: string | null, email: string | null, createTime: string) =>
      before.query(
        'INSERT INTO sys_user (id, username, name, mobile, email, password, create_time, locked, disabled) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)',
        [id, username, username, mobile, email, password, createTime],
      );
    const [older, digits, mixed] = [randomUUID(), randomUUID(), randomUUID()];
    // Before the rule: one user's mobile equal to another (younger) user's user name.
    await insert(older, 'older_user', '13912345678', 'Older@Example.com', '2024-01-01 00:00:00.000');
    await insert(digits, '13912345678', null, null, '2024-02-01 00:00:00.000');
    await insert(mixed, 'Mixed_Case', null, null, '2024-03-01 00:00:00.000');
    await before.destroy();

    // Just after the users were created: their initial passwords have not expired.
    const app = await startApp(backend, { provisioned, clock: new FakeClock(new Date('2024-03-02T00:00:00Z')) });
    try {
      // Order as before: the user name wins over the other user's mobile.
      await app.login('13912345678', 'Passw0rd!x');
      expect((await app.logRows('13912345678')).slice(-1)[0]).toMatchObject({
        user_id: digits,
        login_type: 'account',
        status: 'success',
      });
      await app.login('older@example.com', 'Passw0rd!x');
      expect((await app.logRows('older@example.com')).slice(-1)[0]).toMatchObject({
        user_id: older,
        login_type: 'email',
        status: 'success',
      });
      await app.login('mixed_case', 'Passw0rd!x');
      expect((await app.logRows('mixed_case')).slice(-1)[0]).toMatchObject({
        user_id: mixed,
        login_type: 'account',
        status: 'success',
      });

      // The rows written before encryption are moved in the background at start: wait for that here.
      await app.app.get(PiiReencryptJob).run();
      const kinds = await app.db.query('SELECT user_id, kind FROM sys_user_identifier ORDER BY user_id, kind');
      expect(kinds).toEqual(
        expect.arrayContaining([
          { user_id: older, kind: 'username' },
          { user_id: older, kind: 'email' },
          // The old mobile is kept as its keyed hash (docs/security.md#personal-data), which is not the other
          // user's name it equals: the login above still reaches the user name first, as before.
          { user_id: older, kind: 'mobile' },
          { user_id: digits, kind: 'username' },
          { user_id: mixed, kind: 'username' },
        ]),
      );
      expect(kinds).toHaveLength(5);

      // Creating through the API now needs a session holding sys:user:create: the old user gets the role admin.
      await app.db.query('INSERT INTO sys_user_role (user_id, role_code) VALUES (?, ?)', [older, 'admin']);
      const token = await app.token('older_user', 'Passw0rd!x');
      const res = await app.post(
        '/sys/user/create',
        { username: 'MIXED_case', name: 'x', password: await app.encrypt('Passw0rd!x') },
        { token },
      );
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'username' }] } });
    } finally {
      await app.close();
      await provisioned.dispose();
    }
  });
});
