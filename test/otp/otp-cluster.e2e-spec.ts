import { mariadbRedis } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

/**
 * Two instances on one MariaDB database and one Redis namespace: the send limits, the wrong tries
 * and the single use of a code hold for both together under parallel requests.
 */
describe('one-time codes across two instances on MariaDB + Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let sms: WebhookSink;

  beforeAll(async () => {
    sms = await new WebhookSink().start();
    const env = { SMS_WEBHOOK_URL: sms.url };
    a = await startApp(mariadbRedis, { env });
    b = await startApp(mariadbRedis, { env, provisioned: a.provisioned });
    await a.saveLoginStrategy({ otpLogin: true });
    await a.saveUserStrategy({ selfServiceReset: true });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await sms.stop();
  });

  const either = (i: number) => (i % 2 ? b : a);
  const texts = (mobile: string) => sms.accepted.filter((m) => m.to === mobile);
  const smsCode = async (mobile: string): Promise<string> => {
    const message = await waitFor(() => texts(mobile)[0], `a text to ${mobile}`);
    return /验证码是(\d{6})/.exec(message.text)![1];
  };
  const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('parallel sends for one recipient, typed three ways, on both instances: exactly one text', async () => {
    const user = await createActiveUser(a);
    const typed = [user.username, user.mobile, user.username.toUpperCase()];
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        either(i).post(
          '/sys/otp/send',
          { account: typed[i % 3], channel: 'sms', purpose: 'login' },
          { ip: `10.4.${i}.1` },
        ),
      ),
    );
    expect(results.filter((r) => r.body.code === 'OK')).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 'RATE_LIMITED')).toHaveLength(23);
    await smsCode(user.mobile);
    await sleep(200);
    expect(texts(user.mobile)).toHaveLength(1);
  });

  it('20 parallel wrong codes on both instances count 5 toward the lock; the code is then of no use', async () => {
    const user = await createActiveUser(a);
    await a.post('/sys/otp/send', { account: user.username, channel: 'sms', purpose: 'login' });
    const code = await smsCode(user.mobile);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        either(i).post('/sys/login/otp', { account: user.username, code: wrongCode(code) }),
      ),
    );
    expect(results.every((r) => r.status < 500 && !r.body.success)).toBe(true);
    const counted = await a.db.query("SELECT id FROM sys_login_log WHERE user_id = ? AND status = 'passwrong'", [
      user.id,
    ]);
    expect(counted).toHaveLength(5);
    await a.admin('/sys/user/unlock', { id: user.id });
    expect((await b.post('/sys/login/otp', { account: user.username, code })).body.code).toBe('MFA_CODE_INVALID');
  });

  it('a right code sent to both instances at once logs in exactly once', async () => {
    const user = await createActiveUser(a);
    await b.post('/sys/otp/send', { account: user.username, channel: 'sms', purpose: 'login' });
    const code = await smsCode(user.mobile);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => either(i).post('/sys/login/otp', { account: user.username, code })),
    );
    expect(results.filter((r) => r.body.code === 'OK')).toHaveLength(1);
  });

  it('a reset code used on both instances at once resets exactly once', async () => {
    const user = await createActiveUser(a);
    await a.post('/sys/password/forgot', { account: user.username, channel: 'sms' });
    const code = await smsCode(user.mobile);
    const newPass = await a.encrypt('Reset#9zz');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        either(i).post('/sys/password/reset', { account: user.username, code, newPass }),
      ),
    );
    expect(results.filter((r) => r.body.code === 'OK')).toHaveLength(1);
    expect(results.filter((r) => r.body.code === 'MFA_CODE_INVALID')).toHaveLength(5);
  });
});
