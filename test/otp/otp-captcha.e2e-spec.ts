import { AppConfig } from '../../src/config/app-config';
import { BACKENDS } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/** With the captcha on, a code is sent only against a right captcha, each captcha good for one send. */
describe.each(BACKENDS)('one-time codes behind the captcha on $name', (backend) => {
  let app: TestApp;
  let user: { username: string };
  beforeAll(async () => {
    app = await startApp(backend);
    await app.saveLoginStrategy({ otpLogin: true });
    await app.saveUserStrategy({ selfServiceReset: true });
    user = await createActiveUser(app);
    // The set-up above logs in without a captcha; the sends below meet it (read on every request).
    app.app.get(AppConfig).CAPTCHA_ENABLED = true;
  });
  afterAll(() => app?.close());

  const captcha = async () => {
    const { imgId } = (await app.post('/sys/captcha')).body.data;
    return { imgId, imgCode: (await app.store.get(`CAPTCHA:${imgId}`))! };
  };

  it('no captcha, a wrong one or a used one is CAPTCHA_INVALID, and only a right one reaches the limits', async () => {
    const send = (extra: object, path = '/sys/otp/send') =>
      app.post(path, {
        account: user.username,
        channel: 'sms',
        ...(path === '/sys/otp/send' ? { purpose: 'login' } : {}),
        ...extra,
      });
    expect((await send({})).body.code).toBe('CAPTCHA_INVALID');
    const { imgId } = await captcha();
    expect((await send({ imgId, imgCode: 'nope' })).body.code).toBe('CAPTCHA_INVALID');
    const right = await captcha();
    expect((await send(right)).body.code).toBe('OK');
    expect((await send(right)).body.code).toBe('CAPTCHA_INVALID');
    expect((await send({}, '/sys/password/forgot')).body.code).toBe('CAPTCHA_INVALID');
    // Past a right captcha, the account's one send of the minute is already spent.
    expect((await send(await captcha(), '/sys/password/forgot')).body.code).toBe('RATE_LIMITED');
  });
});
