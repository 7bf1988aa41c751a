import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { stepAt, totpCode } from '../../src/mfa/totp';
import { NotificationKind } from '../../src/notification/notification.types';
import { NotificationEntity } from '../../src/notification/outbox/notification.entity';
import { BACKENDS } from '../support/backends';
import { buildCommands, runCommand } from '../support/built-command';
import { createActiveUser, TestUser } from '../support/factories';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';

/**
 * `npm run admin:recover -- <username>` (src/cli/admin-recover.ts) run as the server
 * would run it, with the service's environment, against the database of a running service.
 */
describe.each(BACKENDS)('the recovery command on $name', (backend) => {
  let app: TestApp;
  let script: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    script = join(await buildCommands(), 'src', 'cli', 'admin-recover.js');
    app = await startApp(backend);
    env = { ...app.provisioned.env, BCRYPT_COST: '4' };
  }, 240_000);
  afterAll(() => app.close());

  const recover = (...args: string[]) => runCommand(script, args, env);
  const passwordIn = (stdout: string) => /^One-time password \(shown only now\): (\S+)$/m.exec(stdout)?.[1];
  const noStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

  afterEach(async () => {
    await app.saveUserStrategy({
      minPasswordLength: 6,
      maxPasswordLength: 20,
      includeUpperCase: false,
      forceUpdatePassword: false,
    });
    await app.saveLoginStrategy({ maxFailureTimes: 5 });
  });

  it('unlocks, enables and gives a locked-out account a one-time initial password meeting the strategy, restarts its failure count, and audits it', async () => {
    const user: TestUser = await createActiveUser(app);
    await app.saveUserStrategy({
      minPasswordLength: 16,
      maxPasswordLength: 18,
      includeUpperCase: true,
      forceUpdatePassword: true,
    });
    await app.saveLoginStrategy({ maxFailureTimes: 3 });
    // Two wrong passwords before: the count must start again.
    for (let i = 0; i < 2; i++)
      expect((await app.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
    expect((await app.admin('/sys/user/lock', { id: user.id })).body.success).toBe(true);
    expect((await app.admin('/sys/user/disable', { id: user.id })).body.success).toBe(true);
    expect((await app.login(user.username, user.password)).body.success).toBe(false);

    const run = await recover(user.username);
    expect(run.code).toBe(0);
    noStack(run.stdout + run.stderr);
    const password = passwordIn(run.stdout)!;
    expect(password).toEqual(expect.any(String));
    // The strategy of the database it recovered: 16-18 characters, every class.
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(password.length).toBeLessThanOrEqual(18);
    expect(password).toMatch(/[0-9]/);
    expect(password).toMatch(/[A-Z]/);
    expect(password).toMatch(/[a-z]/);
    // Shown once.
    expect(run.stdout.split(password)).toHaveLength(2);
    expect(run.stdout).toContain(
      `Recovered account "${user.username}" (${user.id}): unlocked, enabled, password reset.`,
    );

    const row = await app.userRow(user.id);
    expect(Boolean(row.locked)).toBe(false);
    expect(Boolean(row.disabled)).toBe(false);
    expect(row.unlock_time).toBeNull();
    expect(row.password_update_time).toBeNull();

    // The clock of the service under test follows the real one the command used.
    app.clock.set(Date.now() + 1_000);
    expect((await app.login(user.username, user.password)).body.code).toBe('BAD_CREDENTIALS');
    expect((await app.login(user.username, 'Wrong#pass2')).body.code).toBe('BAD_CREDENTIALS');
    // Two failures after the recovery (of three allowed): the two before it no longer count.
    const login = await app.login(user.username, password);
    expect(login.body).toMatchObject({ success: true, data: { tempUser: true, forceUpdatePassword: true } });

    const [audit] = await app.db.query("SELECT * FROM sys_audit_log WHERE action = 'user.recover'");
    expect(audit).toMatchObject({ user_id: 'system', username: 'system', target: user.id, target_name: user.username });
    expect(JSON.parse(audit.detail)).toEqual({ username: user.username, unlocked: true, enabled: true });
    expect(JSON.stringify(await app.db.query('SELECT * FROM sys_audit_log'))).not.toContain(password);
  }, 60_000);

  it('ends the sessions of the account it recovers when they live in Redis, and says so when they cannot be reached', async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const run = await recover(user.username);
    expect(run.code).toBe(0);
    const info = await app.post('/sys/me/info', {}, { token });
    if (backend.name === 'mariadb+redis') {
      expect(run.stdout).toContain('Its sessions have ended.');
      expect(info.body.code).toBe('NOT_LOGGED_IN');
    } else {
      expect(run.stdout).toContain(
        "REDIS_URL is not set: its sessions live in the running service's memory; restart the service to end them.",
      );
    }
  }, 60_000);

  it('finds the account by its user name in any case, as a login does', async () => {
    const user = await createActiveUser(app);
    const run = await recover(user.username.toUpperCase());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Recovered account "${user.username}" (${user.id})`);
  }, 60_000);

  it("leaves the service's own work alone: a due notification in the outbox stays for the service to send", async () => {
    const user = await createActiveUser(app);
    // The service under test runs a day behind, so that only the command would find the row due.
    const dayMs = 86_400_000;
    app.clock.set(Date.now() - dayMs);
    try {
      const id = randomUUID();
      await app.db
        .createQueryBuilder()
        .insert()
        .into(NotificationEntity)
        .values({
          id,
          userId: user.id,
          channel: 'email',
          kind: NotificationKind.LOGIN_FAILED,
          payload: '{}',
          status: 'pending',
          attempts: 0,
          nextAttemptAt: new Date(Date.now() - 60_000),
          createTime: new Date(Date.now() - 60_000),
        } as any)
        .execute();
      const run = await recover(user.username);
      expect(run.code).toBe(0);
      const [row] = await app.db.query('SELECT status, attempts FROM sys_notification WHERE id = ?', [id]);
      expect(row).toMatchObject({ status: 'pending' });
      expect(Number(row.attempts)).toBe(0);
    } finally {
      app.clock.set(Date.now());
    }
  }, 60_000);

  it('answers an unknown user name with one line and exit code 1, and changes nothing', async () => {
    const audits = (await app.db.query('SELECT COUNT(*) AS n FROM sys_audit_log'))[0].n;
    const run = await recover('no_such_user');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('No user with the user name "no_such_user".\n');
    expect((await app.db.query('SELECT COUNT(*) AS n FROM sys_audit_log'))[0].n).toBe(audits);
  }, 60_000);

  it("refuses another service's AUDIT_HMAC_KEY in one line naming it, and changes nothing", async () => {
    const user = await createActiveUser(app);
    expect((await app.admin('/sys/user/lock', { id: user.id })).body.success).toBe(true);
    const audits = (await app.db.query('SELECT COUNT(*) AS n FROM sys_audit_log'))[0].n;
    const run = await runCommand(script, [user.username], {
      ...env,
      AUDIT_HMAC_KEY: randomBytes(32).toString('base64'),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Cannot recover: AUDIT_HMAC_KEY: /);
    noStack(run.stderr);
    expect((await app.db.query('SELECT COUNT(*) AS n FROM sys_audit_log'))[0].n).toBe(audits);
    expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
  }, 60_000);
});

/**
 * ADMIN_MODE=three: the command works as in single mode, and `--reset-mfa` lets a sole administrator
 * who lost the authenticator and the recovery codes back in.
 */
describe.each(BACKENDS)('the recovery command with ADMIN_MODE=three on $name', (backend) => {
  let app: TestApp;
  let script: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    script = join(await buildCommands(), 'src', 'cli', 'admin-recover.js');
    app = await startApp(backend, { env: { ADMIN_MODE: 'three' } });
    env = { ...app.provisioned.env, BCRYPT_COST: '4', ADMIN_MODE: 'three' };
  }, 240_000);
  afterAll(() => app.close());

  const passwordIn = (stdout: string) => /^One-time password \(shown only now\): (\S+)$/m.exec(stdout)?.[1];
  const count = async (table: string, id: string) =>
    Number((await app.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`, [id]))[0].n);

  it('with --reset-mfa removes the TOTP and recovery codes of an administrator who lost both, and audits it', async () => {
    const token = await app.token('secadmin', ADMIN_PASSWORD);
    // Asked of every enrolled user (the security administrator holds the login strategy in this mode).
    expect((await app.post('/sys/strategy/login/save', { mfaMode: 1 }, { token })).body.success).toBe(true);
    const [{ id }] = await app.db.query('SELECT id FROM sys_user WHERE username = ?', ['secadmin']);
    const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token })).body.data;
    const enabled = await app.post(
      '/sys/me/mfa/enable',
      { code: totpCode(secret, stepAt(app.clock.nowMs())) },
      { token },
    );
    expect(enabled.body.success).toBe(true);
    expect((await app.login('secadmin', ADMIN_PASSWORD)).body.data).toMatchObject({ mfaRequired: true });
    expect(await count('sys_user_recovery_code', id)).toBeGreaterThan(0);

    const run = await runCommand(script, ['secadmin', '--reset-mfa'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Recovered account "secadmin" (${id}): password reset, second factor removed.`);
    expect(run.stdout).not.toMatch(/^\s+at /m);
    expect(await count('sys_user_mfa', id)).toBe(0);
    expect(await count('sys_user_recovery_code', id)).toBe(0);

    app.clock.set(Date.now() + 1_000);
    const login = await app.login('secadmin', passwordIn(run.stdout)!);
    expect(login.body.data).toMatchObject({ mfaRequired: false, accessToken: expect.any(String) });
    // Its role is untouched: the command changes no role in either mode.
    const roles = await app.db.query('SELECT role_code FROM sys_user_role WHERE user_id = ?', [id]);
    expect(roles.map((r: any) => r.role_code)).toEqual(['secadmin']);
    const audits = await app.db.query(
      "SELECT action, user_id, target, detail FROM sys_audit_log WHERE action IN ('user.recover', 'user.mfaReset') AND target = ? ORDER BY id",
      [id],
    );
    expect(audits.map((a: any) => [a.action, a.user_id])).toEqual([
      ['user.recover', 'system'],
      ['user.mfaReset', 'system'],
    ]);
    expect(JSON.parse(audits[1].detail)).toEqual({ username: 'secadmin', by: 'admin:recover' });
  }, 60_000);

  it('says when there was no second factor to remove, and audits no removal', async () => {
    const run = await runCommand(script, ['--reset-mfa', 'auditadmin'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The account had no second factor to remove.');
    expect(run.stdout).toContain('Recovered account "auditadmin"');
    const [{ id }] = await app.db.query('SELECT id FROM sys_user WHERE username = ?', ['auditadmin']);
    const rows = await app.db.query("SELECT id FROM sys_audit_log WHERE action = 'user.mfaReset' AND target = ?", [id]);
    expect(rows).toEqual([]);
  }, 60_000);
});

/** Backend-independent: the command's answers to a wrong call. */
describe("the recovery command's usage and failures", () => {
  let script: string;
  beforeAll(async () => {
    script = join(await buildCommands(), 'src', 'cli', 'admin-recover.js');
  }, 240_000);
  const noStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

  it('prints its usage and exits 2 without a user name, and reports a bad configuration in one line', async () => {
    const usage = { code: 2, stdout: '', stderr: 'Usage: npm run admin:recover -- <username> [--reset-mfa]\n' };
    expect(await runCommand(script, [], {})).toEqual(usage);
    expect(await runCommand(script, ['--reset-mfa'], {})).toEqual(usage);
    expect(await runCommand(script, ['admin', 'root'], {})).toEqual(usage);
    expect(await runCommand(script, ['admin', '--force'], {})).toEqual(usage);
    const bad = await runCommand(script, ['admin'], { DATABASE_URL: 'mysql://root@127.0.0.1:1/nothing' });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([
      'Recovery failed (Error ECONNREFUSED). Check DATABASE_URL and REDIS_URL, and that the database is reachable.',
    ]);
    noStack(bad.stdout + bad.stderr);
  }, 60_000);

  it('refuses a SQLite database that does not exist instead of creating one (and its admin) and reporting success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lps-recover-'));
    try {
      const path = join(dir, 'typo.sqlite');
      const run = await runCommand(script, ['admin'], { DATABASE_URL: `sqlite:${path}` });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toEqual([`No database at ${path}. Check DATABASE_URL.`]);
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
