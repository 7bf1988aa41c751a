import { randomBytes } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import { FORBIDDEN } from '../support/envelopes';
import { createActiveUser, createRole } from '../support/factories';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

/**
 * POST /sys/compliance/controls: which 等保三级 controls are in force on the installation, as the
 * baseline dialog of the strategy page shows them (src/compliance/controls.ts).
 */
async function ask(app: TestApp, language = 'zh') {
  return app.post(
    '/sys/compliance/controls',
    {},
    { token: await app.adminToken(), headers: { 'accept-language': language } },
  );
}

async function controls(app: TestApp, language = 'zh') {
  const res = await ask(app, language);
  expect(res.body).toMatchObject({ success: true, code: 'OK' });
  return res.body.data;
}

describe.each(BACKENDS)('等保三级 controls on $name', (backend) => {
  const stateOf = (answer: { controls: { id: string; state: string }[] }) =>
    Object.fromEntries(answer.controls.map((c) => [c.id, c.state]));

  describe('a fresh installation with the defaults', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend);
    });
    afterAll(() => app.close());

    it('shows what is on and what is not, each with its clause, and what is left to the operator', async () => {
      const res = await ask(app, 'en');
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      const answer = res.body.data;
      expect(stateOf(answer)).toEqual({
        threeAdmins: 'off',
        defaultAccount: 'off',
        accessRules: 'off',
        auditedActions: 'on',
        sealedLogs: 'partial',
        forwarding: 'off',
        retention: 'on',
      });
      expect(answer.controls.find((c: { id: string }) => c.id === 'threeAdmins')).toEqual({
        id: 'threeAdmins',
        clause: '8.1.4.2 d, 8.1.5.1–8.1.5.3',
        name: 'Three administrators (system, security, audit)',
        state: 'off',
        detail: expect.stringContaining('ADMIN_MODE=single'),
      });
      expect(answer.controls.find((c: { id: string }) => c.id === 'defaultAccount').detail).toBe(
        'An account named admin exists: rename it on the users page',
      );
      // The strategy page's baseline dialog reads the values from here (src/compliance/baseline.ts).
      expect(answer.baseline.login).toMatchObject({ mfaMode: 2, maxFailureTimes: 5, sessionMaxHours: 12 });
      expect(answer.baseline.user).toMatchObject({
        minPasswordLength: 8,
        passwordHistoryCount: 5,
        forceUpdatePassword: true,
      });
      expect(answer.outside.map((o: { id: string; clause: string }) => [o.id, o.clause])).toEqual([
        ['tls', '8.1.4.1 c'],
        ['backups', '8.1.4.9 a'],
        ['timeSync', '8.1.4.3 b'],
        ['collector', '8.1.5.4 d'],
      ]);
    });

    it("answers in the caller's language", async () => {
      const zh = await controls(app, 'zh-CN');
      expect(zh.controls[0].name).toBe('三员分立（系统、安全、审计管理员）');
      expect(zh.outside[0]).toMatchObject({ name: '启用 HTTPS', detail: expect.stringContaining('TLS') });
    });

    it('an enabled access rule and a renamed administrator turn their controls on; a disabled rule does not count', async () => {
      const user = await createActiveUser(app);
      const rule = {
        name: 'lab',
        action: 'deny',
        ipRanges: ['10.66.0.0/16'],
        users: [user.id],
        enabled: false,
      };
      expect((await app.admin('/sys/accessRule/save', rule)).body.code).toBe('OK');
      expect(stateOf((await app.admin('/sys/compliance/controls', {})).body.data).accessRules).toBe('off');
      expect((await app.admin('/sys/accessRule/save', { ...rule, name: 'lab 2', enabled: true })).body.code).toBe('OK');
      const [admin] = await app.db.query("SELECT id FROM sys_user WHERE username = 'admin'");
      const renamed = await app.admin('/sys/user/update', {
        id: admin.id,
        username: `root_${randomBytes(2).toString('hex')}`,
      });
      expect(renamed.body.code).toBe('OK');
      const after = await controls(app, 'en');
      expect(stateOf(after)).toMatchObject({ accessRules: 'on', defaultAccount: 'on' });
      expect(after.controls.find((c: { id: string }) => c.id === 'accessRules').detail).toBe('1 rule(s) enabled');
    });

    it('needs the code that reads the login strategy', async () => {
      await createRole(app, 'user-reader', ['sys:user:list']);
      const reader = await createActiveUser(app, { roles: ['user-reader'] });
      const res = await app.post(
        '/sys/compliance/controls',
        {},
        { token: await app.token(reader.username, reader.password) },
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    });
  });

  it('with the key, a TCP collector and a long retention configured, those controls are on', async () => {
    const app = await startApp(backend, {
      env: {
        AUDIT_HMAC_KEY: randomBytes(32).toString('base64'),
        SYSLOG_URL: 'tcp://127.0.0.1:9',
        LOG_RETENTION_DAYS: '365',
      },
    });
    try {
      const answer = await controls(app, 'en');
      expect(stateOf(answer)).toMatchObject({ sealedLogs: 'on', forwarding: 'on', retention: 'on' });
      expect(answer.controls.find((c: { id: string }) => c.id === 'retention').detail).toBe(
        'Kept 365 days (LOG_RETENTION_DAYS)',
      );
    } finally {
      await app.close();
    }
  });

  it('ADMIN_MODE=three: the security administrator sees three administrators on and no default account', async () => {
    const app = await startApp(backend, { env: { ADMIN_MODE: 'three' } });
    try {
      const token = await app.token('secadmin', ADMIN_PASSWORD);
      const res = await app.post('/sys/compliance/controls', {}, { token, headers: { 'accept-language': 'en' } });
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      expect(stateOf(res.body.data)).toMatchObject({ threeAdmins: 'on', defaultAccount: 'on' });
      // The audit administrator's codes do not read the login strategy.
      const audit = await app.post(
        '/sys/compliance/controls',
        {},
        { token: await app.token('auditadmin', ADMIN_PASSWORD) },
      );
      expect(audit.status).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('a UDP collector is partial: best effort', async () => {
    const app = await startApp(backend, { env: { SYSLOG_URL: 'udp://127.0.0.1:9' } });
    try {
      const answer = (await app.admin('/sys/compliance/controls', {})).body.data;
      expect(stateOf(answer).forwarding).toBe('partial');
    } finally {
      await app.close();
    }
  });
});
