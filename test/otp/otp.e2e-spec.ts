import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS } from '../support/backends';
import { createActiveUser, TestUser } from '../support/factories';
import { SmtpSink } from '../support/smtp-sink';
import { startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

const MASKED_MOBILE = /^\d{3}\*{4}\d{4}$/;

describe.each(BACKENDS)('one-time codes on $name', (backend) => {
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
  beforeEach(async () => {
    await app.saveLoginStrategy({ otpLogin: true, maxFailureTimes: 5, mfaMode: 0, mfaChannels: ['totp'] });
    await app.saveUserStrategy({ selfServiceReset: true });
  });

  const send = (account: string, channel = 'sms', purpose = 'login', ip = '10.0.0.1') =>
    app.post('/sys/otp/send', { account, channel, purpose }, { ip });
  const texts = (mobile: string) => sms.accepted.filter((m) => m.to === mobile);
  /** The code of the `nth` text to `mobile` (1-based), once it has arrived. */
  const smsCode = async (mobile: string, nth: number): Promise<string> => {
    const message = await waitFor(() => texts(mobile)[nth - 1], `text ${nth} to ${mobile}`);
    return /验证码是(\d{6})/.exec(message.text)![1];
  };
  const mailCode = async (address: string, nth: number): Promise<string> => {
    const mail = await waitFor(() => smtp.to(address)[nth - 1], `mail ${nth} to ${address}`);
    return /验证码是(\d{6})/.exec(mail.text)![1];
  };
  const otpLogin = (account: string, code: string, ip = '10.0.0.1') =>
    app.post('/sys/login/otp', { account, code }, { ip });
  const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const failureRows = async (userId: string) =>
    (await app.db.query("SELECT status, login_type FROM sys_login_log WHERE user_id = ? AND status = 'passwrong'", [
      userId,
    ])) as { status: string; login_type: string }[];

  describe('sending', () => {
    it('answers the masked mobile, texts a 6-digit code through the webhook and logs in with it once', async () => {
      const user = await createActiveUser(app);
      const sent = await send(user.username);
      expect(sent.status).toBe(200);
      expect(sent.body).toEqual({
        success: true,
        code: 'OK',
        message: expect.any(String),
        data: { sentTo: `${user.mobile.slice(0, 3)}****${user.mobile.slice(-4)}` },
      });
      expect(sent.body.data.sentTo).toMatch(MASKED_MOBILE);
      const code = await smsCode(user.mobile, 1);
      expect(code).toMatch(/^\d{6}$/);

      const login = await otpLogin(user.username, code, '10.0.0.8');
      expect(login.body).toMatchObject({ code: 'OK', data: { accessToken: expect.any(String), mfaRequired: false } });
      const me = await app.post('/sys/me/info', {}, { token: login.body.data.accessToken, ip: '10.0.0.8' });
      expect(me.body.data.id).toBe(user.id);
      const [last] = (await app.logRows(user.username)).slice(-1);
      expect(last).toMatchObject({ login_type: 'smscode', status: 'success', ip: '10.0.0.8' });
      // Single use.
      expect((await otpLogin(user.username, code)).body.code).toBe('MFA_CODE_INVALID');
    });

    it('an unknown account gets the same answer and the same limits, and nothing is sent', async () => {
      const user = await createActiveUser(app);
      const unknown = `nobody_${user.id.slice(0, 8)}`;
      const before = sms.requests.length;
      const [known, nobody] = [await send(user.username), await send(unknown)];
      expect(nobody.status).toBe(known.status);
      expect(Object.keys(nobody.body)).toEqual(Object.keys(known.body));
      expect(nobody.body).toMatchObject({
        success: true,
        code: 'OK',
        message: known.body.message,
        data: { sentTo: null },
      });
      // The second send of the minute is refused for both alike.
      const [known2, nobody2] = [await send(user.username), await send(unknown)];
      expect(known2.status).toBe(429);
      expect(nobody2.status).toBe(429);
      expect(nobody2.body).toEqual(known2.body);
      await smsCode(user.mobile, 1);
      expect(sms.requests.length).toBe(before + 1);
    });

    it('the limit of a recipient holds whatever the account is typed as', async () => {
      const user = await createActiveUser(app);
      expect((await send(user.username)).body.code).toBe('OK');
      expect((await send(user.mobile)).body.code).toBe('RATE_LIMITED');
      expect((await send(user.email, 'email')).body.code).toBe('OK');
      await mailCode(user.email, 1);
    });

    it('20 parallel sends for one account send exactly one text', async () => {
      const user = await createActiveUser(app);
      const results = await Promise.all(Array.from({ length: 20 }, () => send(user.username)));
      expect(results.filter((r) => r.body.code === 'OK')).toHaveLength(1);
      expect(results.filter((r) => r.body.code === 'RATE_LIMITED')).toHaveLength(19);
      await smsCode(user.mobile, 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(texts(user.mobile)).toHaveLength(1);
    });

    it('the code is stored only as a keyed hash and sealed in the outbox; it appears in no answer', async () => {
      const user = await createActiveUser(app);
      const sent = await send(user.username);
      const code = await smsCode(user.mobile, 1);
      expect(JSON.stringify(sent.body)).not.toContain(code);
      const stored = await app.store.get(`OTP_CODE:login:${user.id}`);
      expect(stored).not.toBeNull();
      expect(stored).not.toContain(code);
      expect(JSON.parse(stored!)).toMatchObject({
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        tries: 0,
        channel: 'sms',
      });
      // The outbox marks the row sent once the provider's answer is in, a moment after the text arrived.
      const rows = await waitFor(async () => {
        const found = await app.db.query('SELECT * FROM sys_notification WHERE user_id = ? AND channel = ?', [
          user.id,
          'otp-sms',
        ]);
        return found.length === 1 && found[0].status === 'sent' && found;
      }, "the code's outbox row to be marked sent");
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows[0])).not.toContain(code);
      expect(JSON.stringify(rows[0])).not.toContain(user.mobile);
      const login = await otpLogin(user.username, code);
      expect(JSON.stringify(login.body)).not.toContain(code);
    });

    it('a provider error shows in the notification record, never in the answer', async () => {
      const user = await createActiveUser(app);
      sms.queued.push(400);
      const sent = await send(user.username);
      expect(sent.body).toMatchObject({ code: 'OK', data: { sentTo: expect.stringMatching(MASKED_MOBILE) } });
      const [row] = await waitFor(async () => {
        const rows = await app.db.query(
          "SELECT * FROM sys_notification WHERE user_id = ? AND channel = 'otp-sms' AND status = 'failed'",
          [user.id],
        );
        return rows.length && rows;
      }, 'the failed row');
      expect(row.last_error).toMatch(/HTTP 400/);
    });

    it('the strategy switches decide: otpLogin off → FORBIDDEN, selfServiceReset off → FORBIDDEN', async () => {
      const user = await createActiveUser(app);
      await app.saveLoginStrategy({ otpLogin: false });
      await app.saveUserStrategy({ selfServiceReset: false });
      expect((await send(user.username)).body.code).toBe('FORBIDDEN');
      expect((await otpLogin(user.username, '123456')).body.code).toBe('FORBIDDEN');
      expect((await send(user.username, 'sms', 'reset')).body.code).toBe('FORBIDDEN');
      expect((await app.post('/sys/password/forgot', { account: user.username, channel: 'sms' })).body.code).toBe(
        'FORBIDDEN',
      );
      const reset = await app.post('/sys/password/reset', {
        account: user.username,
        code: '123456',
        newPass: await app.encrypt('Another#3c'),
      });
      expect(reset.body.code).toBe('FORBIDDEN');
    });

    it('bad input is VALIDATION_FAILED', async () => {
      for (const body of [
        {},
        { account: 'a', channel: 'fax', purpose: 'login' },
        { account: 'a', channel: 'sms', purpose: 'mfa' },
        { account: 'a', channel: 'sms' },
        { mfaToken: 'x'.repeat(43), channel: 'sms', account: 'a' },
      ]) {
        expect((await app.post('/sys/otp/send', body)).body.code).toBe('VALIDATION_FAILED');
      }
      expect((await app.post('/sys/login/otp', { account: 'a', code: '12345' })).body.code).toBe('VALIDATION_FAILED');
    });

    if (backend.name === 'sqlite+memory') {
      it('one a minute and ten a day, for an unknown account just the same', async () => {
        const user = await createActiveUser(app);
        const unknown = `ghost_${user.id.slice(0, 8)}`;
        for (let i = 0; i < 10; i++) {
          expect((await send(user.username)).body.code).toBe('OK');
          expect((await send(unknown)).body.code).toBe('OK');
          app.clock.advance(61_000);
        }
        expect((await send(user.username)).body.code).toBe('RATE_LIMITED');
        expect((await send(unknown)).body.code).toBe('RATE_LIMITED');
        app.clock.advanceMinutes(24 * 60);
        expect((await send(user.username)).body.code).toBe('OK');
        expect((await send(unknown)).body.code).toBe('OK');
      });

      it('a code lives 5 minutes', async () => {
        const user = await createActiveUser(app);
        await send(user.username);
        const code = await smsCode(user.mobile, 1);
        app.clock.advance(5 * 60_000 + 1);
        expect((await otpLogin(user.username, code)).body.code).toBe('MFA_CODE_INVALID');
      });
    }
  });

  describe('logging in', () => {
    it('5 wrong tries kill the code; each is logged passwrong and counted', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 20 });
      const user = await createActiveUser(app);
      await send(user.username);
      const code = await smsCode(user.mobile, 1);
      for (let i = 0; i < 5; i++)
        expect((await otpLogin(user.username, wrongCode(code))).body.code).toBe('MFA_CODE_INVALID');
      expect((await otpLogin(user.username, code)).body.code).toBe('MFA_CODE_INVALID');
      const failures = await failureRows(user.id);
      expect(failures).toHaveLength(6);
      expect(failures.every((f) => f.login_type === 'smscode')).toBe(true);
    });

    it('20 parallel wrong codes count 5 and lock the account; the right code then meets the lock', async () => {
      const user = await createActiveUser(app);
      await send(user.username);
      const code = await smsCode(user.mobile, 1);
      const results = await Promise.all(Array.from({ length: 20 }, () => otpLogin(user.username, wrongCode(code))));
      expect(results.every((r) => r.status < 500)).toBe(true);
      expect(await failureRows(user.id)).toHaveLength(5);
      expect((await app.userRow(user.id)).locked).toBeTruthy();
      expect((await otpLogin(user.username, code)).body.code).toBe('ACCOUNT_LOCKED');
    });

    it('parallel right codes: exactly one login', async () => {
      const user = await createActiveUser(app);
      await send(user.username);
      const code = await smsCode(user.mobile, 1);
      const results = await Promise.all(Array.from({ length: 10 }, () => otpLogin(user.username, code)));
      expect(results.filter((r) => r.body.code === 'OK')).toHaveLength(1);
    });

    it('a locked account is refused before its code is looked at; a disabled one after', async () => {
      const user = await createActiveUser(app);
      await send(user.username);
      const code = await smsCode(user.mobile, 1);
      await app.admin('/sys/user/lock', { id: user.id });
      expect((await otpLogin(user.username, code)).body.code).toBe('ACCOUNT_LOCKED');
      await app.admin('/sys/user/unlock', { id: user.id });
      await app.admin('/sys/user/disable', { id: user.id });
      expect((await otpLogin(user.username, wrongCode(code))).body.code).toBe('MFA_CODE_INVALID');
      expect((await otpLogin(user.username, code)).body.code).toBe('ACCOUNT_DISABLED');
    });

    it('an unknown account is answered and logged as a wrong code', async () => {
      const res = await otpLogin('no_such_person', '123456');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('MFA_CODE_INVALID');
      const [row] = await app.logRows('no_such_person');
      expect(row).toMatchObject({ user_id: null, status: 'passwrong', login_type: 'smscode' });
    });

    it('by e-mail: logged emailcode', async () => {
      const user = await createActiveUser(app);
      expect((await send(user.email, 'email')).body.data.sentTo).toBe(`${user.email[0]}***@example.com`);
      const code = await mailCode(user.email, 1);
      expect((await otpLogin(user.email, code)).body.code).toBe('OK');
      // Kept masked in the log (docs/security.md#personal-data).
      const [last] = (await app.logRows(`${user.email[0]}***@example.com`)).slice(-1);
      expect(last).toMatchObject({ login_type: 'emailcode', status: 'success' });
    });

    it('a TOTP user still gives the second step when mfaMode ≥ 1', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token })).body.data;
      const code = totpCode(secret, stepAt(app.clock.nowMs()));
      expect((await app.post('/sys/me/mfa/enable', { code }, { token })).body.code).toBe('OK');
      await app.saveLoginStrategy({ mfaMode: 1 });
      app.clock.advance(30_000);
      await send(user.username);
      const res = await otpLogin(user.username, await smsCode(user.mobile, 1));
      expect(res.body.data).toMatchObject({ accessToken: null, mfaRequired: true, mfaToken: expect.any(String) });
      const second = await app.post('/sys/login/mfa', {
        mfaToken: res.body.data.mfaToken,
        code: totpCode(secret, stepAt(app.clock.nowMs())),
      });
      expect(second.body.code).toBe('OK');
      const [last] = (await app.logRows(user.username)).slice(-1);
      expect(last).toMatchObject({ login_type: 'smscode', status: 'success' });
    });
  });

  describe('the second factor by code', () => {
    const sendForMfa = (mfaToken: string, channel = 'sms') => app.post('/sys/otp/send', { mfaToken, channel });
    const mfaRows = async (userId: string) =>
      app.db.query("SELECT id FROM sys_login_log WHERE user_id = ? AND status = 'mfawrong'", [userId]);

    it('mfaMode 2 with sms allowed: a user with a mobile finishes the login with a texted code', async () => {
      const user = await createActiveUser(app);
      await app.saveLoginStrategy({ mfaMode: 2, mfaChannels: ['totp', 'sms'] });
      const first = await app.login(user.username, user.password);
      expect(first.body.data).toMatchObject({ accessToken: null, mfaRequired: true, mfaSetupRequired: false });
      const { mfaToken } = first.body.data as any;
      expect((await sendForMfa(mfaToken, 'email')).body.code).toBe('FORBIDDEN');
      expect((await sendForMfa(mfaToken)).body.data.sentTo).toMatch(MASKED_MOBILE);
      const code = await smsCode(user.mobile, 1);
      // A code of the second step is no code to log in with.
      expect((await otpLogin(user.username, code)).body.code).toBe('MFA_CODE_INVALID');
      const wrong = await app.post('/sys/login/mfa', { mfaToken, code: wrongCode(code) });
      expect(wrong.body.code).toBe('MFA_CODE_INVALID');
      expect(await mfaRows(user.id)).toHaveLength(1);
      const done = await app.post('/sys/login/mfa', { mfaToken, code });
      expect(done.body).toMatchObject({ code: 'OK', data: { accessToken: expect.any(String), tempUser: false } });
      expect((await app.post('/sys/login/mfa', { mfaToken, code })).body.code).toBe('MFA_TOKEN_INVALID');
      await app.saveLoginStrategy({ mfaChannels: ['totp'] });
    });

    it('mfaMode 2 without sms or email allowed: the user must enrol TOTP', async () => {
      const user = await createActiveUser(app);
      await app.saveLoginStrategy({ mfaMode: 2, mfaChannels: ['totp'] });
      const first = await app.login(user.username, user.password);
      expect(first.body.data).toMatchObject({ tempUser: true, mfaSetupRequired: true, mfaRequired: false });
    });

    it('a bad mfaToken is MFA_TOKEN_INVALID; mfaChannels is validated', async () => {
      expect((await sendForMfa('x'.repeat(43))).body.code).toBe('MFA_TOKEN_INVALID');
      for (const mfaChannels of [[], ['fax'], ['sms', 'sms'], 'sms']) {
        const res = await app.admin('/sys/strategy/login/save', { mfaChannels });
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      const saved = await app.admin('/sys/strategy/login/save', { mfaChannels: ['email', 'totp'] });
      expect(saved.body.code).toBe('OK');
      expect((await app.admin('/sys/strategy/login/info')).body.data.mfaChannels).toEqual(['email', 'totp']);
      await app.saveLoginStrategy({ mfaChannels: ['totp'] });
    });
  });

  describe('the forgotten password', () => {
    const forgot = (account: string, channel = 'sms') => app.post('/sys/password/forgot', { account, channel });
    const reset = async (account: string, code: string, newPass: string) =>
      app.post('/sys/password/reset', { account, code, newPass: await app.encrypt(newPass) });

    it('resets under the rules, keeps the code through a refusal, ends every session, notifies and audits', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      expect((await forgot(user.username)).body.data.sentTo).toMatch(MASKED_MOBILE);
      const code = await smsCode(user.mobile, 1);
      expect((await reset(user.username, code, 'ab1!')).body.code).toBe('PASSWORD_TOO_SHORT');
      expect((await reset(user.username, code, user.password)).body.code).toBe('OK');
      expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('NOT_LOGGED_IN');
      expect((await app.login(user.username, user.password)).body.code).toBe('OK');
      // Spent.
      expect((await reset(user.username, code, 'Third#4d')).body.code).toBe('MFA_CODE_INVALID');
      const [audit] = await app.db.query(
        "SELECT * FROM sys_audit_log WHERE action = 'password.selfReset' AND target = ?",
        [user.id],
      );
      expect(audit).toBeDefined();
      const mail = await waitFor(() => smtp.to(user.email)[0], 'the reset notice');
      expect(mail.text).toContain('密码已重置');
    });

    it('takes the body of /sys/otp/send with purpose reset as well; any other purpose is refused', async () => {
      const user = await createActiveUser(app);
      const sent = await app.post('/sys/password/forgot', { account: user.username, channel: 'sms', purpose: 'reset' });
      expect(sent.body.data.sentTo).toMatch(MASKED_MOBILE);
      const code = await smsCode(user.mobile, 1);
      expect((await reset(user.username, code, 'Fresh#6f')).body.code).toBe('OK');
      const other = await app.post('/sys/password/forgot', {
        account: user.username,
        channel: 'sms',
        purpose: 'login',
      });
      expect(other.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ field: 'purpose' }] } });
    });

    it('a reset code cannot log in and a login code cannot reset', async () => {
      const user = await createActiveUser(app);
      await forgot(user.username);
      const resetCode = await smsCode(user.mobile, 1);
      expect((await otpLogin(user.username, resetCode)).body.code).toBe('MFA_CODE_INVALID');
      // Another account as typed and another recipient: no limit stands in the way.
      expect((await send(user.email, 'email')).body.code).toBe('OK');
      const loginCode = await mailCode(user.email, 1);
      expect((await reset(user.username, loginCode, 'Fresh#5e')).body.code).toBe('MFA_CODE_INVALID');
    });

    it('wrong codes count toward the lock; a locked account answers as if no code matched', async () => {
      const user = await createActiveUser(app);
      await forgot(user.username);
      const code = await smsCode(user.mobile, 1);
      for (let i = 0; i < 5; i++)
        expect((await reset(user.username, wrongCode(code), 'Fresh#5e')).body.code).toBe('MFA_CODE_INVALID');
      const failures = await failureRows(user.id);
      expect(failures).toHaveLength(5);
      expect(failures.every((f) => f.login_type === 'passreset')).toBe(true);
      expect((await app.userRow(user.id)).locked).toBeTruthy();
      expect((await reset('no_such_one', code, 'Fresh#5e')).body.code).toBe('MFA_CODE_INVALID');
    });

    it('a disabled account answers as if no code matched, and its code stays', async () => {
      const user = await createActiveUser(app);
      await forgot(user.username);
      const code = await smsCode(user.mobile, 1);
      await app.admin('/sys/user/disable', { id: user.id });
      expect((await reset(user.username, code, 'Fresh#5e')).body.code).toBe('MFA_CODE_INVALID');
      await app.admin('/sys/user/enable', { id: user.id });
      expect((await reset(user.username, code, 'Fresh#5e')).body.code).toBe('OK');
    });
  });

  it('answers of known and unknown accounts take the same time, within noise', async () => {
    const users: TestUser[] = [];
    for (let i = 0; i < 8; i++) users.push(await createActiveUser(app));
    const timed = async (account: string, i: number) => {
      const started = performance.now();
      // An address of its own: the per-IP throttle is not what is measured.
      const res = await send(account, 'sms', 'login', `10.3.${i}.1`);
      expect(res.body.code).toBe('OK');
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (const [i, u] of users.entries()) {
      known.push(await timed(u.username, i));
      // The delivery after the answer is over before the next one is timed.
      await smsCode(u.mobile, 1);
      unknown.push(await timed(`ghost_${i}_${u.id.slice(0, 6)}`, i));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    expect(Math.abs(median(known) - median(unknown))).toBeLessThan(Math.max(5, median(known) * 0.5));
  });
});
