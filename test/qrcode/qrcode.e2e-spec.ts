import { BACKENDS, mariadbRedis } from '../support/backends';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

describe.each(BACKENDS)('QR-code login and online sessions on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const generate = async (token: string) => (await app.post('/auth/qrcode/generate', {}, { token })).body;

  it('generate → verify gives a formal token that works; the code is then gone', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const gen = await generate(token);
    expect(gen).toMatchObject({
      success: true,
      data: { code: expect.stringMatching(/^[0-9a-f-]{36}$/), expiresIn: 300 },
    });
    expect(await app.store.get(`AUTH_QRCODE:${gen.data.code}`)).toBe(user.id);
    const ttl = await app.store.ttl(`AUTH_QRCODE:${gen.data.code}`);
    expect(ttl).toBeGreaterThan(290_000);
    expect(ttl).toBeLessThanOrEqual(300_000);

    const verified = await app.post('/auth/qrcode/verify', { code: gen.data.code }, { ip: '10.77.0.1' });
    expect(verified.body).toMatchObject({
      success: true,
      data: { accessToken: expect.any(String), tempUser: false, forceUpdatePassword: false },
    });
    const me = await app.post('/sys/me/info', {}, { token: verified.body.data.accessToken, ip: '10.77.0.1' });
    expect(me.body.data).toMatchObject({ id: user.id, tempUser: false });
    const [log] = (await app.logRows(user.username)).slice(-1);
    expect(log).toMatchObject({ login_type: 'qrcode', status: 'success', ip: '10.77.0.1' });

    const again = await app.post('/auth/qrcode/verify', { code: gen.data.code });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'QRCODE_INVALID', message: '二维码无效或已过期' });
  });

  it('20 concurrent verifies of one code yield exactly one token', async () => {
    const user = await createActiveUser(app);
    const { data } = await generate(await app.token(user.username, user.password));
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.post('/auth/qrcode/verify', { code: data.code })),
    );
    expect(results.filter((r) => r.body.success)).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 'QRCODE_INVALID')).toHaveLength(19);
    expect(results.every((r) => r.status < 500)).toBe(true);
  });

  it('an unknown or malformed code is QRCODE_INVALID / VALIDATION_FAILED, and verify needs no login', async () => {
    expect((await app.post('/auth/qrcode/verify', { code: 'no-such-code' })).body.code).toBe('QRCODE_INVALID');
    expect((await app.post('/auth/qrcode/verify', {})).body.code).toBe('VALIDATION_FAILED');
    expect((await app.post('/auth/qrcode/verify', { code: 42 })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.post('/auth/qrcode/generate', {})).body.code).toBe('NOT_LOGGED_IN');
  });

  if (backend.name === 'sqlite+memory') {
    it('a code expires after 5 minutes (fake clock)', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const { data } = await generate(token);
      const stillValid = (await generate(token)).data;
      // Just inside the 5 minutes a code still works: the refusal below is the lifetime's, not any code's.
      app.clock.advanceMinutes(5);
      app.clock.advance(-1000);
      expect((await app.post('/auth/qrcode/verify', { code: stillValid.code })).body.success).toBe(true);
      app.clock.advance(1000);
      app.clock.advance(1);
      expect((await app.post('/auth/qrcode/verify', { code: data.code })).body.code).toBe('QRCODE_INVALID');
    });
  }

  it('a code dies with its session when an administrator disables or locks the user', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const forDisabled = (await generate(token)).data.code;
    await app.admin('/sys/user/disable', { id: user.id });
    const disabled = await app.post('/auth/qrcode/verify', { code: forDisabled });
    expect(disabled.body).toMatchObject({ code: 'QRCODE_INVALID', message: '二维码无效或已过期' });
    await app.admin('/sys/user/enable', { id: user.id });
    const forLocked = (await generate(await app.token(user.username, user.password))).data.code;
    await app.admin('/sys/user/lock', { id: user.id });
    const locked = await app.post('/auth/qrcode/verify', { code: forLocked });
    expect(locked.body).toMatchObject({ code: 'QRCODE_INVALID', message: '二维码无效或已过期' });
  });

  /** Locks the account the way a stranger can: wrong passwords (its sessions and codes stay). */
  const lockByWrongPasswords = async (username: string) => {
    for (let i = 0; i < 3; i++) await app.login(username, 'Wrong#pass1');
  };

  it('a code of a user locked by wrong passwords since is refused with ACCOUNT_LOCKED, logged qrcode / locked', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const code = (await generate(token)).data.code;
    await app.saveLoginStrategy({ maxFailureTimes: 3 });
    try {
      await lockByWrongPasswords(user.username);
      const locked = await app.post('/auth/qrcode/verify', { code });
      expect(locked.status).toBe(423);
      expect(locked.body).toMatchObject({ code: 'ACCOUNT_LOCKED', message: '用户已被锁定' });
      expect((await app.logRows(user.username)).slice(-1).map((r) => [r.login_type, r.status])).toEqual([
        ['qrcode', 'locked'],
      ]);
    } finally {
      await app.saveLoginStrategy({ maxFailureTimes: 5 });
    }
  });

  it('a lock that has run out ends at QR verify, as at login', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    await app.saveLoginStrategy({ lockMinutes: 1, maxFailureTimes: 3 });
    try {
      const code = (await generate(token)).data.code;
      await lockByWrongPasswords(user.username);
      expect(Boolean((await app.userRow(user.id)).locked)).toBe(true);
      app.clock.advanceMinutes(2); // past the lock, within the code's 5 minutes and the session's 30
      const res = await app.post('/auth/qrcode/verify', { code });
      expect(res.body.success).toBe(true);
      expect(await app.userRow(user.id)).toMatchObject({ unlock_time: null });
      expect(Boolean((await app.userRow(user.id)).locked)).toBe(false);
    } finally {
      await app.saveLoginStrategy({ lockMinutes: 1440, maxFailureTimes: 5 });
    }
  });

  it('a temporary token cannot generate codes', async () => {
    await app.saveUserStrategy({ forceUpdatePassword: true });
    try {
      const user = await createUser(app);
      const login = await app.login(user.username, user.password);
      expect(login.body.data!.tempUser).toBe(true);
      const res = await app.post('/auth/qrcode/generate', {}, { token: login.body.data!.accessToken });
      expect(res.body.code).toBe('TEMP_TOKEN_FORBIDDEN');
    } finally {
      await app.saveUserStrategy({ forceUpdatePassword: false });
    }
  });

  it("with multiOnline = false the QR login kicks out the user's other sessions", async () => {
    const user = await createActiveUser(app);
    const first = await app.token(user.username, user.password);
    await app.saveLoginStrategy({ multiOnline: false });
    try {
      const { data } = await generate(first);
      const qr = await app.post('/auth/qrcode/verify', { code: data.code });
      expect(qr.body.success).toBe(true);
      expect((await app.post('/sys/me/info', {}, { token: first })).body.code).toBe('KICKED_OUT');
      expect((await app.post('/sys/me/info', {}, { token: qr.body.data.accessToken })).body.success).toBe(true);
    } finally {
      await app.saveLoginStrategy({ multiOnline: true });
    }
  });

  it('the online list shows a new login at once, without the token; a kicked session answers NOT_LOGGED_IN', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password, { ip: '10.88.0.1' });
    const list = await app.admin('/sys/online/list', { pageNum: 1, pageSize: 200 });
    expect(list.body.success).toBe(true);
    const row = list.body.data.rows.find((r: any) => r.userId === user.id);
    expect(row).toMatchObject({
      username: user.username,
      ip: '10.88.0.1',
      temp: false,
      browser: expect.stringContaining('Chrome'),
      tokenId: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(list.body)).not.toContain(token);

    const kicked = await app.admin('/sys/online/kickout', { tokenId: row.tokenId });
    expect(kicked.body.success).toBe(true);
    const after = await app.post('/sys/me/info', {}, { token, ip: '10.88.0.1' });
    expect(after.body.code).toBe('NOT_LOGGED_IN');
    const again = await app.admin('/sys/online/list', { pageNum: 1, pageSize: 200 });
    expect(again.body.data.rows.some((r: any) => r.tokenId === row.tokenId)).toBe(false);
  });

  it('online list and kickout need their permissions; expired sessions disappear', async () => {
    await createRole(app, 'viewer_only', ['sys:online:list']);
    const viewer = await createActiveUser(app, { roles: ['viewer_only'] });
    const token = await app.token(viewer.username, viewer.password);
    expect((await app.post('/sys/online/list', {}, { token })).body.success).toBe(true);
    const kick = await app.post('/sys/online/kickout', { tokenId: 'a'.repeat(64) }, { token });
    expect(kick.body.code).toBe('FORBIDDEN');

    app.clock.advanceMinutes(31);
    const list = await app.admin('/sys/online/list', { pageNum: 1, pageSize: 200 });
    expect(list.body.data.rows.some((r: any) => r.userId === viewer.id)).toBe(false);
  });

  it("a user lists and ends their own other sessions, and cannot end someone else's", async () => {
    const user = await createActiveUser(app);
    const other = await createActiveUser(app);
    const phone = await app.token(user.username, user.password, { ip: '10.90.0.1' });
    const laptop = await app.token(user.username, user.password, { ip: '10.90.0.2' });
    const otherToken = await app.token(other.username, other.password);
    const mine = await app.post('/sys/me/sessions', {}, { token: laptop, ip: '10.90.0.2' });
    expect(mine.body.data.total).toBe(2);
    const phoneRow = mine.body.data.rows.find((r: any) => !r.current);
    expect(phoneRow.ip).toBe('10.90.0.1');
    const otherRow = (await app.post('/sys/me/sessions', {}, { token: otherToken })).body.data.rows[0];
    expect(
      (await app.post('/sys/me/sessions/kickout', { tokenId: otherRow.tokenId }, { token: laptop, ip: '10.90.0.2' }))
        .body.code,
    ).toBe('NOT_FOUND');
    expect(
      (await app.post('/sys/me/sessions/kickout', { tokenId: phoneRow.tokenId }, { token: laptop, ip: '10.90.0.2' }))
        .body.success,
    ).toBe(true);
    expect((await app.post('/sys/me/info', {}, { token: phone, ip: '10.90.0.1' })).body.code).toBe('NOT_LOGGED_IN');
    expect((await app.post('/sys/me/info', {}, { token: otherToken })).body.success).toBe(true);
  });
});

describe('QR code across two instances on one MariaDB + Redis', () => {
  it('a code generated on A is verified on B, once', async () => {
    const shared = await mariadbRedis.provision();
    const a = await startApp(mariadbRedis, { provisioned: shared });
    const b = await startApp(mariadbRedis, { provisioned: shared });
    try {
      const user = await createActiveUser(a);
      const { data } = (
        await a.post('/auth/qrcode/generate', {}, { token: await a.token(user.username, user.password) })
      ).body;
      const onB = await b.post('/auth/qrcode/verify', { code: data.code });
      expect(onB.body.success).toBe(true);
      expect((await a.post('/sys/me/info', {}, { token: onB.body.data.accessToken })).body.data.id).toBe(user.id);
      expect((await a.post('/auth/qrcode/verify', { code: data.code })).body.code).toBe('QRCODE_INVALID');
    } finally {
      await b.close();
      await a.close();
      await shared.dispose();
    }
  });
});
