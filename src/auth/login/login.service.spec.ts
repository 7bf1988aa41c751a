import { EventEmitter2 } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';

import { codeOf } from '../../../test/support/code-of';
import { FakeClock } from '../../../test/support/fake-clock';
import {
  InMemoryLoginLogRepository,
  InMemoryRepositories,
  inMemoryRepositories,
  InMemoryUserRepository,
} from '../../../test/support/in-memory';
import { AuditEntry, AuditLogService } from '../../audit/audit-log.service';
import { Clock } from '../../common/clock';
import { ErrorCode } from '../../common/error-code';
import { AppConfig } from '../../config/app-config';
import { LoginStatus, LoginTypes } from '../../login-log/login-log.entity';
import { LoginLogService } from '../../login-log/login-log.service';
import { QrcodeService } from '../../qrcode/qrcode.service';
import { SessionService } from '../../session/session.service';
import { hashToken } from '../../session/session.service';
import { KeyedMutex } from '../../store/keyed-mutex';
import { Keys } from '../../store/keys';
import { KvStore } from '../../store/kv.store';
import { MemoryKvStore } from '../../store/memory-kv.store';
import { StrategyService } from '../../strategy/strategy.service';
import { LoginStrategy, UserStrategy } from '../../strategy/strategy.types';
import { LoginFailedEvent } from '../../user-account/account.events';
import { AccountStateService } from '../../user-account/account-state.service';
import { AdminModeRules } from '../../user-account/admin-mode';
import { CompareSlots } from '../../user-account/compare-slots';
import { LockoutService } from '../../user-account/lockout.service';
import { PasswordHasher } from '../../user-account/password-hasher';
import { PasswordProof } from '../../user-account/password-proof.service';
import { RoleService } from '../../user-account/role.service';
import { SelfProtection } from '../../user-account/self-protection';
import { TargetAccess } from '../../user-account/target-access';
import { UserEntity } from '../../user-account/user.entity';
import { UserLookup } from '../../user-account/user-lookup.service';
import { CaptchaService } from '../captcha/captcha.service';
import { LoginAttackService } from '../captcha/login-attack.service';
import { UnusualIpEvent } from './login.events';
import { LoginRequest, LoginService } from './login.service';

const DAY = 86_400_000;
const MINUTE = 60_000;
const PASSWORD = 'Right-pass1';

/** Plain-text "hashes"; records which passwords were compared and how often a dummy compare ran. */
class FakeHasher extends PasswordHasher {
  compared: string[] = [];
  burns = 0;
  /** Runs while the next compare is in flight (then is cleared): what happens to the account meanwhile. */
  meanwhile: (() => void) | null = null;
  async hash(plain: string) {
    return `hash:${plain}`;
  }
  async matches(plain: string, hash: string) {
    this.compared.push(plain);
    await new Promise((r) => setImmediate(r)); // a compare takes time: let parallel attempts interleave
    const meanwhile = this.meanwhile;
    this.meanwhile = null;
    meanwhile?.();
    return hash === `hash:${plain}`;
  }
  async burn() {
    this.burns++;
  }
}

