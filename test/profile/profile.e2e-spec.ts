import { PiiCipher } from '../../src/pii/pii-cipher';
import { SessionService } from '../../src/session/session.service';
import { UserAdminService } from '../../src/user-account/user-admin.service';
import { BACKENDS } from '../support/backends';
import { createActiveUser, TestUser } from '../support/factories';
import { SmtpSink } from '../support/smtp-sink';
import { startApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

describe.each(BACKENDS)('own profile on $name', (backend) => {
  let app: TestApp;
  let sms: WebhookSink;
  let smtp: SmtpSink;

  beforeAll(async () => {
    sms = await new WebhookSink().start();
    smtp = await new SmtpSink().start();
    app = await startApp(backend, { env: { SMS_WEBHOOK_URL: sms.url, SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await app?.close();
    await sms.stop();
    await smtp.stop();
  });

  const smsCode = async (mobile: string, nth = 1): Promise<string> => {
    const message = await waitFor(() => sms.accepted.filter((m) => m.to === mobile)[nth - 1], `text to ${mobile}`);
    return /验证码是(\d{6})/.exec(message.text)![1];
  };
  const mailCode = async (address: string, nth = 1): Promise<string> => {
    const mail = await waitFor(() => smtp.to(address)[nth - 1], `mail to ${address}`);
    return /验证码是(\d{6})/.exec(mail.text)![1];
  };
  const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const freshMobile = () => `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  /** A user and a session that has just proven its password (a password login is a fresh proof). */
  const loggedIn = async (): Promise<{ user: TestUser; token: string }> => {
    const user = await createActiveUser(app);
    return { user, token: await app.token(user.username, user.password) };
  };
  const me = async (token: string) => (await app.post('/sys/me/info', {}, { token })).body.data;

  it('saves a new name at once, in the session too, and audits it', async () => {
    const { user, token } = await loggedIn();
    const res = await app.post('/sys/me/profile/update', { name: '张小三' }, { token });
    expect(res.body).toMatchObject({ code: 'OK', data: { pending: [] } });
    expect((await me(token)).name).toBe('张小三');
    const audit = await app.admin('/sys/auditLog/list', { action: 'me.profile.update', pageSize: 50 });
    const row = audit.body.data.rows.find((r: { target: string }) => r.target === user.id);
    expect(row).toMatchObject({ userId: user.id, targetName: user.username, detail: { new: { name: '张小三' } } });
  });

  it("/sys/me/info opens a session's sealed mobile and e-mail once, not at every poll, and again once they change", async () => {
    const { user, token } = await loggedIn();
    const opened = jest.spyOn(app.app.get(PiiCipher), 'open');
    try {
      for (let i = 0; i < 5; i++) expect(await me(token)).toMatchObject({ mobile: user.mobile, email: user.email });
      expect(opened).toHaveBeenCalledTimes(2);
      // A change rewrites the profile in the session: the next poll opens the new one.
      await app.post('/sys/me/profile/update', { name: '李小四' }, { token });
      opened.mockClear();
      for (let i = 0; i < 3; i++)
        expect(await me(token)).toMatchObject({ name: '李小四', mobile: user.mobile, email: user.email });
      expect(opened).toHaveBeenCalledTimes(2);
    } finally {
      opened.mockRestore();
    }
  });

  it("an own change leaves the session's mobile and e-mail sealed, as a login stores them", async () => {
    const { user, token } = await loggedIn();
    const sealed = (await app.sessionOf(token)).profile;
    expect(sealed.mobile).not.toContain(user.mobile);
    await app.post('/sys/me/profile/update', { name: '王小五' }, { token });
    const after = (await app.sessionOf(token)).profile;
    expect(after.name).toBe('王小五');
    expect(JSON.stringify(after)).not.toContain(user.mobile);
    expect(JSON.stringify(after)).not.toContain(user.email);
    expect(app.app.get(PiiCipher).reveal(after.mobile)).toBe(user.mobile);
    expect(app.app.get(PiiCipher).reveal(after.email)).toBe(user.email);
  });

  it("an own change and an administrator's update at the same time leave the sessions as the row ends up", async () => {
    const { user, token } = await loggedIn();
    const mobile = freshMobile();
    const sessions = app.app.get(SessionService);
    const copy = sessions.updateProfile.bind(sessions);
    let update: Promise<unknown> | undefined;
    // The own change has written and read its row; before it copies the row into the sessions, the
    // administrator's update runs (or, should it have to wait for the own change, a second passes).
    const held = jest.spyOn(sessions, 'updateProfile').mockImplementationOnce(async (...args) => {
      update = app.admin('/sys/user/update', { id: user.id, mobile });
      await Promise.race([update, sleep(1000)]);
      return copy(...args);
    });
    try {
      expect((await app.post('/sys/me/profile/update', { name: '赵小六' }, { token })).body.code).toBe('OK');
      expect((await update) as { body: { code: string } }).toMatchObject({ body: { code: 'OK' } });
    } finally {
      held.mockRestore();
    }
    expect(await me(token)).toMatchObject({ name: '赵小六', mobile });
  });

  it("an administrator's rename while an own new mobile is confirmed stays: the new name logs in, the old one does not", async () => {
    const { user, token } = await loggedIn();
    const mobile = freshMobile();
    expect((await app.post('/sys/me/profile/update', { mobile }, { token })).body.code).toBe('OK');
    const code = await smsCode(mobile);
    const renamed = `${user.username}_new`;
    const admin = app.app.get(UserAdminService) as unknown as { assertUnique: (...args: unknown[]) => Promise<void> };
    const check = admin.assertUnique.bind(admin);
    let update: Promise<unknown> | undefined;
    // The own change has read the row it writes from; the administrator's rename runs before it writes
    // (or, should the rename have to wait for the own change, a second passes).
    const held = jest.spyOn(admin, 'assertUnique').mockImplementationOnce(async (...args) => {
      update = app.admin('/sys/user/update', { id: user.id, username: renamed });
      await Promise.race([update, sleep(1000)]);
      return check(...args);
    });
    try {
      expect((await app.post('/sys/me/profile/confirm', { channel: 'sms', code }, { token })).body.code).toBe('OK');
      expect((await update) as { body: { code: string } }).toMatchObject({ body: { code: 'OK' } });
    } finally {
      held.mockRestore();
    }
    expect((await app.login(renamed, user.password)).body.code).toBe('OK');
    expect((await app.login(mobile, user.password)).body.code).toBe('OK');
    expect((await app.login(user.username, user.password)).body.code).toBe('BAD_CREDENTIALS');
  });

  it('a new mobile replaces the old one only once the code sent to it comes back', async () => {
    const { user, token } = await loggedIn();
    const mobile = freshMobile();
    const res = await app.post('/sys/me/profile/update', { mobile }, { token });
    expect(res.body).toMatchObject({
      code: 'OK',
      data: { pending: [{ channel: 'sms', sentTo: `${mobile.slice(0, 3)}****${mobile.slice(-4)}` }] },
    });
    // Until confirmed, the old mobile is the account's: the new one logs nobody in.
    expect((await me(token)).mobile).toBe(user.mobile);
    expect((await app.login(mobile, user.password)).body.code).toBe('BAD_CREDENTIALS');
    const code = await smsCode(mobile);
    expect(JSON.stringify(res.body)).not.toContain(code);

    const wrong = await app.post('/sys/me/profile/confirm', { channel: 'sms', code: wrongCode(code) }, { token });
    expect(wrong.body.code).toBe('MFA_CODE_INVALID');
    expect((await me(token)).mobile).toBe(user.mobile);

    const confirmed = await app.post('/sys/me/profile/confirm', { channel: 'sms', code }, { token });
    expect(confirmed.body).toMatchObject({ code: 'OK', data: { mobile } });
    expect((await me(token)).mobile).toBe(mobile);
    expect((await app.login(mobile, user.password)).body.code).toBe('OK');
    expect((await app.login(user.mobile, user.password)).body.code).toBe('BAD_CREDENTIALS');
    // Audited with both numbers masked in the detail column, whole to the administrator (a holder of sys:user:pii).
    const [stored] = await app.db.query(
      "SELECT detail FROM sys_audit_log WHERE action = 'me.profile.update' AND target = ?",
      [user.id],
    );
    expect(JSON.parse(stored.detail)).toEqual({
      username: user.username,
      old: { mobile: `${user.mobile.slice(0, 3)}****${user.mobile.slice(-4)}` },
      new: { mobile: `${mobile.slice(0, 3)}****${mobile.slice(-4)}` },
    });
    const audit = await app.admin('/sys/auditLog/list', { action: 'me.profile.update', pageSize: 50 });
    const row = audit.body.data.rows.find((r: { target: string }) => r.target === user.id);
    expect(row.detail).toEqual({ username: user.username, old: { mobile: user.mobile }, new: { mobile } });
    // Single use.
    expect((await app.post('/sys/me/profile/confirm', { channel: 'sms', code }, { token })).body.code).toBe(
      'MFA_CODE_INVALID',
    );
  });

  it('a new e-mail is confirmed by mail; a code of one channel does not confirm the other', async () => {
    const { user, token } = await loggedIn();
    const email = `new_${user.username}@example.org`;
    const res = await app.post('/sys/me/profile/update', { email }, { token });
    expect(res.body.data.pending).toEqual([{ channel: 'email', sentTo: 'n***@example.org' }]);
    const code = await mailCode(email);
    expect((await app.post('/sys/me/profile/confirm', { channel: 'sms', code }, { token })).body.code).toBe(
      'MFA_CODE_INVALID',
    );
    expect((await app.post('/sys/me/profile/confirm', { channel: 'email', code }, { token })).body.code).toBe('OK');
    expect((await me(token)).email).toBe(email);
  });

  it("another user's mobile or e-mail is refused before anything is sent or saved", async () => {
    const { user, token } = await loggedIn();
    const other = await createActiveUser(app);
    const before = sms.requests.length;
    for (const body of [{ mobile: other.mobile, name: 'Not saved' }, { email: other.email.toUpperCase() }]) {
      const res = await app.post('/sys/me/profile/update', body, { token });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect((await me(token)).name).not.toBe('Not saved');
    expect(sms.requests.length).toBe(before);
    expect((await me(token)).mobile).toBe(user.mobile);
  });

  it('a value taken while its code was on the way is refused at the confirmation', async () => {
    const { token } = await loggedIn();
    const mobile = freshMobile();
    await app.post('/sys/me/profile/update', { mobile }, { token });
    const code = await smsCode(mobile);
    const other = await createActiveUser(app);
    expect((await app.admin('/sys/user/update', { id: other.id, mobile })).body.code).toBe('OK');
    const res = await app.post('/sys/me/profile/confirm', { channel: 'sms', code }, { token });
    expect(res.body.code).toBe('VALIDATION_FAILED');
  });

  it('needs a fresh proof: REAUTH_REQUIRED once the login is older than reauthMinutes', async () => {
    const { user, token } = await loggedIn();
    app.clock.advance(6 * 60_000);
    const res = await app.post('/sys/me/profile/update', { name: 'Later' }, { token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('REAUTH_REQUIRED');
    await app.post('/sys/me/reauth', { password: await app.encrypt(user.password) }, { token });
    expect((await app.post('/sys/me/profile/update', { name: 'Later' }, { token })).body.code).toBe('OK');
  });

  it('bad input answers VALIDATION_FAILED and changes nothing', async () => {
    const { token } = await loggedIn();
    for (const body of [{ mobile: '12345' }, { email: 'not-mail' }, { name: '' }]) {
      expect((await app.post('/sys/me/profile/update', body, { token })).body.code).toBe('VALIDATION_FAILED');
    }
    expect((await app.post('/sys/me/profile/confirm', { channel: 'fax', code: '123456' }, { token })).status).toBe(400);
  });

  it("/sys/me/loginLog pages the caller's own login history, newest first, in the login log's row shape", async () => {
    const { user, token } = await loggedIn();
    const other = await createActiveUser(app);
    await app.login(user.username, 'wrong-Passw0rd');
    await app.login(other.username, other.password);
    const own = await app.post('/sys/me/loginLog', { pageNum: 1, pageSize: 2 }, { token });
    expect(own.body.code).toBe('OK');
    expect(own.body.data.total).toBeGreaterThanOrEqual(3);
    expect(own.body.data.rows).toHaveLength(2);
    expect(own.body.data.rows[0]).toMatchObject({ account: user.username, status: 'passwrong' });
    const all = await app.post('/sys/me/loginLog', { pageSize: 200 }, { token });
    expect(all.body.data.rows.every((r: { account: string }) => r.account === user.username)).toBe(true);
    const adminList = await app.admin('/sys/loginLog/list', { account: user.username, pageSize: 1 });
    expect(Object.keys(own.body.data.rows[0]).sort()).toEqual(Object.keys(adminList.body.data.rows[0]).sort());
  });
});
