import { generateKeyPairSync } from 'node:crypto';

import { sm2 } from 'sm-crypto';

import { decryptSecret } from '../../src/mfa/mfa-crypto';
import { stepAt, totpCode } from '../../src/mfa/totp';
import { BACKENDS } from '../support/backends';
import { createActiveUser, createUser, TestUser } from '../support/factories';
import { FakeClock } from '../support/fake-clock';
import { encryptPassword } from '../support/password-transport';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

/**
 * CRYPTO_SUITE=gm (docs/security.md#crypto-suites): SM2 password transport, HMAC-SM3
 * seals, SM4 secrets at rest; and an installation that switches suites keeps its sealed logs
 * verifying and its TOTP and webhook secrets working, re-encrypted under the new suite.
 */
jest.setTimeout(120_000);

const GM = { CRYPTO_SUITE: 'gm' };

async function verify(app: TestApp) {
  const res = await app.admin('/sys/auditLog/verify');
  expect(res.body).toMatchObject({ success: true, code: 'OK' });
  return res.body.data as { ok: boolean; checked: number; firstBad: unknown };
}

describe.each(BACKENDS)('password transport under gm on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend, { env: GM });
  });
  afterAll(() => app.close());

  it('answers an SM2 public key: the uncompressed point, hex', async () => {
    const res = await app.post('/sys/publicKey');
    expect(res.body).toMatchObject({
      code: 'OK',
      data: {
        keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
        algorithm: 'SM2',
        publicKey: expect.stringMatching(/^04[0-9a-f]{128}$/),
      },
    });
  });

  it('logs in and changes a password sent as sm-crypto ciphertext (C1C3C2, hex)', async () => {
    // createActiveUser creates the user, logs in and changes the first password, all under SM2.
    const user = await createActiveUser(app);
    const { publicKey } = (await app.post('/sys/publicKey')).body.data;
    const login = await app.post('/sys/login', {
      account: user.username,
      password: sm2.doEncrypt(user.password, publicKey, 1),
    });
    expect(login.body).toMatchObject({ code: 'OK', data: { accessToken: expect.any(String) } });
    const token = login.body.data.accessToken;
    const change = await app.post(
      '/sys/me/pass/update',
      { oldPass: await app.encrypt(user.password), newPass: await app.encrypt('Third#3cc') },
      { token },
    );
    expect(change.body.code).toBe('OK');
    expect((await app.login(user.username, 'Third#3cc')).body.code).toBe('OK');
    expect((await app.login(user.username, user.password)).body.code).toBe('BAD_CREDENTIALS');
  });

  it('refuses RSA ciphertext, C1C2C3 and plain text as VALIDATION_FAILED naming SM2, nothing counted', async () => {
    const user = await createUser(app, { password: 'Initial#1a' });
    const { publicKey } = (await app.post('/sys/publicKey')).body.data;
    const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    for (const password of [
      encryptPassword(rsaKey.toString(), 'Initial#1a'),
      sm2.doEncrypt('Initial#1a', publicKey, 0),
      'Initial#1a',
    ]) {
      const res = await app.post(
        '/sys/login',
        { account: user.username, password },
        { headers: { 'accept-language': 'en' } },
      );
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: { errors: [{ field: 'password', message: expect.stringContaining('SM2') }] },
      });
    }
    expect((await app.login(user.username, 'Initial#1a')).body.code).toBe('OK');
  });

  it('creates a user with an SM2-encrypted password', async () => {
    const res = await app.admin('/sys/user/create', {
      username: `gm${Date.now()}`,
      name: 'SM2',
      password: await app.encrypt('Passw0rd!x'),
    });
    expect(res.body.code).toBe('OK');
  });

  it('keeps RSA-OAEP-256 under the standard suite', async () => {
    const standard = await startApp(backend);
    try {
      expect((await standard.post('/sys/publicKey')).body.data).toMatchObject({
        algorithm: 'RSA-OAEP-256',
        publicKey: expect.stringContaining('-----BEGIN PUBLIC KEY-----'),
      });
      expect((await standard.login('admin', ADMIN_PASSWORD)).body.code).toBe('OK');
    } finally {
      await standard.close();
    }
  });
});