describe('LoginService', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let repos: InMemoryRepositories;
  let users: InMemoryUserRepository;
  let log: InMemoryLoginLogRepository;
  let hasher: FakeHasher;
  let events: EventEmitter2;
  let loginSettings: LoginStrategy;
  let userSettings: UserStrategy;
  let config: { CAPTCHA_ENABLED: boolean };
  let service: LoginService;
  let sessions: SessionService;
  let qrcodes: QrcodeService;
  let audited: AuditEntry[];
  let mutex: KeyedMutex;

  const addUser = (over: Partial<UserEntity> = {}): UserEntity => {
    const user: UserEntity = {
      id: 'u1',
      username: 'zhangsan',
      name: '张三',
      mobile: '13800138000',
      email: 'zs@example.com',
      password: `hash:${PASSWORD}`,
      passwordUpdateTime: new Date(clock.nowMs() - DAY),
      createTime: new Date(clock.nowMs() - 2 * DAY),
      locked: false,
      unlockTime: null,
      disabled: false,
      failureResetTime: null,
      lastLoginTime: null,
      ...over,
    };
    return users.add(user, ['viewer']);
  };
  const row = (id = 'u1') => users.rows.get(id)!;
  const req = (over: Partial<LoginRequest> = {}): LoginRequest => ({
    account: 'zhangsan',
    password: PASSWORD,
    ip: '10.0.0.1',
    userAgent: 'jest',
    locale: 'en',
    ...over,
  });
  const attempt = (over: Partial<LoginRequest> = {}) => codeOf(service.login(req(over)));

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    repos = inMemoryRepositories();
    users = repos.users;
    await repos.roles.save({ code: 'viewer', name: 'Viewer', permissions: ['sys:user:list'] });
    log = repos.loginLogs;
    hasher = new FakeHasher();
    events = new EventEmitter2();
    audited = [];
    loginSettings = Object.assign(new LoginStrategy(), { maxFailureTimes: 3, maxFailureInterval: 24, lockMinutes: 60 });
    userSettings = Object.assign(new UserStrategy(), {
      passwordExpireDays: 90,
      expireNotifyDays: 10,
      forceUpdatePassword: false,
    });
    config = { CAPTCHA_ENABLED: false };
    const strategy = {
      loginStrategy: async () => ({ ...loginSettings }),
      userStrategy: async () => ({ ...userSettings }),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        LoginService,
        UserLookup,
        AccountStateService,
        LockoutService,
        CompareSlots,
        PasswordProof,
        RoleService,
        AdminModeRules,
        SelfProtection,
        TargetAccess,
        SessionService,
        KeyedMutex,
        CaptchaService,
        LoginAttackService,
        QrcodeService,
        ...repos.providers,
        LoginLogService,
        { provide: PasswordHasher, useValue: hasher },
        { provide: StrategyService, useValue: strategy },
        { provide: AppConfig, useValue: config },
        { provide: KvStore, useValue: store },
        { provide: Clock, useValue: clock },
        { provide: EventEmitter2, useValue: events },
        {
          provide: AuditLogService,
          useValue: {
            record: async (e: AuditEntry) => {
              audited.push(e);
            },
            recordDone: async (action: AuditEntry['action'], e: object | (() => Promise<object>)) => {
              audited.push({ action, ...(typeof e === 'function' ? await e() : e) } as AuditEntry);
            },
          },
        },
      ],
    }).compile();
    service = moduleRef.get(LoginService);
    sessions = moduleRef.get(SessionService);
    qrcodes = moduleRef.get(QrcodeService);
    mutex = moduleRef.get(KeyedMutex);
  });

  afterEach(() => store.close());

  describe('a successful login', () => {
    it('issues a normal token that resolves, and logs success with the matched login type', async () => {
      addUser();
      const result = await service.login(req());
      expect(result).toEqual({
        accessToken: expect.any(String),
        tempUser: false,
        forceUpdatePassword: false,
        tip: '',
        mfaRequired: false,
        mfaToken: null,
        mfaSetupRequired: false,
      });
      const { session } = await sessions.resolve(result.accessToken!);
      expect(session).toMatchObject({ userId: 'u1', temp: 0, ip: '10.0.0.1' });
      expect(log.rows).toEqual([
        expect.objectContaining({ userId: 'u1', status: LoginStatus.SUCCESS, loginType: LoginTypes.ACCOUNT }),
      ]);
    });

    it('finds the account by mobile and by e-mail too', async () => {
      addUser();
      await service.login(req({ account: '13800138000' }));
      await service.login(req({ account: 'zs@example.com' }));
      expect(log.rows.map((r) => r.loginType)).toEqual([LoginTypes.MOBILE, LoginTypes.EMAIL]);
    });

    it('with multiOnline = false the earlier session is kicked out', async () => {
      addUser();
      loginSettings.multiOnline = false;
      const first = await service.login(req());
      const second = await service.login(req());
      expect(await codeOf(sessions.resolve(first.accessToken!))).toBe(ErrorCode.KICKED_OUT);
      expect(await codeOf(sessions.resolve(second.accessToken!))).toBe('ok');
    });
  });

  describe('step 1 and 2', () => {
    it('a wrong captcha is refused before anything is looked up or logged', async () => {
      addUser();
      config.CAPTCHA_ENABLED = true;
      await store.set(Keys.captcha('c1'), 'abcd', MINUTE);
      expect(await attempt({ imgId: 'c1', imgCode: 'zzzz' })).toBe(ErrorCode.CAPTCHA_INVALID);
      expect(await attempt({ imgId: 'c1', imgCode: 'abcd' })).toBe(ErrorCode.CAPTCHA_INVALID); // single use
      expect(log.rows).toEqual([]);
      expect(hasher.compared).toEqual([]);
      await store.set(Keys.captcha('c2'), 'abcd', MINUTE);
      expect(await attempt({ imgId: 'c2', imgCode: ' ABCD ' })).toBe('ok');
    });

    it('an unknown account answers BAD_CREDENTIALS after a dummy compare, logged without user id', async () => {
      expect(await attempt({ account: 'nobody' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(hasher.burns).toBe(1);
      expect(log.rows).toEqual([
        expect.objectContaining({ userId: null, account: 'nobody', status: LoginStatus.PASSWRONG }),
      ]);
    });
  });

  describe('an account deleted while its login runs', () => {
    const deleteAfter = (spy: jest.SpyInstance, method: (...args: any[]) => Promise<unknown>) =>
      spy.mockImplementationOnce(async (...args: any[]) => {
        const result = await method(...args);
        row().deleteTime = clock.now();
        return result;
      });

    it('deleted after its lookup: BAD_CREDENTIALS after a dummy compare, logged as an unknown account', async () => {
      addUser();
      deleteAfter(jest.spyOn(users, 'findForLogin'), users.findForLogin.bind(users));
      expect(await attempt()).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(hasher.compared).toEqual([]);
      expect(hasher.burns).toBe(1);
      expect(log.rows).toEqual([
        expect.objectContaining({ userId: null, account: 'zhangsan', status: LoginStatus.PASSWRONG }),
      ]);
    });

    it('deleted during a right compare: BAD_CREDENTIALS, no second compare, no session', async () => {
      addUser();
      hasher.meanwhile = () => {
        row().deleteTime = clock.now();
      };
      expect(await attempt()).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(hasher.compared).toEqual([PASSWORD]);
      expect(hasher.burns).toBe(0);
      expect(await sessions.sessionsOf('u1')).toEqual([]);
      expect(log.rows).toEqual([expect.objectContaining({ userId: null, status: LoginStatus.PASSWRONG })]);
    });
  });

  describe('lock', () => {
    it('a locked account is refused before its password is compared, and the attempt is not a failure', async () => {
      addUser({ locked: true, unlockTime: new Date(clock.nowMs() + 10 * MINUTE) });
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.ACCOUNT_LOCKED);
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_LOCKED);
      expect(hasher.compared).toEqual([]);
      expect(hasher.burns).toBe(2);
      expect(log.statuses()).toEqual([LoginStatus.LOCKED, LoginStatus.LOCKED]);
      expect(await log.countFailuresSince('u1', new Date(0))).toBe(0);
    });

    it('a lock without unlock time holds for ever', async () => {
      addUser({ locked: true, unlockTime: null });
      clock.advanceDays(365);
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_LOCKED);
    });

    it('a lock is still on at its unlock time and ends by itself once that has passed', async () => {
      const unlockTime = new Date(clock.nowMs() + 10 * MINUTE);
      addUser({ locked: true, unlockTime });
      clock.set(unlockTime);
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_LOCKED);
      clock.advance(1);
      expect(await attempt()).toBe('ok');
      expect(row()).toMatchObject({ locked: false, unlockTime: null, failureResetTime: clock.now() });
    });

    it('failures before an automatic unlock are not counted again', async () => {
      addUser();
      for (let i = 0; i < 3; i++) expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(row().locked).toBe(true);
      clock.advanceMinutes(61);
      // Still inside maxFailureInterval, but the unlock reset the count: one more failure does not lock.
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(row().locked).toBe(false);
      expect(await attempt()).toBe('ok');
    });

    it('maxFailureTimes wrong passwords lock the account for lockMinutes and keep its live sessions', async () => {
      addUser();
      const before = await service.login(req());
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(row().locked).toBe(false);
      expect(await codeOf(sessions.resolve(before.accessToken!))).toBe('ok');

      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      const unlockTime = new Date(clock.nowMs() + 60 * MINUTE);
      expect(row()).toMatchObject({ locked: true, unlockTime });
      // A lock reached by wrong passwords refuses new logins only: strangers cannot log the owner out.
      expect(await codeOf(sessions.resolve(before.accessToken!))).toBe('ok');
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_LOCKED);

      // The lock is an event: the failure that locked carries ACCOUNT_LOCKED (its text stays
      // the answer the client got), the earlier ones their own code; and system audits user.lock.
      expect(log.rows.map((r) => [r.status, r.failureCode, r.failureReason])).toEqual([
        ['success', null, null],
        ['passwrong', 'BAD_CREDENTIALS', '用户名或密码错误'],
        ['passwrong', 'BAD_CREDENTIALS', '用户名或密码错误'],
        ['passwrong', 'ACCOUNT_LOCKED', '用户名或密码错误'],
        ['locked', 'ACCOUNT_LOCKED', '用户已被锁定'],
      ]);
      expect(audited).toEqual([
        {
          action: 'user.lock',
          actorId: 'system',
          actorName: 'system',
          targetId: 'u1',
          targetName: 'zhangsan',
          detail: {
            username: 'zhangsan',
            reason: 'failures',
            failures: 3,
            old: { locked: false, unlockTime: null },
            new: { locked: true, unlockTime },
          },
        },
      ]);
    });

    it('only failures within maxFailureInterval hours count', async () => {
      addUser();
      await attempt({ password: 'wrong' });
      await attempt({ password: 'wrong' });
      clock.advance(24 * 3_600_000 + 1);
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(row().locked).toBe(false);
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(row().locked).toBe(false);
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(row().locked).toBe(true);
    });

    it('a correct password does not reset the count', async () => {
      addUser();
      await attempt({ password: 'wrong' });
      await attempt({ password: 'wrong' });
      expect(await attempt()).toBe('ok');
      await attempt({ password: 'wrong' });
      expect(row().locked).toBe(true);
    });

    it('10 parallel wrong passwords: exactly maxFailureTimes compared, the rest refused as locked', async () => {
      addUser();
      const codes = await Promise.all(Array.from({ length: 10 }, () => attempt({ password: 'wrong' })));
      expect(hasher.compared).toHaveLength(3);
      expect(codes.filter((c) => c === ErrorCode.BAD_CREDENTIALS)).toHaveLength(3);
      expect(codes.filter((c) => c === ErrorCode.ACCOUNT_LOCKED)).toHaveLength(7);
      expect(log.statuses().filter((s) => s === LoginStatus.PASSWRONG)).toHaveLength(3);
      expect(row().locked).toBe(true);
    });

    it('a wrong password emits the login-failed event with account, IP and time', async () => {
      addUser();
      const seen: LoginFailedEvent[] = [];
      events.on(LoginFailedEvent.NAME, (e: LoginFailedEvent) => seen.push(e));
      await attempt({ password: 'wrong', ip: '10.9.9.9' });
      expect(seen).toEqual([
        expect.objectContaining({ userId: 'u1', account: 'zhangsan', ip: '10.9.9.9', time: clock.now() }),
      ]);
    });
  });

  describe('the compare runs outside the mutex: what changed meanwhile decides, as in a serial order', () => {
    it('a password reset during a right compare: compared again with the new hash, so the old password is wrong and counts', async () => {
      addUser();
      hasher.meanwhile = () => {
        row().password = 'hash:New-pass2';
      };
      expect(await attempt()).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(hasher.compared).toEqual([PASSWORD, PASSWORD]);
      expect(log.statuses()).toEqual([LoginStatus.PASSWRONG]);
      expect(await sessions.sessionsOf('u1')).toEqual([]);
    });

    it('a password reset during a wrong compare to what was typed: compared again, and it logs in, nothing counted', async () => {
      addUser();
      hasher.meanwhile = () => {
        row().password = 'hash:New-pass2';
      };
      expect(await attempt({ password: 'New-pass2' })).toBe('ok');
      expect(log.statuses()).toEqual([LoginStatus.SUCCESS]);
      expect(await log.countFailuresSince('u1', new Date(0))).toBe(0);
    });

    it("an administrator's lock during a wrong compare: ACCOUNT_LOCKED, logged locked, not counted", async () => {
      addUser();
      hasher.meanwhile = () => {
        Object.assign(row(), { locked: true, unlockTime: null });
      };
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.ACCOUNT_LOCKED);
      expect(log.statuses()).toEqual([LoginStatus.LOCKED]);
      expect(await log.countFailuresSince('u1', new Date(0))).toBe(0);
    });

    it('disabled during a right compare: ACCOUNT_DISABLED, no session', async () => {
      addUser();
      hasher.meanwhile = () => {
        row().disabled = true;
      };
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_DISABLED);
      expect(log.statuses()).toEqual([LoginStatus.DISABLED]);
      expect(await sessions.sessionsOf('u1')).toEqual([]);
    });
  });

  describe('disabled (step 5, after the password)', () => {
    it('a wrong password answers BAD_CREDENTIALS and counts; the right one answers ACCOUNT_DISABLED', async () => {
      addUser({ disabled: true });
      expect(await attempt({ password: 'wrong' })).toBe(ErrorCode.BAD_CREDENTIALS);
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_DISABLED);
      expect(log.statuses()).toEqual([LoginStatus.PASSWRONG, LoginStatus.DISABLED]);
      expect(await sessions.sessionsOf('u1')).toEqual([]);
    });
  });

  describe('password expiry (step 6)', () => {
    const expired = () => addUser({ passwordUpdateTime: new Date(clock.nowMs() - 90 * DAY - 1) });

    it('loginStrategyWhenExpire = 3: refused with ACCOUNT_EXPIRED, logged expired, no session', async () => {
      expired();
      loginSettings.loginStrategyWhenExpire = 3;
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_EXPIRED);
      expect(log.statuses()).toEqual([LoginStatus.EXPIRED]);
      expect(await sessions.sessionsOf('u1')).toEqual([]);
    });

    it('loginStrategyWhenExpire = 2: a temporary token that must change the password', async () => {
      expired();
      loginSettings.loginStrategyWhenExpire = 2;
      const result = await service.login(req());
      expect(result).toMatchObject({
        tempUser: true,
        forceUpdatePassword: true,
        tip: 'Your password has expired, change it before logging in',
      });
      expect((await sessions.resolve(result.accessToken!)).session.temp).toBe(1);
      expect(log.statuses()).toEqual([LoginStatus.SUCCESS]);
    });

    it('loginStrategyWhenExpire = 1: a normal token with a tip', async () => {
      expired();
      loginSettings.loginStrategyWhenExpire = 1;
      const result = await service.login(req({ locale: 'zh' }));
      expect(result).toMatchObject({
        tempUser: false,
        forceUpdatePassword: false,
        tip: '您的密码已过期,请尽快修改密码',
      });
      expect((await sessions.resolve(result.accessToken!)).session.temp).toBe(0);
    });

    it('exactly at the expiry time the password is not yet expired', async () => {
      addUser({ passwordUpdateTime: new Date(clock.nowMs() - 90 * DAY) });
      loginSettings.loginStrategyWhenExpire = 3;
      expect(await attempt()).toBe('ok');
    });

    it('an initial password ages from the creation time', async () => {
      addUser({ passwordUpdateTime: null, createTime: new Date(clock.nowMs() - 91 * DAY) });
      loginSettings.loginStrategyWhenExpire = 3;
      expect(await attempt()).toBe(ErrorCode.ACCOUNT_EXPIRED);
    });

    it('passwordExpireDays = 0: never expires', async () => {
      addUser({ passwordUpdateTime: new Date(clock.nowMs() - 1000 * DAY) });
      userSettings.passwordExpireDays = 0;
      loginSettings.loginStrategyWhenExpire = 3;
      expect(await service.login(req())).toMatchObject({ tip: '' });
    });

    it('within expireNotifyDays the tip names the days left, rounded up', async () => {
      addUser({ passwordUpdateTime: new Date(clock.nowMs() - 85 * DAY) });
      expect((await service.login(req())).tip).toBe('Your password expires in 5 days, please change it soon');
      clock.advance(20 * 3_600_000); // 4 days 4 hours left
      expect((await service.login(req())).tip).toBe('Your password expires in 5 days, please change it soon');
    });

    it('no tip while more than expireNotifyDays are left', async () => {
      addUser({ passwordUpdateTime: new Date(clock.nowMs() - 80 * DAY + MINUTE) });
      expect((await service.login(req())).tip).toBe('');
    });
  });

  describe('initial password (step 7)', () => {
    it('forceUpdatePassword: a temporary token', async () => {
      addUser({ passwordUpdateTime: null });
      userSettings.forceUpdatePassword = true;
      const result = await service.login(req());
      expect(result).toMatchObject({ tempUser: true, forceUpdatePassword: true });
      expect(result.tip).toBe('You are using an initial password, change it before logging in');
    });

    it('otherwise a normal token with a tip', async () => {
      addUser({ passwordUpdateTime: null });
      const result = await service.login(req());
      expect(result).toMatchObject({
        tempUser: false,
        tip: 'You are using an initial password, please change it soon',
      });
    });
  });

  describe('unusual IP (step 10)', () => {
    it('emitted after 3 earlier successes from other IPs, not before', async () => {
      addUser();
      const seen: UnusualIpEvent[] = [];
      events.on(UnusualIpEvent.NAME, (e: UnusualIpEvent) => seen.push(e));
      for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) await service.login(req({ ip }));
      expect(seen).toEqual([]);
      await service.login(req({ ip: '2.2.2.2' }));
      expect(seen).toEqual([]);
      await service.login(req({ ip: '9.9.9.9' }));
      expect(seen).toEqual([expect.objectContaining({ userId: 'u1', ip: '9.9.9.9' })]);
    });
  });
  describe('QR-code login', () => {
    const ticks = async (n = 20) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };
    /** A code generated by a fresh password session of u1. */
    const grant = async () => {
      const origin = await service.login(req());
      const { tokenHash } = await sessions.resolve(origin.accessToken!);
      const { code } = await qrcodes.generate('u1', tokenHash);
      return { origin, tokenHash, code };
    };
    const verify = (code: string) => codeOf(qrcodes.verify(code, '10.7.7.7', 'jest', 'en'));

    it('a code gives a formal token, logged success with type qrcode, audited; it is single use', async () => {
      addUser();
      const { code, tokenHash } = await grant();
      const result = await qrcodes.verify(code, '10.7.7.7', 'jest', 'en');
      expect(result).toEqual({
        accessToken: expect.any(String),
        tempUser: false,
        forceUpdatePassword: false,
        tip: '',
        mfaRequired: false,
        mfaToken: null,
        mfaSetupRequired: false,
      });
      expect((await sessions.resolve(result.accessToken!)).session).toMatchObject({
        userId: 'u1',
        temp: 0,
        ip: '10.7.7.7',
      });
      expect(log.rows.at(-1)).toMatchObject({
        userId: 'u1',
        account: 'zhangsan',
        loginType: LoginTypes.QRCODE,
        status: LoginStatus.SUCCESS,
      });
      // Who authorised which new session, by session id (never a token).
      expect(audited).toEqual([
        {
          action: 'qrcode.authorize',
          actorId: 'u1',
          actorName: 'zhangsan',
          targetId: 'u1',
          targetName: 'zhangsan',
          ip: '10.7.7.7',
          detail: { authorizedBy: tokenHash, session: hashToken(result.accessToken!) },
        },
      ]);
      expect(await verify(code)).toBe(ErrorCode.QRCODE_INVALID);
    });

    it('dies with the session that generated it: logout, kick-out, expiry', async () => {
      addUser();
      const loggedOut = await grant();
      await sessions.end(loggedOut.tokenHash, 'u1');
      expect(await verify(loggedOut.code)).toBe(ErrorCode.QRCODE_INVALID);

      const kicked = await grant();
      await sessions.kickOutOthers('u1', null);
      expect(await verify(kicked.code)).toBe(ErrorCode.QRCODE_INVALID);

      loginSettings.sessionExpireMinutes = 2;
      const expiring = await grant();
      clock.advanceMinutes(2);
      expect(await verify(expiring.code)).toBe(ErrorCode.QRCODE_INVALID);
      expect(log.rows.filter((r) => r.loginType === LoginTypes.QRCODE)).toEqual([]);
    });

    it('a password change since the code was made voids it, even from the session that made it', async () => {
      addUser();
      const { origin, code } = await grant();
      row().password = 'hash:Another-pass2';
      expect(await codeOf(sessions.resolve(origin.accessToken!))).toBe('ok');
      expect(await verify(code)).toBe(ErrorCode.QRCODE_INVALID);
    });

    it('applies password expiry (step 6): ACCOUNT_EXPIRED with strategy 3, a temporary token with 2', async () => {
      // The password expires a minute after the codes were made (codes live 5 minutes).
      addUser({ passwordUpdateTime: new Date(clock.nowMs() - 90 * DAY + 30_000) });
      loginSettings.loginStrategyWhenExpire = 3;
      const refused = await grant();
      const forced = await grant();
      clock.advanceMinutes(1);
      expect(await verify(refused.code)).toBe(ErrorCode.ACCOUNT_EXPIRED);
      expect(log.rows.at(-1)).toMatchObject({ loginType: LoginTypes.QRCODE, status: LoginStatus.EXPIRED });
      loginSettings.loginStrategyWhenExpire = 2;
      const result = await qrcodes.verify(forced.code, '10.7.7.7', 'jest', 'en');
      expect(result).toMatchObject({
        tempUser: true,
        forceUpdatePassword: true,
        tip: 'Your password has expired, change it before logging in',
      });
      expect((await sessions.resolve(result.accessToken!)).session.temp).toBe(1);
    });

    it('applies the first-login rule (step 7): an initial password gets a temporary token', async () => {
      addUser({ passwordUpdateTime: null });
      userSettings.forceUpdatePassword = true;
      const origin = await sessions.issue({
        userId: 'u1',
        username: 'alice',
        profile: { name: 'Alice', mobile: null, email: null },
        temp: false,
        ip: '10.0.0.1',
        permissions: [],
      });
      const { code } = await qrcodes.generate('u1', origin.tokenHash);
      const result = await qrcodes.verify(code, '10.7.7.7', 'jest', 'en');
      expect(result).toMatchObject({ tempUser: true, forceUpdatePassword: true });
    });

    it("an administrator lock that holds the account's login mutex is seen: no token for a locked user", async () => {
      addUser();
      loginSettings.multiOnline = true;
      const { code } = await grant();
      let verifying!: Promise<unknown>;
      // The administrator's lock runs under the login mutex (AccountStateService.changeState); a verify that
      // arrives meanwhile must wait for it rather than check the account just before it changes.
      await mutex.run(Keys.loginMutex('u1'), async () => {
        verifying = verify(code);
        await ticks();
        Object.assign(row(), { locked: true, unlockTime: new Date(clock.nowMs() + 60_000) });
      });
      expect(await verifying).toBe(ErrorCode.ACCOUNT_LOCKED);
      expect(log.rows.at(-1)).toMatchObject({ loginType: LoginTypes.QRCODE, status: LoginStatus.LOCKED });
    });

    it('a token whose success row cannot be written is ended, not left live', async () => {
      addUser();
      const { code, tokenHash } = await grant();
      log.failWith = Object.assign(new Error('connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
      await expect(qrcodes.verify(code, '10.7.7.7', 'jest', 'en')).rejects.toMatchObject({
        code: 'PROTOCOL_CONNECTION_LOST',
      });
      expect((await sessions.sessionsOf('u1')).map((s) => s.tokenHash)).toEqual([tokenHash]);
    });

    it('a database that is away stays an outage, not QRCODE_INVALID; a deleted user is QRCODE_INVALID', async () => {
      addUser();
      const first = await grant();
      const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      users.failWith = outage;
      await expect(qrcodes.verify(first.code, '10.7.7.7', 'jest', 'en')).rejects.toBe(outage);
      users.failWith = null;
      const second = await grant();
      users.rows.delete('u1');
      expect(await verify(second.code)).toBe(ErrorCode.QRCODE_INVALID);
    });
  });
});
