import { SYSTEM_ACTOR } from '../audit/audit-log.service';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginRecordedEvent } from '../login-log/login-log.events';
import { urlProblem } from './dto/webhook.dto';
import { WEBHOOK_RETRY } from './webhook.channel';
import { fromAudit, fromLogin } from './webhook-events';

const AT = new Date('2025-06-01T08:00:00Z');
const admin = { actorId: 'a1', actorName: 'admin', ip: '10.9.9.9' };

describe('webhook events (what other systems are told)', () => {
  it('tells the account changes of the audit log, and no other action', () => {
    expect(fromAudit({ action: 'user.unlock', ...admin, targetId: 'u1', targetName: 'zhangsan' }, AT)).toEqual({
      type: 'account.unlocked',
      time: AT,
      data: { userId: 'u1', username: 'zhangsan', by: { userId: 'a1', username: 'admin', ip: '10.9.9.9' } },
    });
    for (const action of [
      'role.save',
      'strategy.login.save',
      'online.kickout',
      'user.mfaReset',
      'webhook.save',
    ] as const)
      expect(fromAudit({ action, ...admin, targetId: 'x' }, AT)).toBeNull();
  });

  it('a lock says whether wrong passwords or an administrator did it, and until when', () => {
    const unlockTime = new Date('2025-06-02T08:00:00Z');
    const byFailures = fromAudit(
      {
        action: 'user.lock',
        ...SYSTEM_ACTOR,
        targetId: 'u1',
        targetName: 'zhangsan',
        detail: { reason: 'failures', failures: 5, old: { locked: false }, new: { locked: true, unlockTime } },
      },
      AT,
    );
    expect(byFailures?.data).toEqual({
      userId: 'u1',
      username: 'zhangsan',
      reason: 'failures',
      failures: 5,
      unlockTime: unlockTime.toISOString(),
      by: { userId: 'system', username: 'system' },
    });
    const byAdmin = fromAudit({ action: 'user.lock', ...admin, targetId: 'u1', detail: { new: { locked: true } } }, AT);
    expect(byAdmin?.data).toMatchObject({ reason: 'admin', unlockTime: null });
    const dormant = fromAudit(
      { action: 'user.disable', ...SYSTEM_ACTOR, targetId: 'u1', detail: { reason: 'dormant' } },
      AT,
    );
    expect(dormant?.data.reason).toBe('dormant');
  });

  it('a login record is a success or a failure, with no user for an account nobody holds', () => {
    const record = (status: LoginStatus, userId: string | null, failure: string | null) =>
      new LoginRecordedEvent(
        userId,
        'zhangsan',
        LoginTypes.ACCOUNT,
        status,
        '10.0.0.1',
        'Chrome',
        'Linux',
        failure,
        AT,
      );
    expect(fromLogin(record(LoginStatus.SUCCESS, 'u1', null), 'zhangsan')).toEqual({
      type: 'login.succeeded',
      time: AT,
      data: {
        userId: 'u1',
        username: 'zhangsan',
        account: 'zhangsan',
        loginType: 'account',
        ip: '10.0.0.1',
        browser: 'Chrome',
        os: 'Linux',
      },
    });
    for (const status of [
      LoginStatus.PASSWRONG,
      LoginStatus.MFAWRONG,
      LoginStatus.LOCKED,
      LoginStatus.DISABLED,
      LoginStatus.EXPIRED,
    ])
      expect(fromLogin(record(status, null, 'BAD_CREDENTIALS'), null)).toMatchObject({
        type: 'login.failed',
        data: { userId: null, username: null, status, reason: 'BAD_CREDENTIALS' },
      });
  });

  it('retries within a minute first, then for about a day', () => {
    const delays = Array.from({ length: WEBHOOK_RETRY.maxAttempts - 1 }, (_, i) => WEBHOOK_RETRY.delayMs(i + 1));
    expect(delays[0]).toBeLessThanOrEqual(60_000);
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(30 * 3_600_000);
  });

  it('takes any http or https URL, internal ones too, but no other scheme and no credentials', () => {
    for (const ok of [
      'http://10.0.0.1/x',
      'https://localhost:8443/h?x=1',
      'http://[::1]/h',
      'https://hooks.corp.internal',
    ])
      expect([ok, urlProblem(ok)]).toEqual([ok, null]);
    for (const bad of ['ftp://x/y', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://x', 'hooks.example', ''])
      expect([bad, urlProblem(bad)]).toEqual([bad, 'validation.webhookUrl']);
    for (const bad of ['https://u:p@x.example/', 'https://u@x.example/', 'http://:p@x.example/'])
      expect([bad, urlProblem(bad)]).toEqual([bad, 'validation.webhookUrlCredentials']);
  });
});
