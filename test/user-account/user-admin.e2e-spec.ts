import { BACKENDS } from '../support/backends';
import { BAD_CREDENTIALS, FORBIDDEN, NOT_LOGGED_IN, OK_NO_DATA } from '../support/envelopes';
import { createActiveUser, createRole, createUser, TestUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { ADMIN_PASSWORD, permsKey, startApp, TestApp } from '../support/test-app';

const NOT_FOUND = { success: false, code: 'NOT_FOUND', message: '资源不存在', data: null };
let seq = 0;
const freshMobile = () => `135${String(Date.now() % 1e5).padStart(5, '0')}${String(++seq % 1000).padStart(3, '0')}`;

/**
 * Editing, deleting, filtering and bulk-changing users, deleting roles and
 * listing permission codes, with the refusals (nobody acts above their codes; not
 * oneself, never the last usable holder of `*`). Bad input changes nothing.
 */
describe.each(BACKENDS)('user and role administration on $name', (backend) => {
  let app: TestApp;
  let adminId: string;

  beforeAll(async () => {
    app = await startApp(backend);
    adminId = (await app.admin('/sys/me/info')).body.data.id;
    await createRole(app, 'viewer', ['sys:user:list']);
    await createRole(app, 'logreader', ['sys:loginLog:list']);
    await createRole(app, 'editor', [
      'sys:user:list',
      'sys:user:update',
      'sys:user:delete',
      'sys:user:lock',
      'sys:user:unlock',
      'sys:role:delete',
      'sys:role:list',
    ]);
  });
  afterAll(() => app.close());

  const audits = (action: string, target: string) =>
    app.db.query('SELECT * FROM sys_audit_log WHERE action = ? AND target = ? ORDER BY id', [action, target]);
  const listed = async (body: Record<string, unknown>) =>
    (await app.admin('/sys/user/list', { pageNum: 1, pageSize: 200, ...body })).body.data;

  describe('/sys/user/update', () => {
    it('changes name, mobile and e-mail, live sessions and logins follow, audited old → new per field', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      const mobile = freshMobile();
      const res = await app.admin('/sys/user/update', {
        id: user.id,
        name: '李四',
        mobile,
        email: `new_${user.email}`,
      });
      expect(res.body).toEqual(OK_NO_DATA);

      const row = await app.userRow(user.id);
      expect(row).toMatchObject({ name: '李四', mobile, email: `new_${user.email}` });
      // The live session answers the new profile at once (no SQL behind /sys/me/info).
      expect((await app.post('/sys/me/info', {}, { token })).body.data).toMatchObject({
        name: '李四',
        mobile,
        email: `new_${user.email}`,
      });
      // The new mobile logs in; the old one is nobody's any more.
      expect((await app.login(mobile, user.password)).body.success).toBe(true);
      expect((await app.login(user.mobile, user.password)).body).toEqual(BAD_CREDENTIALS);

      const [audit] = await audits('user.update', user.id);
      // The detail column, which is not encrypted at rest, keeps mobiles and e-mails masked
      // (docs/security.md#personal-data).
      const mask = (m: string) => `${m.slice(0, 3)}****${m.slice(-4)}`;
      expect(JSON.parse(audit.detail)).toEqual({
        username: user.username,
        old: { name: expect.any(String), mobile: mask(user.mobile), email: `${user.email[0]}***@example.com` },
        new: { name: '李四', mobile: mask(mobile), email: 'n***@example.com' },
      });
      expect(audit.target_name).toBe(user.username);
    });

    it('null clears the mobile; an unchanged value is no change and writes no audit row', async () => {
      const user = await createUser(app);
      expect((await app.admin('/sys/user/update', { id: user.id, mobile: null })).body).toEqual(OK_NO_DATA);
      expect((await app.userRow(user.id)).mobile).toBeNull();
      expect((await app.login(user.mobile, user.password)).body).toEqual(BAD_CREDENTIALS);
      const before = (await audits('user.update', user.id)).length;
      expect((await app.admin('/sys/user/update', { id: user.id, email: user.email })).body).toEqual(OK_NO_DATA);
      expect(await audits('user.update', user.id)).toHaveLength(before);
    });

    it.each([
      ['mobile', { mobile: '12345' }, '手机号应为11位中国大陆手机号'],
      ['mobile', { mobile: '+8613800138000' }, '手机号应为11位中国大陆手机号'],
      ['email', { email: 'not-an-email' }, '邮箱不是有效的邮箱地址'],
      ['name', { name: '' }, '请填写姓名'],
      ['roles', { roles: 'admin' }, '角色应为列表'],
      ['nickname', { nickname: 'x' }, '不接受的参数: nickname'],
    ])(
      'refuses a bad %s with VALIDATION_FAILED naming it (in Chinese), and changes nothing',
      async (field, body, zh) => {
        const user = await createUser(app);
        const before = await app.userRow(user.id);
        const res = await app.admin('/sys/user/update', { id: user.id, ...body });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', data: namesFields(field) });
        expect(res.body.message.startsWith(zh)).toBe(true);
        expect(res.body.data.errors[0].message.startsWith(zh)).toBe(true);
        expect(await app.userRow(user.id)).toEqual(before);
        expect(await audits('user.update', user.id)).toHaveLength(0);
      },
    );

    it('words the mobile and e-mail rules in English for Accept-Language: en, also on create', async () => {
      const user = await createUser(app);
      const res = await app.post(
        '/sys/user/update',
        { id: user.id, mobile: '12345' },
        { token: await app.adminToken(), headers: { 'accept-language': 'en' } },
      );
      expect(res.body.message).toMatch(/^Mobile: not a mobile number/);
      const created = await app.admin('/sys/user/create', {
        username: `m_${Date.now()}`,
        name: 'x',
        mobile: '12345',
        email: 'nope',
      });
      expect(created.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('mobile', 'email') });
      expect(created.body.data.errors[0].message).toMatch(/^手机号应为11位中国大陆手机号/);
    });

    it('refuses an identifier another user holds in any field, also under parallel updates (never 500)', async () => {
      const [a, b, c] = [await createUser(app), await createUser(app), await createUser(app)];
      const taken = await app.admin('/sys/user/update', { id: a.id, email: b.email.toUpperCase() });
      expect(taken.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('email') });
      expect((await app.admin('/sys/user/update', { id: a.id, mobile: b.mobile })).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: namesFields('mobile'),
      });
      expect((await app.userRow(a.id)).email).toBe(a.email);

      const mobile = freshMobile();
      const results = await Promise.all([b, c].map((u) => app.admin('/sys/user/update', { id: u.id, mobile })));
      expect(results.map((r) => r.body.code).sort()).toEqual(['OK', 'VALIDATION_FAILED']);
      expect(results.every((r) => r.status < 500)).toBe(true);
      const holders = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: mobile });
      expect(holders.body.data.total).toBe(1);
    });

    it('replaces the roles; the live session gets the new permission codes at once', async () => {
      const user = await createUser(app, { roles: ['viewer'] });
      const token = await app.token(user.username, user.password);
      expect((await app.post('/sys/loginLog/list', { pageNum: 1, pageSize: 1 }, { token })).body).toEqual(FORBIDDEN);

      expect((await app.admin('/sys/user/update', { id: user.id, roles: ['logreader'] })).body).toEqual(OK_NO_DATA);
      expect(JSON.parse((await app.store.get(permsKey(token)))!)).toEqual(['sys:loginLog:list']);
      expect((await app.post('/sys/loginLog/list', { pageNum: 1, pageSize: 1 }, { token })).body.success).toBe(true);
      expect((await app.post('/sys/user/list', { pageNum: 1, pageSize: 1 }, { token })).body).toEqual(FORBIDDEN);
      const [audit] = await audits('user.update', user.id);
      expect(JSON.parse(audit.detail)).toEqual({
        username: user.username,
        old: { roles: ['viewer'] },
        new: { roles: ['logreader'] },
      });

      const unknown = await app.admin('/sys/user/update', { id: user.id, roles: ['nope'] });
      expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('roles') });
    });

    it('needs sys:user:update; an editor gives no role beyond its codes and edits no account above them', async () => {
      const plain = await createUser(app, { roles: ['viewer'] });
      const plainToken = await app.token(plain.username, plain.password);
      const target = await createUser(app);
      expect((await app.post('/sys/user/update', { id: target.id, name: 'x' }, { token: plainToken })).body).toEqual(
        FORBIDDEN,
      );

      const editor = await createUser(app, { roles: ['editor'] });
      const token = await app.token(editor.username, editor.password);
      expect((await app.post('/sys/user/update', { id: target.id, name: 'Edited' }, { token })).body).toEqual(
        OK_NO_DATA,
      );
      // logreader gives sys:loginLog:list, which the editor does not hold.
      expect((await app.post('/sys/user/update', { id: target.id, roles: ['logreader'] }, { token })).body).toEqual(
        FORBIDDEN,
      );
      expect((await app.post('/sys/user/update', { id: adminId, email: 'evil@example.com' }, { token })).body).toEqual(
        FORBIDDEN,
      );
      expect((await app.userRow(target.id)).name).toBe('Edited');
      expect((await app.userRow(adminId)).email).toBeNull();
      expect((await app.post('/sys/user/update', { id: 'no-such-user', name: 'x' }, { token })).body).toEqual(
        NOT_FOUND,
      );
    });

    it('refuses taking the role admin from the last usable holder of *', async () => {
      const res = await app.admin('/sys/user/update', { id: adminId, roles: [] });
      expect(res.body).toEqual(FORBIDDEN);
      expect((await app.admin('/sys/me/info')).body.data.permissions).toEqual(['*']);
    });
  });

  describe('/sys/user/delete', () => {
    it('ends sessions, hides the user, answers its login as for an unknown account, keeps identifiers and log rows', async () => {
      const user = await createUser(app);
      const token = await app.token(user.username, user.password);
      await app.login(user.username, 'Wrong#pass1');
      const logsBefore = (await app.logRows(user.username)).length;

      const res = await app.admin('/sys/user/delete', { id: user.id });
      expect(res.body).toEqual(OK_NO_DATA);
      expect((await app.post('/sys/me/info', {}, { token })).body).toEqual(NOT_LOGGED_IN);
      expect((await app.userRow(user.id)).delete_time).not.toBeNull();

      // As for an account that never existed: the same answer, logged without a user id.
      const login = await app.login(user.username, user.password);
      expect(login.body).toEqual(BAD_CREDENTIALS);
      const unknown = await app.login(`nobody_${Date.now()}`, user.password);
      expect(unknown.body).toEqual(BAD_CREDENTIALS);
      const rows = await app.logRows(user.username);
      expect(rows).toHaveLength(logsBefore + 1);
      expect(rows.at(-1)).toMatchObject({ status: 'passwrong', user_id: null });

      const list = await listed({ keyword: user.username });
      expect(list.total).toBe(0);
      // Identifiers stay taken.
      const again = await app.admin('/sys/user/create', { username: user.username, name: 'x', mobile: user.mobile });
      expect(again.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('username', 'mobile') });
      // Every other path answers as for an unknown id.
      for (const op of ['lock', 'unlock', 'disable', 'enable', 'resetPass', 'delete', 'update', 'mfa/reset']) {
        expect((await app.admin(`/sys/user/${op}`, { id: user.id })).body).toEqual(NOT_FOUND);
      }
      const [audit] = await audits('user.delete', user.id);
      expect(audit).toMatchObject({ user_id: adminId, target_name: user.username });
    });

    it('refuses deleting oneself and, without the codes, a holder of *; needs sys:user:delete', async () => {
      expect((await app.admin('/sys/user/delete', { id: adminId })).body).toEqual(FORBIDDEN);
      const editor = await createUser(app, { roles: ['editor'] });
      const token = await app.token(editor.username, editor.password);
      expect((await app.post('/sys/user/delete', { id: adminId }, { token })).body).toEqual(FORBIDDEN);
      expect((await app.post('/sys/user/delete', { id: editor.id }, { token })).body).toEqual(FORBIDDEN);
      const viewer = await createUser(app, { roles: ['viewer'] });
      const viewerToken = await app.token(viewer.username, viewer.password);
      expect((await app.post('/sys/user/delete', { id: editor.id }, { token: viewerToken })).body).toEqual(FORBIDDEN);
      expect((await app.userRow(adminId)).delete_time).toBeNull();
      expect((await app.userRow(editor.id)).delete_time).toBeNull();
      expect((await app.admin('/sys/user/delete', {})).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: namesFields('id'),
      });
    });

    it('a deleted holder of * no longer counts as one: the last usable one stays protected', async () => {
      const second = await createUser(app, { roles: ['admin'] });
      expect((await app.admin('/sys/user/delete', { id: second.id })).body).toEqual(OK_NO_DATA);
      expect((await app.admin('/sys/user/update', { id: adminId, roles: [] })).body).toEqual(FORBIDDEN);
    });
  });

  describe('/sys/user/list', () => {
    it('filters by state, counts the failures the lock check counts now, shows the last login', async () => {
      // Expired passwords only tipped: the admin logs in again after the clock moves past expiry.
      await app.saveLoginStrategy({
        maxFailureTimes: 5,
        maxFailureInterval: 24,
        lockMinutes: 60,
        loginStrategyWhenExpire: 1,
      });
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const initial = await createUser(app);
      const active = await createActiveUser(app);
      const locked = await createActiveUser(app);
      const disabled = await createActiveUser(app);
      await app.admin('/sys/user/lock', { id: locked.id });
      await app.admin('/sys/user/disable', { id: disabled.id });
      for (let i = 0; i < 2; i++) await app.login(active.username, 'Wrong#pass1');

      const names = async (state: string) => (await listed({ state })).rows.map((r: any) => r.username);
      expect(await names('initial')).toEqual(expect.arrayContaining([initial.username]));
      expect(await names('initial')).not.toContain(active.username);
      expect(await names('locked')).toEqual([locked.username]);
      expect(await names('disabled')).toEqual([disabled.username]);
      const normal = await names('normal');
      expect(normal).toContain(active.username);
      expect(normal).not.toEqual(expect.arrayContaining([initial.username]));
      expect(normal).not.toContain(locked.username);
      expect(normal).not.toContain(disabled.username);
      expect(await names('expired')).not.toContain(active.username);

      const row = (await listed({ keyword: active.username })).rows[0];
      expect(row).toMatchObject({ failureCount: 2 });
      expect((await listed({ keyword: initial.username })).rows[0]).toMatchObject({
        failureCount: 0,
        lastLoginTime: null,
      });
      // createActiveUser logged in (to change the password): the last successful login, at the service clock.
      expect(Math.abs(new Date(row.lastLoginTime).getTime() - app.clock.now().getTime())).toBeLessThan(60_000);

      // A lock whose time has passed no longer counts as locked; failures past the window no longer count.
      app.clock.advanceMinutes(61);
      expect(await names('locked')).toEqual([]);
      app.clock.advanceDays(2);
      expect((await listed({ keyword: active.username })).rows[0].failureCount).toBe(0);
      // Past passwordExpireDays every password here has expired.
      app.clock.advanceDays(91);
      expect(await names('expired')).toEqual(expect.arrayContaining([active.username, initial.username]));
      expect(await names('normal')).not.toContain(active.username);
      app.clock.advanceDays(-93);
      app.clock.advanceMinutes(-61);
      await app.saveUserStrategy({ passwordExpireDays: 0 });
      expect(await names('expired')).toEqual([]);

      const bad = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, state: 'sleeping' });
      expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('state') });
    });

    it('each row carries the states the filter finds it under, and shows the most pressing one', async () => {
      await app.saveLoginStrategy({ lockMinutes: 60 });
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      const initial = await createUser(app);
      const active = await createActiveUser(app);
      const locked = await createActiveUser(app);
      const lockedInitial = await createUser(app);
      const disabled = await createActiveUser(app);
      const disabledLocked = await createActiveUser(app);
      for (const u of [locked, lockedInitial, disabledLocked]) await app.admin('/sys/user/lock', { id: u.id });
      for (const u of [disabled, disabledLocked]) await app.admin('/sys/user/disable', { id: u.id });

      const STATES = ['normal', 'locked', 'disabled', 'expired', 'initial'];
      /** Every user's row, and for each state filter: exactly the rows whose states name it, every row under its state. */
      const consistentRows = async () => {
        const rows: any[] = (await listed({})).rows;
        for (const state of STATES) {
          const found = (await listed({ state })).rows.map((r: any) => r.id).sort();
          expect({ state, found }).toEqual({
            state,
            found: rows
              .filter((r) => r.states.includes(state))
              .map((r) => r.id)
              .sort(),
          });
        }
        for (const r of rows) expect(r.state).toBe(r.states[0]);
        return (u: TestUser) => rows.find((r) => r.id === u.id).states;
      };

      let statesOf = await consistentRows();
      expect(statesOf(initial)).toEqual(['initial']);
      expect(statesOf(active)).toEqual(['normal']);
      expect(statesOf(locked)).toEqual(['locked']);
      expect(statesOf(lockedInitial)).toEqual(['locked', 'initial']);
      expect(statesOf(disabled)).toEqual(['disabled']);
      expect(statesOf(disabledLocked)).toEqual(['locked', 'disabled']);

      // A lock whose unlock time has passed no longer counts: the row and the filter agree.
      app.clock.advanceMinutes(61);
      statesOf = await consistentRows();
      expect(statesOf(locked)).toEqual(['normal']);
      expect(statesOf(lockedInitial)).toEqual(['initial']);
      // The disable cleared its unlock time: that lock holds until an unlock.
      expect(statesOf(disabledLocked)).toEqual(['locked', 'disabled']);

      // Past passwordExpireDays every password has expired, initial ones too.
      app.clock.advanceDays(91);
      statesOf = await consistentRows();
      expect(statesOf(active)).toEqual(['expired']);
      expect(statesOf(initial)).toEqual(['expired', 'initial']);
      expect(statesOf(disabled)).toEqual(['disabled', 'expired']);
      app.clock.advanceDays(-91);
      app.clock.advanceMinutes(-61);
      await app.saveUserStrategy({ passwordExpireDays: 0 });
      expect(statesOf(active)).toEqual(['expired']);
      expect((await consistentRows())(active)).toEqual(['normal']);
    });
  });

  describe('bulk lock / unlock / disable / enable', () => {
    it('changes every user given, ends their sessions and audits each on its own', async () => {
      const users = [await createUser(app), await createUser(app)];
      const tokens = await Promise.all(users.map((u) => app.token(u.username, u.password)));
      const ids = users.map((u) => u.id);
      expect((await app.admin('/sys/user/lock', { ids })).body).toEqual(OK_NO_DATA);
      for (const u of users) expect((await app.userRow(u.id)).locked).toBeTruthy();
      for (const t of tokens) expect((await app.post('/sys/me/info', {}, { token: t })).body).toEqual(NOT_LOGGED_IN);
      for (const u of users) expect(await audits('user.lock', u.id)).toHaveLength(1);
      expect((await app.admin('/sys/user/unlock', { ids })).body).toEqual(OK_NO_DATA);
      expect((await app.admin('/sys/user/disable', { ids })).body).toEqual(OK_NO_DATA);
      for (const u of users) {
        const row = await app.userRow(u.id);
        expect([Boolean(row.locked), Boolean(row.disabled)]).toEqual([false, true]);
      }
      expect((await app.admin('/sys/user/enable', { ids })).body).toEqual(OK_NO_DATA);
      for (const u of users) {
        const row = await app.userRow(u.id);
        expect(Boolean(row.locked) || Boolean(row.disabled)).toBe(false);
        expect(await audits('user.enable', u.id)).toHaveLength(1);
      }
    });

    it('is all or nothing: oneself, an unknown id or a bad list changes nobody', async () => {
      const user = await createUser(app);
      const snapshot = async () => [await app.userRow(user.id), await app.userRow(adminId)];
      const before = await snapshot();
      expect((await app.admin('/sys/user/lock', { ids: [user.id, adminId] })).body).toEqual(FORBIDDEN);
      expect((await app.admin('/sys/user/disable', { ids: [user.id, 'no-such-user'] })).body).toEqual(NOT_FOUND);
      const bad: [unknown, string][] = [
        [{ ids: [] }, 'ids'],
        [{ ids: [user.id, user.id] }, 'ids'],
        [{ ids: Array.from({ length: 101 }, (_, i) => `id${i}`) }, 'ids'],
        [{ ids: [1] }, 'ids'],
        [{ id: user.id, ids: [user.id] }, 'ids'],
        [{}, 'id'],
      ];
      for (const [body, field] of bad) {
        const res = await app.admin('/sys/user/lock', body);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields(field) });
      }
      expect(await snapshot()).toEqual(before);
      expect(await audits('user.lock', user.id)).toHaveLength(0);
    });
  });

  describe('/sys/role/delete and /sys/permission/list', () => {
    it('deletes an unused role (audited), refuses one in use, admin and unknown codes', async () => {
      await createRole(app, 'temp_role', ['sys:user:list']);
      const holder = await createUser(app, { roles: ['temp_role'] });
      const inUse = await app.admin('/sys/role/delete', { code: 'temp_role' });
      expect(inUse.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('code') });
      expect(inUse.body.message).toContain('1');
      const roles = (await app.admin('/sys/role/list')).body.data;
      expect(roles.find((r: any) => r.code === 'temp_role')).toMatchObject({ userCount: 1, users: [holder.username] });

      expect((await app.admin('/sys/user/update', { id: holder.id, roles: [] })).body).toEqual(OK_NO_DATA);
      expect((await app.admin('/sys/role/delete', { code: 'temp_role' })).body).toEqual(OK_NO_DATA);
      expect((await app.admin('/sys/role/list')).body.data.map((r: any) => r.code)).not.toContain('temp_role');
      expect(await audits('role.delete', 'temp_role')).toHaveLength(1);

      expect((await app.admin('/sys/role/delete', { code: 'admin' })).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: namesFields('code'),
      });
      expect((await app.admin('/sys/role/delete', { code: 'temp_role' })).body).toEqual(NOT_FOUND);
      expect((await app.admin('/sys/role/delete', { code: 5 })).body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: namesFields('code'),
      });
    });

    it('a deleted user does not keep a role in use', async () => {
      await createRole(app, 'gone_role', ['sys:user:list']);
      const holder = await createUser(app, { roles: ['gone_role'] });
      await app.admin('/sys/user/delete', { id: holder.id });
      expect((await app.admin('/sys/role/delete', { code: 'gone_role' })).body).toEqual(OK_NO_DATA);
    });

    it("needs sys:role:delete, and the role's codes", async () => {
      await createRole(app, 'wide_role', ['sys:strategy:login:save']);
      const editor = await createUser(app, { roles: ['editor'] });
      const token = await app.token(editor.username, editor.password);
      expect((await app.post('/sys/role/delete', { code: 'wide_role' }, { token })).body).toEqual(FORBIDDEN);
      const viewer = await createUser(app, { roles: ['viewer'] });
      expect(
        (
          await app.post(
            '/sys/role/delete',
            { code: 'wide_role' },
            { token: await app.token(viewer.username, viewer.password) },
          )
        ).body,
      ).toEqual(FORBIDDEN);
      expect((await app.admin('/sys/role/list')).body.data.map((r: any) => r.code)).toContain('wide_role');
    });

    it("lists every permission code with module and name, in the caller's language; needs sys:role:list", async () => {
      const zh = (await app.admin('/sys/permission/list')).body.data;
      expect(zh).toEqual(
        expect.arrayContaining([
          { code: 'sys:user:update', module: 'user', name: '编辑用户' },
          { code: 'sys:role:delete', module: 'role', name: '删除角色' },
        ]),
      );
      const en = await app.post(
        '/sys/permission/list',
        {},
        { token: await app.adminToken(), headers: { 'accept-language': 'en' } },
      );
      expect(en.body.data.find((p: any) => p.code === 'sys:user:delete').name).toBe('Delete users');
      const viewer = await createUser(app, { roles: ['viewer'] });
      expect(
        (await app.post('/sys/permission/list', {}, { token: await app.token(viewer.username, viewer.password) })).body,
      ).toEqual(FORBIDDEN);
      expect((await app.admin('/sys/permission/list', { x: 1 })).body).toMatchObject({ code: 'VALIDATION_FAILED' });
    });
  });

  it('the first-start admin still logs in (nothing above touched it)', async () => {
    expect((await app.login('admin', ADMIN_PASSWORD)).body.success).toBe(true);
  });
});

export type { TestUser };
