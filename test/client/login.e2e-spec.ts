import { sm2 } from 'sm-crypto';

import { LoginPolicyClient, LoginPolicyError } from '../../client/src';
import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { listenOnLocalPort, startApp, TestApp } from '../support/test-app';

/** The Node client's login against a running service, over a real socket, on both backends. */
describe.each(BACKENDS)('client login on $name', (backend) => {
  let app: TestApp;
  let url: string;
  let client: LoginPolicyClient;

  beforeAll(async () => {
    app = await startApp(backend);
    url = await listenOnLocalPort(app);
    client = new LoginPolicyClient({ baseUrl: url });
  });
  afterAll(() => app.close());

  it("publicKey() answers the service's RSA-OAEP-256 key", async () => {
    const key = await client.publicKey();
    expect(key).toEqual({
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      algorithm: 'RSA-OAEP-256',
      publicKey: expect.stringContaining('-----BEGIN PUBLIC KEY-----'),
    });
  });

  it('login() encrypts the password and answers a token that works', async () => {
    const user = await createActiveUser(app);
    const result = await client.login({ username: user.username, password: user.password });
    expect(result).toMatchObject({
      mfaRequired: false,
      mfaToken: null,
      tempUser: false,
      accessToken: expect.any(String),
    });
    if (result.mfaRequired) throw new Error('no second factor was expected');
    const me = await app.post('/sys/me/info', {}, { token: result.accessToken });
    expect(me.body.data.username).toBe(user.username);
    const rows = await app.logRows(user.username);
    expect(rows[rows.length - 1]).toMatchObject({ status: 'success', login_type: 'account', ip: '127.0.0.1' });
  });

  it('a wrong password is a LoginPolicyError with BAD_CREDENTIALS, counted by the service', async () => {
    const user = await createActiveUser(app);
    const err = await client.login({ username: user.username, password: 'Wrong#pass1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginPolicyError);
    expect(err).toMatchObject({ code: 'BAD_CREDENTIALS', status: 401, message: '用户名或密码错误', fieldErrors: [] });
    const english = new LoginPolicyClient({ baseUrl: url, language: 'en' });
    await expect(english.login({ username: user.username, password: 'Wrong#pass2' })).rejects.toMatchObject({
      code: 'BAD_CREDENTIALS',
      message: 'Wrong user name or password',
    });
    const rows = await app.logRows(user.username);
    expect(rows.slice(-2).map((r) => r.status)).toEqual(['passwrong', 'passwrong']);
  });

  it('an unknown account answers the same BAD_CREDENTIALS', async () => {
    await expect(client.login({ username: 'nobody_here', password: 'Whatever#1' })).rejects.toMatchObject({
      code: 'BAD_CREDENTIALS',
      status: 401,
    });
  });

  it('a refused field comes with the field errors of VALIDATION_FAILED', async () => {
    const err = await client.login({ username: '', password: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect((err as LoginPolicyError).fieldErrors).toEqual([expect.objectContaining({ field: 'account' })]);
  });

  it('a user with a second factor gets mfaRequired and finishes with completeMfa()', async () => {
    await app.saveLoginStrategy({ mfaMode: 1 });
    try {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const setup = await app.post('/sys/me/mfa/setup', {}, { token });
      const secret: string = setup.body.data.secret;
      const code = () => totpCode(secret, stepAt(app.clock.nowMs()));
      expect((await app.post('/sys/me/mfa/enable', { code: code() }, { token })).body.code).toBe('OK');
      app.clock.advance(30_000);

      const first = await client.login({ username: user.username, password: user.password });
      expect(first).toMatchObject({ mfaRequired: true, accessToken: null, mfaToken: expect.any(String) });
      if (!first.mfaRequired) throw new Error('a second factor was expected');
      await expect(client.completeMfa({ mfaToken: first.mfaToken, code: '000000' })).rejects.toMatchObject({
        code: 'MFA_CODE_INVALID',
      });
      const done = await client.completeMfa({ mfaToken: first.mfaToken, code: code() });
      expect(done).toMatchObject({ mfaRequired: false, accessToken: expect.any(String) });
      expect((await app.post('/sys/me/info', {}, { token: done.accessToken })).body.data.username).toBe(user.username);
    } finally {
      await app.saveLoginStrategy({ mfaMode: 0 });
    }
  });

  it('a service that does not answer is SERVICE_UNAVAILABLE with status 0', async () => {
    const nowhere = new LoginPolicyClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 2000 });
    await expect(nowhere.login({ username: 'a', password: 'b' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 0,
    });
  });
});

/** Under CRYPTO_SUITE=gm the client encrypts with the SM2 function it is given, and says so when it has none. */
describe.each(BACKENDS)('client login under CRYPTO_SUITE=gm on $name', (backend) => {
  let app: TestApp;
  let url: string;

  beforeAll(async () => {
    app = await startApp(backend, { env: { CRYPTO_SUITE: 'gm' } });
    url = await listenOnLocalPort(app);
  });
  afterAll(() => app.close());

  it('logs in with encryptSm2, and without it refuses before sending the password', async () => {
    const user = await createActiveUser(app);
    const client = new LoginPolicyClient({
      baseUrl: url,
      encryptSm2: (key, password) => sm2.doEncrypt(password, key, 1),
    });
    expect((await client.publicKey()).algorithm).toBe('SM2');
    expect(await client.login({ username: user.username, password: user.password })).toMatchObject({
      mfaRequired: false,
      accessToken: expect.any(String),
    });
    const before = (await app.logRows(user.username)).length;
    await expect(
      new LoginPolicyClient({ baseUrl: url }).login({ username: user.username, password: user.password }),
    ).rejects.toThrow('CRYPTO_SUITE=gm');
    expect(await app.logRows(user.username)).toHaveLength(before);
  });
});
