import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppException } from '../../common/app.exception';
import { Clock } from '../../common/clock';
import { ErrorCode, Locale, messageOf, tipText, TipKey } from '../../common/error-code';
import { LoginStatus, LoginTypes } from '../../login-log/login-log.entity';
import { LoginLogService } from '../../login-log/login-log.service';
import { parseUserAgent } from '../../login-log/user-agent';
import { KeyedMutex } from '../../store/keyed-mutex';
import { Keys } from '../../store/keys';
import { StrategyService } from '../../strategy/strategy.service';
import {
  LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE, LOGIN_STRATEGY_WHEN_EXPIRE_FORCE, LoginStrategy, UserStrategy,
} from '../../strategy/strategy.types';
import { DAY_MS, passwordExpiresAt } from '../../user-account/password-expiry';
import { LockoutService } from '../../user-account/lockout.service';
import { PasswordHasher } from '../../user-account/password-hasher';
import { RoleService } from '../../user-account/role.service';
import { UserAccountService } from '../../user-account/user-account.service';
import { UserEntity } from '../../user-account/user.entity';
import { CaptchaService } from '../captcha/captcha.service';
import { SessionService } from '../../session/session.service';
import { UnusualIpEvent } from './login.events';

const UNUSUAL_IP_SAMPLE = 3;

export interface LoginRequest {
  account: string;
  password: string;
  imgId?: string;
  imgCode?: string;
  ip: string;
  userAgent: string;
  locale: Locale;
}

export interface LoginResult {
  accessToken: string;
  tempUser: boolean;
  forceUpdatePassword: boolean;
  tip: string;
}

/** A login proven by a code from a logged-in device (spec 4.4), as QrcodeService read it. */
export interface QrcodeGrant {
  userId: string;
  /** The session that generated the code (contract §11: the code dies with it). */
  tokenHash: string;
  /** Fingerprint of the password hash at generation: any password change since voids the code. */
  credentialStamp: string;
  ip: string;
  userAgent: string;
  locale: Locale;
}

/** What the steps know about one attempt. */
interface Attempt {
  /** For a QR login: the user name, and no password. */
  req: Omit<LoginRequest, 'password'> & { password?: string };
  user: UserEntity;
  loginType: LoginTypes;
  now: Date;
  login: LoginStrategy;
  account: UserStrategy;
  temp: boolean;
  tip: TipKey | null;
  tipParams?: Record<string, number>;
  /** Spec 4.1 step 10 runs for password logins; a code from a known device raises no IP alert. */
  unusualIpCheck: boolean;
  token?: string;
  tokenHash?: string;
}

/**
 * Spec 4.1, one named step per rule, in the spec's order — except that the lock
 * check runs before the password compare (contract §5, deliberate deviation).
 * The first failing step ends the request by throwing.
 */
@Injectable()
export class LoginService {
  constructor(
    private readonly captcha: CaptchaService,
    private readonly accounts: UserAccountService,
    private readonly roles: RoleService,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly logs: LoginLogService,
    private readonly mutex: KeyedMutex,
    private readonly lockout: LockoutService,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
  ) {}

  async login(req: LoginRequest): Promise<LoginResult> {
    await this.checkCaptcha(req); // 1
    const attempt = await this.findUser(req); // 2
    return this.complete(attempt, async () => {
      await this.reread(attempt);
      await this.checkLock(attempt); // 4, before 3 (contract §5)
      await this.verifyPassword(attempt); // 3
      await this.checkDisabled(attempt); // 5
    });
  }

  /**
   * Spec 4.4 verify, once the code was taken (single use): the account's disabled and locked
   * status (in the spec's order), then the same tail as a password login — password expiry
   * (step 6) and first login (step 7) included (contract §11), multi-device, token, log.
   */
  async loginByQrcode(grant: QrcodeGrant): Promise<LoginResult> {
    const user = await this.accounts.get(grant.userId).catch((err: unknown) => {
      // A user deleted since the code was made; a database that is away stays SERVICE_UNAVAILABLE.
      throw err instanceof AppException && err.code === ErrorCode.NOT_FOUND ? new AppException(ErrorCode.QRCODE_INVALID) : err;
    });
    const [login, account] = await Promise.all([this.strategy.loginStrategy(), this.strategy.userStrategy()]);
    const attempt: Attempt = {
      req: { account: user.username, ip: grant.ip, userAgent: grant.userAgent, locale: grant.locale },
      user, loginType: LoginTypes.QRCODE, now: this.clock.now(), login, account, temp: false, tip: null, unusualIpCheck: false,
    };
    return this.complete(attempt, async () => {
      await this.checkGrantAlive(attempt, grant);
      await this.checkDisabled(attempt); // spec 4.4: disabled, then locked
      await this.checkLock(attempt);
    });
  }