describe.each(BACKENDS)('switching CRYPTO_SUITE on $name', (backend) => {
  it('keeps old seals verifying both ways, re-encrypts TOTP and webhook secrets, and old recovery codes still work', async () => {
    const provisioned = await backend.provision();
    const running: TestApp[] = [];
    const start = async (env: Record<string, string>, clock?: FakeClock) => {
      const app = await startApp(backend, { provisioned, env, clock });
      running.push(app);
      return app;
    };
    const stop = async (app: TestApp) => {
      running.splice(running.indexOf(app), 1);
      await app.close();
    };
    try {
      const standard = await start({});
      await standard.saveLoginStrategy({ mfaMode: 1 });
      const user: TestUser = await createActiveUser(standard);
      const token = await standard.token(user.username, user.password);
      const setup = await standard.post('/sys/me/mfa/setup', {}, { token });
      const secret: string = setup.body.data.secret;
      const code = () => totpCode(secret, stepAt(standard.clock.nowMs()));
      const enabled = await standard.post('/sys/me/mfa/enable', { code: code() }, { token });
      const recoveryCodes: string[] = enabled.body.data.recoveryCodes;
      expect(await verify(standard)).toMatchObject({ ok: true, firstBad: null });
      const storedSecret = async (app: TestApp) =>
        (await app.db.query('SELECT secret FROM sys_user_mfa WHERE user_id = ?', [user.id]))[0].secret as string;
      expect(await storedSecret(standard)).toMatch(/^v1\./);
      const hook = await standard.admin('/sys/webhook/save', {
        url: 'https://siem.example.internal/hook',
        events: ['account.deleted'],
        enabled: true,
      });
      expect(hook.body.code).toBe('OK');
      const hookSecret = async (app: TestApp) => {
        const [{ secret }] = await app.db.query('SELECT secret FROM sys_webhook WHERE id = ?', [hook.body.data.id]);
        const [{ prop_value: key }] = await app.db.query(
          "SELECT prop_value FROM sys_props WHERE prop_group = 'sys_security' AND prop_key = 'mfa_encryption_key'",
        );
        expect(decryptSecret(Buffer.from(key, 'base64'), secret)).toBe(hook.body.data.secret);
        return secret as string;
      };
      expect(await hookSecret(standard)).toMatch(/^v1\./);
      const clock = standard.clock;
      await stop(standard);

      clock.advance(60_000);
      const gm = await start(GM, clock);
      expect(await storedSecret(gm)).toMatch(/^g1\./);
      expect(await hookSecret(gm)).toMatch(/^g1\./);
      const before = await verify(gm);
      expect(before).toMatchObject({ ok: true, firstBad: null });
      const checks = await gm.db.query(
        "SELECT prop_key FROM sys_props WHERE prop_group = 'sys_security' AND prop_key LIKE 'audit_hmac_key_check%' ORDER BY prop_key",
      );
      expect(checks.map((r: { prop_key: string }) => r.prop_key)).toEqual([
        'audit_hmac_key_check',
        'audit_hmac_key_check_gm',
      ]);
      // TOTP and a recovery code given out before the switch both still prove the second step.
      const first = await gm.login(user.username, user.password);
      const mfaToken = (first.body.data as any).mfaToken;
      const done = await gm.post('/sys/login/mfa', { mfaToken, code: totpCode(secret, stepAt(clock.nowMs())) });
      expect(done.body.code).toBe('OK');
      const again = await gm.login(user.username, user.password);
      expect(
        (
          await gm.post('/sys/login/mfa', {
            mfaToken: (again.body.data as any).mfaToken,
            code: recoveryCodes[0],
          })
        ).body.code,
      ).toBe('OK');
      const after = await verify(gm);
      expect(after.ok).toBe(true);
      expect(after.checked).toBeGreaterThan(before.checked);
      await stop(gm);

      // And back: rows sealed under both suites verify under the standard one.
      clock.advance(60_000);
      const back = await start({}, clock);
      expect(await storedSecret(back)).toMatch(/^v1\./);
      expect(await hookSecret(back)).toMatch(/^v1\./);
      expect(await verify(back)).toMatchObject({ ok: true, firstBad: null });
      const [{ id }] = await back.db.query("SELECT id FROM sys_audit_log WHERE action = 'auditLog.verify' ORDER BY id");
      await back.db.query("UPDATE sys_audit_log SET ip = '198.51.100.1' WHERE id = ?", [id]);
      expect((await verify(back)).firstBad).toEqual({ table: 'sys_audit_log', id: String(id), reason: 'altered' });
      await stop(back);
    } finally {
      for (const app of running) await app.close().catch(() => undefined);
      await provisioned.dispose();
    }
  });
});
