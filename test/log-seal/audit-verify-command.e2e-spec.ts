import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { BACKENDS } from '../support/backends';
import { buildCommands, runCommand } from '../support/built-command';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/**
 * `npm run audit:verify` (src/cli/audit-verify.ts) run as the server would run it, with the
 * service's environment, against the database of a running service.
 */
describe.each(BACKENDS)('the verification command on $name', (backend) => {
  let app: TestApp;
  let script: string;
  let env: Record<string, string>;
  const key = randomBytes(32).toString('base64');

  beforeAll(async () => {
    script = join(await buildCommands(), 'src', 'cli', 'audit-verify.js');
    app = await startApp(backend, { env: { AUDIT_HMAC_KEY: key } });
    env = { ...app.provisioned.env, AUDIT_HMAC_KEY: key };
    const user = await createActiveUser(app);
    await app.login(user.username, 'Wrong#pass1');
    await app.admin('/sys/user/lock', { id: user.id });
  }, 240_000);
  afterAll(() => app.close());

  const verify = (...args: string[]) => runCommand(script, args, env);

  it('seals what the service wrote, checks both logs, prints the answer and exits 0; audited as by system', async () => {
    const rows =
      Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_login_log'))[0].n) +
      Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_audit_log'))[0].n);
    const run = await verify();
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.code).toBe(0);
    const [json, summary] = run.stdout.trim().split('\n');
    expect(JSON.parse(json)).toEqual({ ok: true, checked: rows, unsealed: 0, firstBad: null });
    expect(summary).toBe(`Both logs verify: ${rows} sealed row(s) checked.`);
    const [row] = await app.db.query(
      "SELECT user_id, username, detail FROM sys_audit_log WHERE action = 'auditLog.verify' ORDER BY id DESC",
    );
    expect(row).toMatchObject({ user_id: 'system', username: 'system' });
    expect(JSON.parse(row.detail)).toMatchObject({ ok: true, checked: rows });
  }, 60_000);

  it('names the first bad row and exits 1', async () => {
    const [{ id }] = await app.db.query("SELECT id FROM sys_audit_log WHERE action = 'user.lock' ORDER BY id");
    await app.db.query("UPDATE sys_audit_log SET ip = '198.51.100.1' WHERE id = ?", [id]);
    const run = await verify();
    // As one object, so that a failure shows what the command wrote to stderr.
    expect(run).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`Bad row: sys_audit_log id ${id} is altered`),
    });
    expect(JSON.parse(run.stdout.split('\n')[0]).firstBad).toEqual({
      table: 'sys_audit_log',
      id: String(id),
      reason: 'altered',
    });
  }, 60_000);

  // Each command is a Node process that loads the service's modules, slow to start on a busy host:
  // each gets the time admin-recover.e2e-spec.ts gives its commands, and this case runs three.
  it('refuses another key, or none when the service has one, without sealing anything; arguments are a usage error (exit 2)', async () => {
    await app.login('nobody', 'Wrong#pass1');
    const unsealed = async () =>
      Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_login_log WHERE seal_seq IS NULL'))[0].n);
    // The service's sealer may take the new row meanwhile; the command must not.
    for (const wrong of [{ AUDIT_HMAC_KEY: randomBytes(32).toString('base64') }, { AUDIT_HMAC_KEY: '' }]) {
      const run = await runCommand(script, [], { ...env, ...wrong });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^Cannot verify: AUDIT_HMAC_KEY: /);
    }
    expect(await app.db.query("SELECT prop_key FROM sys_props WHERE prop_key = 'audit_hmac_key'")).toEqual([]);
    expect(await unsealed()).toBeLessThanOrEqual(1);
    const usage = await verify('--all');
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim()).toBe('Usage: npm run audit:verify');
  }, 180_000);
});
