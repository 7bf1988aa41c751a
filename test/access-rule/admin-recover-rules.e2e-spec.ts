import { join } from 'node:path';

import { BACKENDS } from '../support/backends';
import { buildCommands, runCommand } from '../support/built-command';
import { createActiveUser, createRole } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/**
 * `npm run admin:recover -- <username>` also disables every login access rule that could refuse
 * that user (src/cli/admin-recover.ts), audited, and says so; the running service applies it at
 * once with Redis, within its rules' cache lifetime (a minute) without.
 */
describe.each(BACKENDS)('admin:recover and the access rules on $name', (backend) => {
  let app: TestApp;
  let script: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    script = join(await buildCommands(), 'src', 'cli', 'admin-recover.js');
    app = await startApp(backend);
    env = { ...app.provisioned.env, BCRYPT_COST: '4' };
  }, 240_000);
  afterAll(() => app.close());

  const rule = async (input: object) => {
    const res = await app.admin('/sys/accessRule/save', input);
    if (!res.body.success) throw new Error(`rule save failed: ${res.body.message}`);
    return res.body.data as { id: string; name: string };
  };
  const enabledOf = async (id: string) =>
    Boolean((await app.db.query('SELECT enabled FROM sys_access_rule WHERE id = ?', [id]))[0].enabled);

  it('disables the rules that would refuse the user, leaves the others, audits each, and the user gets in', async () => {
    await createRole(app, 'rec_staff', ['sys:online:list']);
    const user = await createActiveUser(app, { roles: ['rec_staff'] });
    const other = await createActiveUser(app);
    const me = (await app.admin('/sys/me/info')).body.data.id as string;
    const lab = await rule({ name: 'lab', action: 'deny', ipRanges: ['10.66.0.0/16'], users: [user.id] });
    const staff = await rule({
      name: 'staff office',
      action: 'allow',
      ipRanges: ['10.1.0.0/16'],
      roles: ['rec_staff'],
    });
    const others = await rule({ name: 'not him', action: 'deny', users: [other.id] });
    const admins = await rule({ name: 'admins', action: 'allow', ipRanges: ['10.9.9.0/24'], users: [me] });
    expect((await app.login(user.username, user.password, { ip: '10.66.0.5' })).body.code).toBe('ACCESS_DENIED');
    expect((await app.login(user.username, user.password, { ip: '10.20.0.5' })).body.code).toBe('ACCESS_DENIED');

    const run = await runCommand(script, [user.username], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `Disabled 2 login access rule(s) that could refuse this user: "lab" (deny, ${lab.id}), "staff office" (allow, ${staff.id}).`,
    );
    expect(run.stdout).toContain(
      backend.name === 'mariadb+redis'
        ? 'Every instance applies this at once.'
        : "REDIS_URL is not set: the running service applies this within a minute (its rules' cache).",
    );
    expect([await enabledOf(lab.id), await enabledOf(staff.id)]).toEqual([false, false]);
    expect([await enabledOf(others.id), await enabledOf(admins.id)]).toEqual([true, true]);
    const audits = await app.db.query(
      "SELECT * FROM sys_audit_log WHERE action = 'accessRule.save' AND user_id = 'system' ORDER BY id",
    );
    expect(audits.map((r: any) => [r.target, r.target_name, JSON.parse(r.detail)])).toEqual(
      [lab, staff].map((r) => [
        r.id,
        r.name,
        { old: { enabled: true }, new: { enabled: false }, reason: 'admin:recover', userId: user.id },
      ]),
    );

    // With Redis the running service dropped its rules at once; without, its cache lives a minute.
    if (backend.name === 'sqlite+memory') app.clock.advance(61_000);
    const password = /^One-time password \(shown only now\): (\S+)$/m.exec(run.stdout)![1];
    const login = await app.login(user.username, password, { ip: '10.66.0.5' });
    expect(login.body.code).toBe('OK');
  }, 60_000);

  it('says so when no rule refuses the user', async () => {
    const user = await createActiveUser(app);
    const run = await runCommand(script, [user.username], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No login access rule refuses this user.');
  }, 60_000);
});