  /**
   * The tail every way in shares, once `prove` has run its own checks: steps 6 to 9 under the
   * account's login mutex, then 10 and 11. Steps of one account never interleave, on any instance:
   * the failure count is exact under parallel attempts, and an administrator's lock, disable or
   * reset (which take the same key) cannot end the sessions just before a login stores a new one.
   */
  private async complete(attempt: Attempt, prove: () => Promise<void>): Promise<LoginResult> {
    try {
      await this.mutex.run(Keys.loginMutex(attempt.user.id), async () => {
        await prove();
        await this.checkPasswordExpiry(attempt); // 6
        this.checkFirstLogin(attempt); // 7
        await this.applyMultiDevice(attempt); // 8
        await this.storeToken(attempt); // 9
      });
      if (attempt.unusualIpCheck) await this.checkUnusualIp(attempt); // 10
      // The success row is written last, once the token is stored: a success in the log always
      // means a token was issued.
      await this.writeLog(attempt, LoginStatus.SUCCESS); // 11
    } catch (err) {
      await this.revokeUnsentToken(attempt);
      throw err;
    }
    return {
      accessToken: attempt.token!,
      tempUser: attempt.temp,
      forceUpdatePassword: attempt.temp,
      tip: attempt.tip ? tipText(attempt.tip, attempt.req.locale, attempt.tipParams) : '',
    };
  }

  /**
   * Contract §11: a code is void once the session that generated it has ended (logout, kick-out,
   * expiry, reset, lock, disable) or the password has changed since; it is then simply invalid.
   */
  private async checkGrantAlive(a: Attempt, grant: QrcodeGrant): Promise<void> {
    const origin = await this.sessions.byTokenId(grant.tokenHash);
    const alive = origin !== null && origin.kickout === 0 && origin.userId === a.user.id;
    await this.reread(a);
    if (!alive || credentialStamp(a.user.password) !== grant.credentialStamp) {
      throw new AppException(ErrorCode.QRCODE_INVALID);
    }
  }

  /** Step 1: only when enabled; a captcha is single use. */
  private checkCaptcha(req: LoginRequest): Promise<void> {
    return this.captcha.verify(req.imgId, req.imgCode);
  }

  /** Step 2: name → mobile → e-mail. Unknown: same compare cost, same message as a wrong password. */
  private async findUser(req: LoginRequest): Promise<Attempt> {
    const found = await this.accounts.findForLogin(req.account);
    if (!found) {
      await this.hasher.burn(req.password);
      await this.logs.record({
        userId: null, account: req.account, userName: null, loginType: guessLoginType(req.account),
        status: LoginStatus.PASSWRONG, ip: req.ip, userAgent: req.userAgent,
        failureReason: messageOf(ErrorCode.BAD_CREDENTIALS, 'zh'),
      });
      throw new AppException(ErrorCode.BAD_CREDENTIALS);
    }
    const [login, account] = await Promise.all([this.strategy.loginStrategy(), this.strategy.userStrategy()]);
    return {
      req, user: found.user, loginType: found.loginType, now: this.clock.now(), login, account, temp: false, tip: null, unusualIpCheck: true,
    };
  }

  /**
   * The account as it is now, read once inside the mutex: a parallel attempt or an administrator
   * may have just locked, disabled or reset it.
   */
  private async reread(a: Attempt): Promise<void> {
    a.user = await this.accounts.withPassword(a.user.id);
    a.now = this.clock.now();
  }

  /** Step 4 / spec 3.1: refuse while locked; a lock whose unlock time has passed ends here. */
  private async checkLock(a: Attempt): Promise<void> {
    if (!(await this.accounts.stillLocked(a.user))) return;
    if (a.req.password !== undefined) await this.hasher.burn(a.req.password);
    await this.fail(a, LoginStatus.LOCKED, ErrorCode.ACCOUNT_LOCKED);
  }

  /** Step 3 / spec 3.1: a wrong password is logged, counted in the window, may lock, and is notified. */
  private async verifyPassword(a: Attempt): Promise<void> {
    if (await this.hasher.matches(a.req.password!, a.user.password)) return;
    await this.lockout.recordWrongPassword({
      user: a.user, account: a.req.account, loginType: a.loginType, ip: a.req.ip, userAgent: a.req.userAgent,
      reason: ErrorCode.BAD_CREDENTIALS,
    });
    throw new AppException(ErrorCode.BAD_CREDENTIALS);
  }

