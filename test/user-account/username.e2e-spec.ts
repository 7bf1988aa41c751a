import { BACKENDS } from '../support/backends';
import { BAD_CREDENTIALS, FORBIDDEN, OK_NO_DATA } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

/**
 * User names that change: ADMIN_USERNAME names the first-start account, and /sys/user/update takes
 * `username` (unique like every identifier, normalised as at create, only with every code of the
 * target). The login log keeps the name each attempt used; live sessions carry the new name.
 */
describe.each(BACKENDS)('user names on $name', (backend) => {
  describe('ADMIN_USERNAME', () => {
    it('names the account the first start creates; `admin` is then nobody', async () => {
      const app = await startApp(backend, { env: { ADMIN_USERNAME: 'root_ops' } });
      try {
        const token = await app.token('root_ops', ADMIN_PASSWORD);
        const me = await app.post('/sys/me/info', {}, { token });
        expect(me.body.data).toMatchObject({ username: 'root_ops', permissions: ['*'] });
        expect((await app.login('admin', ADMIN_PASSWORD)).body).toEqual(BAD_CREDENTIALS);
      } finally {
        await app.close();
      }
    });
  });

  describe('/sys/user/update with username', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend);
    });
    afterAll(() => app.close());

    const rename = (id: string, username: string, token?: string) =>
      token
        ? app.post('/sys/user/update', { id, username }, { token })
        : app.admin('/sys/user/update', { id, username });
    const fieldErrors = (body: any) => body.data?.errors?.map((e: { field: string }) => e.field);

    it('renames: the new name logs in, the old one no longer; the log keeps the name used then; audited old → new', async () => {
      const user = await createUser(app);
      expect((await app.login(user.username, 'Wrong#pass1')).body).toEqual(BAD_CREDENTIALS);
      const newName = `${user.username}_new`;

      expect((await rename(user.id, newName)).body).toEqual(OK_NO_DATA);

      expect((await app.login(user.username, user.password)).body).toEqual(BAD_CREDENTIALS);
      expect((await app.login(newName, user.password)).body.success).toBe(true);
      const accounts = (
        await app.db.query('SELECT account FROM sys_login_log WHERE user_id = ? ORDER BY id', [user.id])
      ).map((r: { account: string }) => r.account);
      expect(accounts).toEqual([user.username, newName]);
      const list = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 5, keyword: newName });
      expect(list.body.data.rows.map((r: { username: string }) => r.username)).toEqual([newName]);
      const audit = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 1, action: 'user.update' });
      expect(audit.body.data.rows[0]).toMatchObject({
        target: user.id,
        targetName: newName,
        detail: { username: user.username, old: { username: user.username }, new: { username: newName } },
      });
    });

    it("the user's live sessions stay and carry the new name: /sys/me/info, and the audit rows of what they do next", async () => {
      await createRole(app, 'exporter_r', ['sys:auditLog:export']);
      const user = await createUser(app, { roles: ['exporter_r'] });
      const token = await app.token(user.username, user.password);
      const newName = `r_${user.username}`;
      expect((await rename(user.id, newName)).body).toEqual(OK_NO_DATA);

      expect((await app.post('/sys/me/info', {}, { token })).body.data).toMatchObject({
        id: user.id,
        username: newName,
      });
      const exported = await app.app.inject({
        method: 'POST',
        url: '/sys/auditLog/export',
        headers: { 'content-type': 'application/json', 'admin-token': token },
        payload: '{}',
      });
      expect(exported.statusCode).toBe(200);
      const [row] = await app.db.query(
        "SELECT username FROM sys_audit_log WHERE action = 'auditLog.export' AND user_id = ? ORDER BY id DESC",
        [user.id],
      );
      expect(row.username).toBe(newName);
    });

    it("refuses a name another user holds as user name, mobile or e-mail, in any case; one's own in another case is fine", async () => {
      const user = await createUser(app);
      const other = await createUser(app);
      for (const taken of [other.username.toUpperCase(), other.mobile, 'ADMIN']) {
        const res = await rename(user.id, taken);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(fieldErrors(res.body)).toEqual(['username']);
      }
      expect((await rename(user.id, user.username.toUpperCase())).body).toEqual(OK_NO_DATA);
      expect((await app.userRow(user.id)).username).toBe(user.username.toUpperCase());
      expect((await app.login(user.username, user.password)).body.success).toBe(true);
    });

    it('normalises as at create (full-width letters are the ASCII ones) and refuses what create refuses', async () => {
      const user = await createUser(app);
      expect((await rename(user.id, 'ｗｉｄｅ_ｎａｍｅ')).body).toEqual(OK_NO_DATA);
      expect((await app.userRow(user.id)).username).toBe('wide_name');
      for (const bad of ['a', 'has space', 'zero\u200bwidth', 'x'.repeat(65), '']) {
        const res = await rename(user.id, bad);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(fieldErrors(res.body)).toEqual(['username']);
      }
      expect((await app.userRow(user.id)).username).toBe('wide_name');
    });

    it('frees the old name, and of two renames to one name at once exactly one wins', async () => {
      const [a, b, c] = [await createUser(app), await createUser(app), await createUser(app)];
      const freed = a.username;
      expect((await rename(a.id, `${freed}_moved`)).body).toEqual(OK_NO_DATA);
      expect((await rename(c.id, freed)).body).toEqual(OK_NO_DATA);

      const wanted = `both_${b.username}`;
      const results = await Promise.all([rename(b.id, wanted), rename(c.id, wanted)]);
      expect(results.map((r) => r.body.code).sort()).toEqual(['OK', 'VALIDATION_FAILED']);
      expect(results.every((r) => r.status !== 500)).toBe(true);
    });

    it('needs every code of the target: FORBIDDEN otherwise, and nothing changes', async () => {
      await createRole(app, 'editor_u', ['sys:user:update', 'sys:user:list']);
      await createRole(app, 'higher_u', ['sys:role:save']);
      const editor = await createUser(app, { roles: ['editor_u'] });
      const target = await createUser(app, { roles: ['higher_u'] });
      const token = await app.token(editor.username, editor.password);
      expect((await rename(target.id, 'taken_over', token)).body).toEqual(FORBIDDEN);
      expect((await app.userRow(target.id)).username).toBe(target.username);
      const peer = await createUser(app);
      expect((await rename(peer.id, `${peer.username}_2`, token)).body).toEqual(OK_NO_DATA);
    });
  });
});
