import { EventEmitter2 } from '@nestjs/event-emitter';

import { ACCESS_RULES_GROUP } from '../../src/access-rule/access-rule.service';
import { stepAt, totpCode } from '../../src/mfa/totp';
import { SysPropsChangedEvent } from '../../src/strategy/strategy.types';
import { BACKENDS } from '../support/backends';
import { createActiveUser, createRole, TestUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { startApp, TestApp } from '../support/test-app';

/**
 * Login access rules (src/access-rule) on both backends: what a rule set lets in, that every way in
 * meets it after its proof, what is logged and counted, the administrator's own guard, and the
 * refusals of bad input. Times move on the injected clock; the rules read them in DISPLAY_TIMEZONE
 * (Asia/Shanghai here, UTC+8 all year).
 */

const ADMIN_IP = '10.9.9.9';
/** Monday 2025-01-06 10:00 in Shanghai (02:00 UTC). */
const MON_10_SHANGHAI = Date.parse('2025-01-06T02:00:00Z');
const HOUR = 3_600_000;

interface RuleInput {
  id?: string;
  name?: string;
  action: 'allow' | 'deny';
  ipRanges?: string[];
  timeWindows?: { days: number[]; start: string; end: string }[];
  roles?: string[];
  users?: string[];
  enabled?: boolean;
}

describe.each(BACKENDS)('login access rules on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend, { env: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } });
  });
  afterAll(() => app.close());
  afterEach(async () => {
    // Straight from the table (a rule set may refuse the admin at the time a test left the clock),
    // then the change announced as a save announces it.
    await app.db.query('DELETE FROM sys_access_rule');
    await app.app.get(EventEmitter2).emitAsync(SysPropsChangedEvent.NAME, new SysPropsChangedEvent(ACCESS_RULES_GROUP));
    await app.saveLoginStrategy({ mfaMode: 0, maxFailureTimes: 5 });
  });

  /** Saves as the admin (from ADMIN_IP) and insists on success. */
  async function rule(input: RuleInput) {
    const res = await app.admin('/sys/accessRule/save', { name: 'rule', ...input });
    if (!res.body.success) throw new Error(`rule save failed: ${res.body.code} ${res.body.message}`);
    return res.body.data;
  }
  const list = async () => (await app.admin('/sys/accessRule/list')).body.data as any[];
  const loginFrom = (user: TestUser, ip: string, password = user.password) =>
    app.login(user.username, password, { ip });
  const statuses = async (user: TestUser) => (await app.logRows(user.username)).map((r) => r.status);
  const auditRows = (action: string) =>
    app.db.query('SELECT * FROM sys_audit_log WHERE action = ? ORDER BY id', [action]) as Promise<any[]>;

  describe('what a rule set lets in', () => {
    it('allows only from the ranges of an allow rule, IPv4 and IPv6', async () => {
      const user = await createActiveUser(app);
      await rule({ action: 'allow', ipRanges: ['10.20.0.0/16', '2001:db8:20::/48', '192.168.7.7'], users: [user.id] });
      for (const ip of ['10.20.3.4', '2001:db8:20:1::5', '192.168.7.7']) {
        expect((await loginFrom(user, ip)).body.code).toBe('OK');
      }
      for (const ip of ['10.21.0.1', '2001:db8:21::5', '192.168.7.8']) {
        const res = await loginFrom(user, ip);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          success: false,
          code: 'ACCESS_DENIED',
          message: '当前网络或时间不允许登录',
          data: null,
        });
      }
      const en = await app.login(user.username, user.password, {
        ip: '10.21.0.1',
        headers: { 'accept-language': 'en' },
      });
      expect(en.body.message).toBe('Logging in is not allowed from this network or at this time');
    });

    it('lets a matching deny win over a matching allow', async () => {
      const user = await createActiveUser(app);
      await rule({ action: 'allow', ipRanges: ['10.30.0.0/16'], users: [user.id] });
      await rule({ action: 'deny', ipRanges: ['10.30.66.0/24'], users: [user.id] });
      expect((await loginFrom(user, '10.30.1.1')).body.code).toBe('OK');
      expect((await loginFrom(user, '10.30.66.1')).body.code).toBe('ACCESS_DENIED');
    });

    it('reads time windows on the wall clock of DISPLAY_TIMEZONE, across midnight too', async () => {
      const user = await createActiveUser(app);
      app.clock.set(MON_10_SHANGHAI);
      // Weekdays 09:00–18:00 Shanghai. At 02:00 UTC it is 10:00 there: a rule read in UTC would refuse.
      await rule({
        action: 'allow',
        timeWindows: [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' }],
        users: [user.id],
      });
      expect((await loginFrom(user, '10.0.0.1')).body.code).toBe('OK');
      // Monday 20:00 Shanghai = 12:00 UTC: refused, though a UTC reading would allow it.
      app.clock.set(MON_10_SHANGHAI + 10 * HOUR);
      expect((await loginFrom(user, '10.0.0.1')).body.code).toBe('ACCESS_DENIED');

      // Sunday 22:00 to Monday 06:00 in Shanghai: Sunday 23:30 and Monday 05:30 yes, Monday 06:30 no.
      const night = await createActiveUser(app);
      await rule({ action: 'allow', timeWindows: [{ days: [7], start: '22:00', end: '06:00' }], users: [night.id] });
      app.clock.set(MON_10_SHANGHAI - 10.5 * HOUR); // Sunday 23:30 Shanghai
      expect((await loginFrom(night, '10.0.0.1')).body.code).toBe('OK');
      app.clock.set(MON_10_SHANGHAI - 4.5 * HOUR); // Monday 05:30
      expect((await loginFrom(night, '10.0.0.1')).body.code).toBe('OK');
      app.clock.set(MON_10_SHANGHAI - 3.5 * HOUR); // Monday 06:30
      expect((await loginFrom(night, '10.0.0.1')).body.code).toBe('ACCESS_DENIED');
      app.clock.set(MON_10_SHANGHAI + 12.5 * HOUR); // Monday 22:30: Monday is not a listed day
      expect((await loginFrom(night, '10.0.0.1')).body.code).toBe('ACCESS_DENIED');
    });

    it('applies a rule to its users, to holders of its roles, or to everyone', async () => {
      await createRole(app, 'ar_ops', ['sys:online:list']);
      const op = await createActiveUser(app, { roles: ['ar_ops'] });
      const named = await createActiveUser(app);
      const other = await createActiveUser(app);
      const byRole = await rule({ action: 'deny', ipRanges: ['10.40.0.0/16'], roles: ['ar_ops'] });
      await rule({ action: 'deny', ipRanges: ['10.41.0.0/16'], users: [named.id] });
      expect((await loginFrom(op, '10.40.0.1')).body.code).toBe('ACCESS_DENIED');
      expect((await loginFrom(named, '10.40.0.1')).body.code).toBe('OK');
      expect((await loginFrom(named, '10.41.0.1')).body.code).toBe('ACCESS_DENIED');
      expect((await loginFrom(op, '10.41.0.1')).body.code).toBe('OK');
      expect((await loginFrom(other, '10.40.0.1')).body.code).toBe('OK');
      // Naming nobody: everyone, the admin too (saved from outside the range).
      await rule({ ...strip(byRole), roles: [] });
      expect((await loginFrom(other, '10.40.0.1')).body.code).toBe('ACCESS_DENIED');
      expect((await app.login('admin', 'Admin@12345', { ip: '10.40.0.1' })).body.code).toBe('ACCESS_DENIED');
    });

    it('ignores a disabled rule, and a rule disabled by its save is ignored at once', async () => {
      const user = await createActiveUser(app);
      const deny = await rule({ action: 'deny', ipRanges: ['10.50.0.0/16'], users: [user.id], enabled: false });
      expect((await loginFrom(user, '10.50.0.1')).body.code).toBe('OK');
      await rule({ ...strip(deny), enabled: true });
      expect((await loginFrom(user, '10.50.0.1')).body.code).toBe('ACCESS_DENIED');
      await rule({ ...strip(deny), enabled: false });
      expect((await loginFrom(user, '10.50.0.1')).body.code).toBe('OK');
    });
  });

  describe('after the proof, and not counted', () => {
    it('answers a wrong password with BAD_CREDENTIALS, counted, while the rule would refuse; ACCESS_DENIED is logged denied and never locks', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 3 });
      const user = await createActiveUser(app);
      await rule({ action: 'deny', ipRanges: ['10.60.0.0/16'], users: [user.id] });
      for (let i = 0; i < 5; i++) expect((await loginFrom(user, '10.60.0.1')).body.code).toBe('ACCESS_DENIED');
      expect(Boolean((await app.userRow(user.id)).locked)).toBe(false);
      // After the success of createActiveUser's own login.
      const rows = (await app.logRows(user.username)).slice(1);
      expect(rows.map((r) => [r.status, r.failure_code, r.ip])).toEqual(
        Array.from({ length: 5 }, () => ['denied', 'ACCESS_DENIED', '10.60.0.1']),
      );
      const listed = await app.admin('/sys/loginLog/list', {
        pageNum: 1,
        pageSize: 10,
        status: 'denied',
        account: user.username,
      });
      expect(listed.body.data.total).toBe(5);
      expect(listed.body.data.rows[0]).toMatchObject({ status: 'denied', failureCode: 'ACCESS_DENIED' });

      // A wrong password from the refused network: the answer of any wrong password, counted.
      expect((await loginFrom(user, '10.60.0.1', 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
      expect((await loginFrom(user, '10.60.0.1', 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
      expect(Boolean((await app.userRow(user.id)).locked)).toBe(false);
      expect((await loginFrom(user, '10.60.0.1', 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
      expect(Boolean((await app.userRow(user.id)).locked)).toBe(true);
      expect((await statuses(user)).slice(6)).toEqual(['passwrong', 'passwrong', 'passwrong']);
      // Locked: the lock answers first, before any rule.
      expect((await loginFrom(user, '10.0.0.1')).body.code).toBe('ACCOUNT_LOCKED');
    });

    it('refuses the QR way in from a refused network', async () => {
      const user = await createActiveUser(app);
      await rule({ action: 'deny', ipRanges: ['10.70.0.0/16'], users: [user.id] });
      const token = await app.token(user.username, user.password, { ip: '10.0.0.1' });
      const code = (await app.post('/auth/qrcode/generate', {}, { token })).body.data.code;
      const refused = await app.post('/auth/qrcode/verify', { code }, { ip: '10.70.0.9' });
      expect(refused.body.code).toBe('ACCESS_DENIED');
      const [row] = (await app.logRows(user.username)).slice(-1);
      expect(row).toMatchObject({ status: 'denied', login_type: 'qrcode', ip: '10.70.0.9' });
      const code2 = (await app.post('/auth/qrcode/generate', {}, { token })).body.data.code;
      expect((await app.post('/auth/qrcode/verify', { code: code2 }, { ip: '10.0.0.7' })).body.code).toBe('OK');
    });

    it('second factor: refused at the password step before any code is asked, and again at the second step from its own IP', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const { secret } = (await app.post('/sys/me/mfa/setup', {}, { token })).body.data;
      expect(
        (await app.post('/sys/me/mfa/enable', { code: totpCode(secret, stepAt(app.clock.nowMs())) }, { token })).body
          .code,
      ).toBe('OK');
      await app.post('/sys/logout', {}, { token });
      app.clock.advance(30_000);
      await app.saveLoginStrategy({ mfaMode: 1 });
      await rule({ action: 'deny', ipRanges: ['10.80.0.0/16'], users: [user.id] });

      const first = await loginFrom(user, '10.80.0.1');
      expect(first.body).toMatchObject({ code: 'ACCESS_DENIED', data: null });

      const held = await loginFrom(user, '10.0.0.1');
      expect(held.body.data).toMatchObject({ mfaRequired: true, accessToken: null });
      const mfaToken = (held.body.data as any).mfaToken as string;
      // A wrong code from the refused network tells nothing about the rules.
      const wrong = await app.post('/sys/login/mfa', { mfaToken, code: '000000' }, { ip: '10.80.0.2' });
      expect(wrong.body.code).toBe('MFA_CODE_INVALID');
      const code = totpCode(secret, stepAt(app.clock.nowMs()));
      const second = await app.post('/sys/login/mfa', { mfaToken, code }, { ip: '10.80.0.2' });
      expect(second.body.code).toBe('ACCESS_DENIED');
      const rows = (await app.logRows(user.username)).slice(-3);
      expect(rows.map((r) => [r.status, r.login_type, r.ip])).toEqual([
        ['denied', 'account', '10.80.0.1'],
        ['mfawrong', 'account', '10.80.0.2'],
        ['denied', 'account', '10.80.0.2'],
      ]);
    });
  });

  describe('the administrator cannot lock themselves out', () => {
    it('refuses a save or an allow rule delete after which the caller could not log in from its IP now, changing nothing', async () => {
      app.clock.set(MON_10_SHANGHAI);
      const before = await auditRows('accessRule.save');
      const elsewhere = await app.admin('/sys/accessRule/save', {
        name: 'vpn only',
        action: 'allow',
        ipRanges: ['10.1.0.0/16'],
      });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body).toEqual({
        success: false,
        code: 'VALIDATION_FAILED',
        message: `操作未执行: 执行后您将无法从当前IP(${ADMIN_IP})在此时登录`,
        data: namesFields('body'),
      });
      const denyMe = await app.admin('/sys/accessRule/save', {
        name: 'x',
        action: 'deny',
        roles: ['admin'],
        ipRanges: ['10.9.0.0/16'],
      });
      expect(denyMe.body.code).toBe('VALIDATION_FAILED');
      const night = await app.admin('/sys/accessRule/save', {
        name: 'nights',
        action: 'allow',
        users: [(await app.post('/sys/me/info', {}, { token: await app.adminToken() })).body.data.id],
        timeWindows: [{ days: [1], start: '22:00', end: '06:00' }],
      });
      expect(night.body.code).toBe('VALIDATION_FAILED');
      expect(await list()).toEqual([]);
      expect(await auditRows('accessRule.save')).toHaveLength(before.length);

      // Disabled, it refuses nobody: saved.
      expect(
        (
          await app.admin('/sys/accessRule/save', {
            name: 'vpn only',
            action: 'allow',
            ipRanges: ['10.1.0.0/16'],
            enabled: false,
          })
        ).body.code,
      ).toBe('OK');
      // With another allow that admits the admin, the narrow one may be on; that other one may then not go.
      const office = await rule({ name: 'admins', action: 'allow', ipRanges: ['10.9.9.0/24'] });
      const vpn = (await list()).find((r) => r.name === 'vpn only');
      expect((await app.admin('/sys/accessRule/save', { ...strip(vpn), enabled: true })).body.code).toBe('OK');
      const gone = await app.admin('/sys/accessRule/delete', { id: office.id });
      expect(gone.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('id') });
      expect((await list()).map((r) => r.name).sort()).toEqual(['admins', 'vpn only']);
      // The narrow one may go; then the last allow may go too (no allow rule: everyone in).
      expect((await app.admin('/sys/accessRule/delete', { id: vpn.id })).body.code).toBe('OK');
      expect((await app.admin('/sys/accessRule/delete', { id: office.id })).body.code).toBe('OK');
      expect(await list()).toEqual([]);
    });
  });

  describe('administration', () => {
    it('lists, replaces and deletes rules, audited with old and new values', async () => {
      const user = await createActiveUser(app);
      const created = await rule({
        name: '办公网',
        action: 'allow',
        ipRanges: [' 10.0.0.0/8 ', '2001:DB8::/32'],
        timeWindows: [{ days: [5, 1, 3], start: '08:00', end: '20:00' }],
        users: [user.id],
      });
      expect(created).toMatchObject({
        id: expect.any(String),
        name: '办公网',
        action: 'allow',
        ipRanges: ['10.0.0.0/8', '2001:db8::/32'],
        timeWindows: [{ days: [1, 3, 5], start: '08:00', end: '20:00' }],
        roles: [],
        users: [user.id],
        enabled: true,
        userRefs: [{ id: user.id, username: user.username }],
      });
      expect(await list()).toEqual([JSON.parse(JSON.stringify(created))]);

      const replaced = await rule({ id: created.id, name: '办公网', action: 'deny', ipRanges: ['10.77.0.0/16'] });
      expect(replaced).toMatchObject({ id: created.id, action: 'deny', timeWindows: [], users: [], userRefs: [] });
      const saves = await auditRows('accessRule.save');
      expect(saves.slice(-2).map((r) => [r.target, r.target_name, r.ip])).toEqual([
        [created.id, '办公网', ADMIN_IP],
        [created.id, '办公网', ADMIN_IP],
      ]);
      const detail = JSON.parse(saves[saves.length - 1].detail);
      expect(detail.old).toEqual({
        action: 'allow',
        ipRanges: ['10.0.0.0/8', '2001:db8::/32'],
        timeWindows: [{ days: [1, 3, 5], start: '08:00', end: '20:00' }],
        users: [user.id],
      });
      expect(detail.new).toEqual({ action: 'deny', ipRanges: ['10.77.0.0/16'], timeWindows: [], users: [] });

      expect((await app.admin('/sys/accessRule/delete', { id: created.id })).body).toMatchObject({
        code: 'OK',
        data: null,
      });
      expect(await list()).toEqual([]);
      const [deleted] = (await auditRows('accessRule.delete')).slice(-1);
      expect(deleted).toMatchObject({ target: created.id, target_name: '办公网' });
      expect((await app.admin('/sys/accessRule/delete', { id: created.id })).body.code).toBe('NOT_FOUND');
      expect((await app.admin('/sys/accessRule/save', { id: created.id, name: 'x', action: 'deny' })).body.code).toBe(
        'NOT_FOUND',
      );
    });

    it('needs its permission codes', async () => {
      await createRole(app, 'ar_reader', ['sys:accessRule:list']);
      const reader = await createActiveUser(app, { roles: ['ar_reader'] });
      const token = await app.token(reader.username, reader.password);
      expect((await app.post('/sys/accessRule/list', {}, { token })).body.code).toBe('OK');
      expect(
        (await app.post('/sys/accessRule/check', { userId: reader.id, ip: '10.0.0.1' }, { token })).body.code,
      ).toBe('OK');
      expect((await app.post('/sys/accessRule/save', { name: 'x', action: 'deny' }, { token })).body.code).toBe(
        'FORBIDDEN',
      );
      expect((await app.post('/sys/accessRule/delete', { id: 'x' }, { token })).body.code).toBe('FORBIDDEN');
    });

    it.each([
      ['a bad CIDR', { ipRanges: ['10.0.0.0/8', '10.0.0.0/33'] }, ['ipRanges.1'], 'IP范围第2项不是IP地址或CIDR网段'],
      ['an address with a zone', { ipRanges: ['fe80::1%eth0'] }, ['ipRanges.0'], 'IP范围第1项'],
      [
        'a bad HH:mm',
        { timeWindows: [{ days: [1], start: '9:00', end: '25:00' }] },
        ['timeWindows.0.start', 'timeWindows.0.end'],
        '应为HH:mm格式',
      ],
      [
        'a day out of range',
        { timeWindows: [{ days: [0, 8], start: '09:00', end: '18:00' }] },
        ['timeWindows.0.days'],
        '星期应为1到7',
      ],
      [
        'a start of 24:00',
        { timeWindows: [{ days: [1], start: '24:00', end: '09:00' }] },
        ['timeWindows.0.start'],
        '时间段第1项的开始时间应为HH:mm格式的时间',
      ],
      ['an unknown role', { roles: ['no_such_role'] }, ['roles'], '角色中有不存在的角色: no_such_role'],
      [
        'an unknown user id',
        { users: ['00000000-0000-0000-0000-000000000000'] },
        ['users'],
        '用户中有不存在的用户: 00000000-0000-0000-0000-000000000000',
      ],
      ['an unknown action', { action: 'maybe' }, ['action'], '规则动作'],
      ['an empty name', { name: '' }, ['name'], '请填写规则名称'],
      [
        'days of the wrong type',
        { timeWindows: [{ days: ['1'], start: '09:00', end: '18:00' }] },
        ['timeWindows.0.days'],
        '时间段第1项的星期',
      ],
      ['a window that is not an object', { timeWindows: [5] }, ['timeWindows.0'], '时间段第1项'],
      [
        'an unknown field in a window',
        { timeWindows: [{ days: [1], start: '09:00', end: '18:00', tz: 'UTC' }] },
        ['timeWindows.0.tz'],
        'tz',
      ],
      ['an unknown field', { priority: 1 }, ['priority'], 'priority'],
    ])('refuses %s with VALIDATION_FAILED naming the field, changing nothing', async (_what, fields, named, zh) => {
      const before = (await auditRows('accessRule.save')).length;
      const res = await app.admin('/sys/accessRule/save', { name: 'bad', action: 'deny', users: [], ...fields });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields(...named) });
      expect(res.body.message).toContain(zh);
      expect(await list()).toEqual([]);
      expect(await auditRows('accessRule.save')).toHaveLength(before);
    });

    it('names the refused fields in English too, all of them at once', async () => {
      const res = await app.post(
        '/sys/accessRule/save',
        {
          name: 'bad',
          action: 'allow',
          ipRanges: ['nope'],
          timeWindows: [{ days: [9], start: '08:00', end: '8pm' }],
          roles: ['ghost'],
        },
        { token: await app.adminToken(), ip: ADMIN_IP, headers: { 'accept-language': 'en' } },
      );
      expect(res.body.data.errors).toEqual([
        {
          field: 'ipRanges.0',
          message: expect.stringContaining('IP ranges entry 1: not an IP address or a CIDR range'),
        },
        {
          field: 'timeWindows.0.days',
          message: 'Time windows entry 1: days: days are 1 to 7 (Monday = 1), each at most once',
        },
        {
          field: 'timeWindows.0.end',
          message: expect.stringContaining('Time windows entry 1: end: not a time of the form HH:mm'),
        },
        { field: 'roles', message: 'Roles: unknown ghost' },
      ]);
    });
  });

  describe('"would this login be allowed?"', () => {
    it("answers with the login's own evaluation and the deciding rule", async () => {
      const user = await createActiveUser(app);
      const check = async (body: object) =>
        (await app.admin('/sys/accessRule/check', { userId: user.id, ...body })).body;
      expect((await check({ ip: '10.90.0.1' })).data).toEqual({ allowed: true, reason: 'none', rule: null });
      const office = await rule({
        name: 'office hours',
        action: 'allow',
        ipRanges: ['10.90.0.0/16'],
        timeWindows: [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' }],
        users: [user.id],
      });
      const deny = await rule({ name: 'lab', action: 'deny', ipRanges: ['10.90.66.0/24'], users: [user.id] });
      const monday10 = new Date(MON_10_SHANGHAI).toISOString();
      expect((await check({ ip: '10.90.0.1', time: monday10 })).data).toEqual({
        allowed: true,
        reason: 'allow',
        rule: { id: office.id, name: 'office hours', action: 'allow' },
      });
      expect((await check({ ip: '10.90.66.1', time: monday10 })).data).toEqual({
        allowed: false,
        reason: 'deny',
        rule: { id: deny.id, name: 'lab', action: 'deny' },
      });
      expect((await check({ ip: '10.90.0.1', time: '2025-01-06T12:00:00Z' })).data).toEqual({
        allowed: false,
        reason: 'noAllowMatch',
        rule: null,
      });
      // Without a time: now, as the login would meet it.
      app.clock.set(MON_10_SHANGHAI);
      expect((await check({ ip: '10.90.0.1' })).data.allowed).toBe(true);
      expect((await loginFrom(user, '10.90.0.1')).body.code).toBe('OK');
      app.clock.set(Date.parse('2025-01-06T12:00:00Z'));
      expect((await check({ ip: '10.90.0.1' })).data.allowed).toBe(false);
      expect((await loginFrom(user, '10.90.0.1')).body.code).toBe('ACCESS_DENIED');
    });

    it('refuses an unknown user and a bad IP, naming them', async () => {
      const res = await app.admin('/sys/accessRule/check', { userId: 'nobody', ip: '10.0.0.300' });
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('userId', 'ip') });
      const time = await app.admin('/sys/accessRule/check', { userId: 'nobody', ip: '10.0.0.1', time: 'yesterday' });
      expect(time.body).toMatchObject({ code: 'VALIDATION_FAILED', data: namesFields('time') });
    });
  });
});

/** A listed rule as a save takes it back (without what the list adds). */
function strip(rule: any): RuleInput {
  const { userRefs: _refs, createTime: _c, updateTime: _u, ...input } = rule;
  return input;
}