  /** Step 5. */
  private async checkDisabled(a: Attempt): Promise<void> {
    if (a.user.disabled) await this.fail(a, LoginStatus.DISABLED, ErrorCode.ACCOUNT_DISABLED);
  }

  /** Step 6 / spec 3.3: expired when now is later than (last change or creation) + passwordExpireDays. */
  private async checkPasswordExpiry(a: Attempt): Promise<void> {
    const expiry = passwordExpiresAt(a.user, a.account.passwordExpireDays);
    if (!expiry) return;
    const expiresAt = expiry.getTime();
    const now = a.now.getTime();
    if (now > expiresAt) {
      switch (a.login.loginStrategyWhenExpire) {
        case LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE:
          return this.fail(a, LoginStatus.EXPIRED, ErrorCode.ACCOUNT_EXPIRED);
        case LOGIN_STRATEGY_WHEN_EXPIRE_FORCE:
          a.temp = true;
          a.tip = 'PASSWORD_EXPIRED_FORCE';
          return;
        default:
          a.tip = 'PASSWORD_EXPIRED_TIP';
          return;
      }
    }
    const notifyDays = a.account.expireNotifyDays;
    if (notifyDays > 0 && expiresAt - now <= notifyDays * DAY_MS) {
      a.tip = 'PASSWORD_EXPIRES_SOON';
      a.tipParams = { days: Math.ceil((expiresAt - now) / DAY_MS) };
    }
  }

  /** Step 7: an initial password (password_update_time empty). */
  private checkFirstLogin(a: Attempt): void {
    if (a.user.passwordUpdateTime !== null) return;
    if (a.account.forceUpdatePassword) {
      a.temp = true;
      a.tip = 'INITIAL_PASSWORD_FORCE';
    } else if (!a.temp) {
      // A temporary token already demanded by expiry keeps its stronger tip.
      a.tip = 'INITIAL_PASSWORD_TIP';
      a.tipParams = undefined;
    }
  }

  /** Step 8: one device only → every other token of the user is kicked out. */
  private async applyMultiDevice(a: Attempt): Promise<void> {
    if (!a.login.multiOnline) await this.sessions.kickOutOthers(a.user.id, null);
  }

  /** Step 9: a temporary token (temp = 1) or a normal one. */
  private async storeToken(a: Attempt): Promise<void> {
    const { browser, os } = parseUserAgent(a.req.userAgent);
    const issued = await this.sessions.issue({
      userId: a.user.id,
      username: a.user.username,
      temp: a.temp,
      ip: a.req.ip,
      permissions: await this.roles.permissionsOf(a.user.id),
      browser,
      os,
    });
    a.token = issued.token;
    a.tokenHash = issued.tokenHash;
  }

  /**
   * A failure after step 9 (the store or the database going away) means the client never
   * receives the token: end it rather than leave a live session nobody holds. Best effort:
   * when the store itself is down, the session is not reachable either.
   */
  private async revokeUnsentToken(a: Attempt): Promise<void> {
    if (!a.tokenHash) return;
    await this.sessions.end(a.tokenHash, a.user.id).catch(() => undefined);
  }

  /** Step 10: at least 3 earlier successful logins and none from this IP. */
  private async checkUnusualIp(a: Attempt): Promise<void> {
    const ips = await this.logs.recentSuccessIps(a.user.id, UNUSUAL_IP_SAMPLE);
    if (ips.length >= UNUSUAL_IP_SAMPLE && !ips.includes(a.req.ip)) {
      await this.events.emitAsync(UnusualIpEvent.NAME, new UnusualIpEvent(a.user.id, a.req.account, a.req.ip, a.now));
    }
  }

  /** Step 11 (and the record of every refused attempt). */
  private writeLog(a: Attempt, status: LoginStatus, reason?: ErrorCode): Promise<void> {
    return this.logs.record({
      userId: a.user.id, account: a.req.account, userName: a.user.name, loginType: a.loginType, status,
      ip: a.req.ip, userAgent: a.req.userAgent, failureReason: reason ? messageOf(reason, 'zh') : null,
    });
  }

  private async fail(a: Attempt, status: LoginStatus, code: ErrorCode): Promise<never> {
    await this.writeLog(a, status, code);
    throw new AppException(code);
  }
}

/** What a QR code remembers of the password it was made under: enough to notice a change, not to attack it. */
export function credentialStamp(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('hex').slice(0, 32);
}

function guessLoginType(account: string): LoginTypes {
  if (account.includes('@')) return LoginTypes.EMAIL;
  if (/^\+?\d{5,20}$/.test(account)) return LoginTypes.MOBILE;
  return LoginTypes.ACCOUNT;
}
