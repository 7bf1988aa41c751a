import { setTimeout as delay } from 'node:timers/promises';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { AppException } from '../../common/app.exception';
import type { SessionProfile } from '../../common/auth-context';
import { Clock } from '../../common/clock';
import { ErrorCode, Locale, TipKey, tipText } from '../../common/error-code';
import { ExtensionPoint } from '../../common/extension-point';
import { AppConfig } from '../../config/app-config';
import { LoginStatus, LoginTypes } from '../../login-log/login-log.entity';
import { LoginLogService } from '../../login-log/login-log.service';
import { parseUserAgent } from '../../login-log/user-agent';
import { SessionService } from '../../session/session.service';
import { KeyedMutex } from '../../store/keyed-mutex';
import { Keys } from '../../store/keys';
import { StrategyService } from '../../strategy/strategy.service';
import { LoginStrategy, UserStrategy } from '../../strategy/strategy.types';
import { AccountStateService } from '../../user-account/account-state.service';
import { LockoutService } from '../../user-account/lockout.service';
import { PasswordHasher } from '../../user-account/password-hasher';
import { PasswordProof, ProofRefusals } from '../../user-account/password-proof.service';
import { RoleService } from '../../user-account/role.service';
import { TrustedClients } from '../../user-account/trusted-clients';
import { UserEntity } from '../../user-account/user.entity';
import { UserRepository } from '../../user-account/user.repository';
import { UserLookup } from '../../user-account/user-lookup.service';
import { CaptchaService } from '../captcha/captcha.service';
import { LoginAttackService } from '../captcha/login-attack.service';
import { LoginAnsweredEvent, SessionIssuedEvent, UnusualIpEvent } from './login.events';
import { firstLoginStep, isUnusualIp, Outcome, passwordExpiryStep, UNUSUAL_IP_SAMPLE } from './login-steps';
import { PasswordLoginProof } from './password-login.proof';

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
  /** Null while the login waits for its second factor (mfaRequired). */
  accessToken: string | null;
  tempUser: boolean;
  forceUpdatePassword: boolean;
  tip: string;
  /** Steps 8–11 wait for POST /sys/login/mfa with this mfaToken. */
  mfaRequired: boolean;
  mfaToken: string | null;
  /** mfaMode 2 and not enrolled; the temporary token reaches the enrolment. */
  mfaSetupRequired: boolean;
}

/** What every login result says about the second factor unless a step says otherwise. */
export const NO_MFA = { mfaRequired: false, mfaToken: null, mfaSetupRequired: false } as const;

/** How a step demands a temporary token (StepAttempt.requireTemp). */
export interface TempOptions {
  /** The user must change the password (forceUpdatePassword); default true. */
  passwordChange?: boolean;
  /** The user must enrol the second factor (mfaSetupRequired). */
  mfaSetup?: boolean;
  /** Keep the tip of steps 6 and 7 when they already force a password change. */
  keepForcedTip?: boolean;
}

/** A way in, as the login tail sees it: how the user came and from where. */
export interface LoginWay {
  loginType: LoginTypes;
  /** The account as the client gave it (the login log's `account`). */
  account: string;
  ip: string;
  userAgent: string;
  locale: Locale;
  /**
   * A password not compared yet: spent on a locked account so that timing tells nothing. The
   * password login compares before the tail (PasswordProof) and leaves it out.
   */
  password?: string;
  /** Runs for password logins; a code from a known device raises no IP alert. */
  unusualIpCheck: boolean;
  /**
   * The way already proved a second factor: the QR code (the authorising device
   * passed it) and the resumed /sys/login/mfa. The second-factor step then asks nothing.
   */
  secondFactorProven?: boolean;
  /**
   * The session this way issues counts as proven by two factors (Session.mfa): the resumed second
   * step, and a QR login authorised by such a session. Not every way that skips the second-factor
   * step: a QR code from a session that never gave a code proves one factor.
   */
  twoFactors?: boolean;
  /**
   * The way proved the password just now (a password login, and the resumed second
   * step of one), so the session starts freshly proven; a QR code does not.
   */
  freshProof?: boolean;
  /**
   * The way continues a chain of logins that began then (epoch ms): a QR login continues its
   * generating session's, and the new session's sessionMaxHours counts from it.
   */
  originTime?: number;
}

/**
 * What a way in proves with, inside the account's login mutex: the account as it is now and the
 * tail's own checks, each writing its refusal to the login log.
 */
export interface LoginChecks {
  /** The account as read inside the mutex, just before the proof runs. */
  readonly user: UserEntity;
  /** Step 4: the lock. */
  checkLock(): Promise<void>;
  /** Step 5. */
  checkDisabled(): Promise<void>;
  /** Refuses the attempt: one login-log row with `status`, the answer `code`. */
  fail(status: LoginStatus, code: ErrorCode): Promise<never>;
}

/**
 * How a way in proves the user (the password, a QR code, the second factor, and those a module
 * adds): run by complete() inside the account's login mutex with the account just read, it checks
 * what the way knows and refuses through `checks` (or throws the way's own error).
 */
export interface LoginProof {
  /** Names the way in, for people reading the code and the logs of a failing proof. */
  readonly name: string;
  prove(checks: LoginChecks): Promise<void>;
}

/**
 * A step a module adds to the tail (the second factor, src/mfa, is one): it runs for every way
 * in, inside the account's mutex, after steps 6 and 7 and before step 8. It may refuse (fail),
 * demand a temporary token, or hold the login — answer its own result without a token and without
 * a log row (the way that resumes it calls complete() again). A module adds its steps by declaring
 * `LOGIN_STEPS.provide(MyStep)` among its providers; they run in the order of their modules.
 */
export interface LoginStep {
  readonly name: string;
  run(attempt: StepAttempt): Promise<void>;
}

export const LOGIN_STEPS = new ExtensionPoint<LoginStep>('LOGIN_STEPS');

export interface StepAttempt extends Pick<LoginChecks, 'user' | 'fail'> {
  readonly way: LoginWay;
  readonly now: Date;
  readonly login: LoginStrategy;
  readonly account: UserStrategy;
  /** Whether the token will be temporary (steps 6 and 7 may have demanded it). */
  readonly temp: boolean;
  /** A temporary token with this tip, replacing the softer tips of steps 6 and 7 (see TempOptions). */
  requireTemp(tip: TipKey, options?: TempOptions): void;
  /** Answer `result` now: steps 8–11 do not run. */
  hold(result: LoginResult): void;
  /** Fields the session's profile carries besides the account's (read by /sys/me/info without SQL). */
  addToProfile(fields: Partial<SessionProfile>): void;
}

/** What the steps know about one attempt. */
interface Attempt extends Outcome {
  way: LoginWay;
  user: UserEntity;
  now: Date;
  login: LoginStrategy;
  account: UserStrategy;
  held?: LoginResult;
  /** The token forces a password change (steps 6 and 7, or a step's requireTemp). */
  forcePasswordChange?: boolean;
  mfaSetupRequired?: boolean;
  profileExtra?: Partial<SessionProfile>;
  token?: string;
  tokenHash?: string;
}

/**
 * One named step per rule, numbered in the order the rules come: 1 parameters and captcha,
 * 2 find the user, 3 password, 4 lock, 5 disabled, 6 password expiry, 7 first login,
 * 8 multi-device kick-out, 9 store the token, 10 unusual IP, 11 login log. The lock check runs
 * before the password compare, a deliberate deviation: were it after, a locked account would
 * answer "locked" only to the right password, telling someone who keeps guessing when a guess
 * was right. The first failing step ends
 * the request by throwing. Every way in (the password here, the QR code in QrcodeService, and
 * those a module adds) proves the user its own way and then runs the same tail: complete().
 */
@Injectable()
export class LoginService implements OnModuleInit {
  private steps: LoginStep[] = [];
  /** Account and IP pairs that logged in with a password here: their compares go ahead of a flood's. */
  private readonly trusted = new TrustedClients();
  /** Shed answers held now (admit). */
  private held = 0;

  constructor(
    private readonly captcha: CaptchaService,
    private readonly accounts: UserLookup,
    private readonly states: AccountStateService,
    private readonly users: UserRepository,
    private readonly roles: RoleService,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly logs: LoginLogService,
    private readonly mutex: KeyedMutex,
    private readonly lockout: LockoutService,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly proof: PasswordProof,
    private readonly modules: ModuleRef,
    private readonly attack: LoginAttackService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit() {
    const steps = LOGIN_STEPS.collect(this.modules);
    const names = steps.map((s) => s.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice) throw new Error(`login step ${twice} is already in use`);
    this.steps = steps;
  }

  /**
   * SERVICE_UNAVAILABLE with Retry-After when the compare budget would shed this login anyway:
   * checked before the password is decrypted, so that a shed attempt costs next to nothing.
   *
   * During a flood, the answer to a client not known good is held LOGIN_SHED_HOLD_MS first (a
   * timer, no CPU): a flood's connections, answered at once, would come back as fast as the event
   * loop answers them and take it from every other request. A compare shed now and then by a burst
   * of real logins is no flood, and its answer goes at once, as does a known-good client's. At most
   * MAX_HELD answers are held at once; past that they go at once.
   */
  async admit(account: string, ip: string): Promise<void> {
    const known = this.trusted.has(account, ip, this.clock.nowMs());
    try {
      this.hasher.assertRoom(known);
    } catch (err) {
      const holdMs = this.config.LOGIN_SHED_HOLD_MS;
      if (!known && holdMs > 0 && this.held < MAX_HELD && this.hasher.flooding()) {
        this.held += 1;
        await delay(holdMs).finally(() => (this.held -= 1));
      }
      throw err;
    }
  }

  async login(req: LoginRequest): Promise<LoginResult> {
    const started = performance.now();
    try {
      const result = await this.passwordLogin(req, this.trusted.has(req.account, req.ip, this.clock.nowMs()));
      // The password was right (whatever steps follow): this account and IP go ahead of a flood.
      this.trusted.add(req.account, req.ip, this.clock.nowMs());
      return result;
    } catch (err) {
      if (err instanceof AppException && COUNTED_FAILURES.has(err.code)) {
        await this.attack.recordFailure().catch(() => undefined);
      }
      throw err;
    } finally {
      this.events.emit(LoginAnsweredEvent.NAME, new LoginAnsweredEvent((performance.now() - started) / 1_000));
    }
  }

  private async passwordLogin(req: LoginRequest, priority: boolean): Promise<LoginResult> {
    await this.checkCaptcha(req); // 1
    const { userId, loginType } = await this.findUser(req); // 2
    const way: LoginWay = {
      loginType,
      account: req.account,
      ip: req.ip,
      userAgent: req.userAgent,
      locale: req.locale,
      unusualIpCheck: true,
      freshProof: true,
    };
    try {
      return await this.proof.prove(
        userId,
        req.password,
        this.passwordRefusals(way),
        async (compared) => {
          try {
            return await this.complete(compared.user, way, new PasswordLoginProof(compared));
          } catch (err) {
            // Deleted during the compare: the same answer, its compare time already spent.
            if (isNotFound(err)) return this.unknownAccount(req, { compared: true });
            throw err;
          }
        },
        priority,
      );
    } catch (err) {
      // Deleted since its lookup: answered as an account nobody holds, not NOT_FOUND.
      if (isNotFound(err)) return this.unknownAccount(req);
      throw err;
    }
  }

  /**
   * The tail every way in shares: under the account's login mutex, the account read again (a
   * parallel attempt or an administrator may have just locked, disabled, reset or deleted it), the
   * way's `proof` with its own checks, steps 6 and 7, the added steps, 8 and 9; then 10 and 11.
   * These steps of one account never interleave, on any instance: the lock and disabled state the
   * proof sees hold until the token is stored, and an administrator's lock, disable or reset (which
   * take the same key) cannot end the sessions just before a login stores a new one. The password
   * compare runs before, outside the mutex, in a compare slot (PasswordProof): the tail never waits
   * for BCrypt.
   */
  async complete(user: UserEntity, way: LoginWay, proof: LoginProof): Promise<LoginResult> {
    const [login, account] = await Promise.all([this.strategy.loginStrategy(), this.strategy.userStrategy()]);
    const a: Attempt = { way, user, now: this.clock.now(), login, account, temp: false, tip: null };
    try {
      await this.mutex.run(Keys.loginMutex(user.id), async () => {
        await this.reread(a);
        await proof.prove(this.checksOf(a));
        await this.checkPasswordExpiry(a); // 6
        Object.assign(a, firstLoginStep(a.user, a.account, a)); // 7
        a.forcePasswordChange = a.temp;
        for (const step of this.steps) {
          await step.run(this.stepAttemptOf(a));
          if (a.held) return;
        }
        await this.applyMultiDevice(a); // 8
        await this.storeToken(a); // 9
        // dormantDays counts from here; inside the mutex, like the dormant job's disable.
        await this.users.recordLogin(a.user.id, this.clock.now());
      });
      if (a.held) return a.held;
      if (way.unusualIpCheck) await this.checkUnusualIp(a); // 10
      // The success row is written last, once the token is stored: a success in the log always
      // means a token was issued.
      await this.writeLog(a, LoginStatus.SUCCESS); // 11
    } catch (err) {
      await this.revokeUnsentToken(a);
      throw err;
    }
    return {
      accessToken: a.token!,
      tempUser: a.temp,
      forceUpdatePassword: a.forcePasswordChange === true,
      tip: a.tip ? tipText(a.tip, way.locale, a.tipParams) : '',
      ...NO_MFA,
      mfaSetupRequired: a.mfaSetupRequired === true,
    };
  }

  private checksOf(a: Attempt): LoginChecks {
    return {
      get user() {
        return a.user;
      },
      checkLock: () => this.checkLock(a),
      checkDisabled: () => this.checkDisabled(a),
      fail: (status, code) => this.fail(a, status, code),
    };
  }

  private stepAttemptOf(a: Attempt): StepAttempt {
    return {
      get user() {
        return a.user;
      },
      get temp() {
        return a.temp;
      },
      way: a.way,
      now: a.now,
      login: a.login,
      account: a.account,
      requireTemp: (tip, options = {}) => {
        const keepTip = options.keepForcedTip === true && a.forcePasswordChange === true;
        a.temp = true;
        if (!keepTip) Object.assign(a, { tip, tipParams: undefined });
        if (options.passwordChange !== false) a.forcePasswordChange = true;
        if (options.mfaSetup) a.mfaSetupRequired = true;
      },
      hold: (result) => {
        a.held = result;
      },
      addToProfile: (fields) => {
        a.profileExtra = { ...a.profileExtra, ...fields };
      },
      fail: (status, code) => this.fail(a, status, code),
    };
  }

  /** Step 1: only when enabled; a captcha is single use. */
  private checkCaptcha(req: LoginRequest): Promise<void> {
    return this.captcha.verify(req.imgId, req.imgCode);
  }

  /** Step 2: name → mobile → e-mail. Unknown: same compare cost, same message as a wrong password. */
  private async findUser(req: LoginRequest): Promise<{ userId: string; loginType: LoginTypes }> {
    const found = await this.accounts.findForLogin(req.account);
    return found ?? this.unknownAccount(req);
  }

  /** No account holds `req.account` (or it was deleted meanwhile): logged without user, BAD_CREDENTIALS. */
  private async unknownAccount(req: LoginRequest, { compared = false } = {}): Promise<never> {
    if (!compared) await this.hasher.burn(req.password, req.account.trim().toLowerCase());
    await this.logs.record({
      userId: null,
      account: req.account,
      userName: null,
      loginType: guessLoginType(req.account),
      status: LoginStatus.PASSWRONG,
      ip: req.ip,
      userAgent: req.userAgent,
      failure: ErrorCode.BAD_CREDENTIALS,
    });
    throw new AppException(ErrorCode.BAD_CREDENTIALS);
  }

  /** The account as it is now, read inside the mutex before the way's proof runs. */
  private async reread(a: Attempt): Promise<void> {
    a.user = await this.accounts.withPassword(a.user.id);
    a.now = this.clock.now();
  }

  /** Step 4: refuse while locked; a lock whose unlock time has passed ends here. */
  private async checkLock(a: Attempt): Promise<void> {
    if (!(await this.states.stillLocked(a.user))) return;
    if (a.way.password !== undefined) await this.hasher.burn(a.way.password, a.user.id);
    await this.fail(a, LoginStatus.LOCKED, ErrorCode.ACCOUNT_LOCKED);
  }

  /**
   * Steps 4 and 3: how the password proof refuses a login. Locked (checked before the compare):
   * logged `locked`. Wrong: logged, counted in the window, may lock, and is notified.
   */
  private passwordRefusals(way: LoginWay): ProofRefusals {
    return {
      locked: (now) => this.refuse(now, way, LoginStatus.LOCKED, ErrorCode.ACCOUNT_LOCKED),
      wrong: async (now) => {
        await this.lockout.recordWrongPassword({
          user: now,
          account: way.account,
          loginType: way.loginType,
          ip: way.ip,
          userAgent: way.userAgent,
          reason: ErrorCode.BAD_CREDENTIALS,
        });
        throw new AppException(ErrorCode.BAD_CREDENTIALS);
      },
    };
  }

  /** Step 5. */
  private async checkDisabled(a: Attempt): Promise<void> {
    if (a.user.disabled) await this.fail(a, LoginStatus.DISABLED, ErrorCode.ACCOUNT_DISABLED);
  }

  /** Step 6 (the rule: passwordExpiryStep). */
  private async checkPasswordExpiry(a: Attempt): Promise<void> {
    const outcome = passwordExpiryStep(a.user, a, a.now, a);
    if (outcome === 'refuse') await this.fail(a, LoginStatus.EXPIRED, ErrorCode.ACCOUNT_EXPIRED);
    else Object.assign(a, outcome);
  }

  /**
   * Step 8: one device only → every other token of the user is kicked out. Several devices and
   * maxSessionsPerUser → the oldest, so that with this login at most that many remain.
   */
  private async applyMultiDevice(a: Attempt): Promise<void> {
    if (!a.login.multiOnline) await this.sessions.kickOutOthers(a.user.id, null);
    else if (a.login.maxSessionsPerUser > 0) await this.sessions.kickOutOldest(a.user.id, a.login.maxSessionsPerUser);
  }

  /** Step 9: a temporary token (temp = 1) or a normal one. */
  private async storeToken(a: Attempt): Promise<void> {
    const { browser, os } = parseUserAgent(a.way.userAgent);
    const issued = await this.sessions.issue({
      userId: a.user.id,
      username: a.user.username,
      profile: { name: a.user.name, mobile: a.user.mobile, email: a.user.email, ...a.profileExtra },
      temp: a.temp,
      ip: a.way.ip,
      permissions: await this.roles.permissionsOf(a.user.id),
      browser,
      os,
      freshProof: a.way.freshProof === true,
      mfaSetup: a.mfaSetupRequired === true,
      mfa: a.way.twoFactors === true,
      originTime: a.way.originTime,
    });
    a.token = issued.token;
    a.tokenHash = issued.tokenHash;
    this.events.emit(SessionIssuedEvent.NAME, new SessionIssuedEvent(a.temp));
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

  /** Step 10 (the rule: isUnusualIp). */
  private async checkUnusualIp(a: Attempt): Promise<void> {
    const ips = await this.logs.recentSuccessIps(a.user.id, UNUSUAL_IP_SAMPLE);
    if (isUnusualIp(ips, a.way.ip)) {
      await this.events.emitAsync(UnusualIpEvent.NAME, new UnusualIpEvent(a.user.id, a.way.account, a.way.ip, a.now));
    }
  }

  /** Step 11 (and the record of every refused attempt). */
  private async writeLog(a: Pick<Attempt, 'user' | 'way'>, status: LoginStatus, reason?: ErrorCode): Promise<void> {
    await this.logs.record({
      userId: a.user.id,
      account: a.way.account,
      userName: a.user.name,
      loginType: a.way.loginType,
      status,
      ip: a.way.ip,
      userAgent: a.way.userAgent,
      failure: reason ?? null,
    });
  }

  private fail(a: Attempt, status: LoginStatus, code: ErrorCode): Promise<never> {
    return this.refuse(a.user, a.way, status, code);
  }

  private async refuse(user: UserEntity, way: LoginWay, status: LoginStatus, code: ErrorCode): Promise<never> {
    await this.writeLog({ user, way }, status, code);
    throw new AppException(code);
  }
}

/** Shed login answers one instance holds at once (admit); past it, they are sent at once. */
const MAX_HELD = 1_000;

/** Failed logins that count toward the rate of captchaUnderAttack; a shed login (SERVICE_UNAVAILABLE) does not. */
const COUNTED_FAILURES = new Set<ErrorCode>([
  ErrorCode.BAD_CREDENTIALS,
  ErrorCode.ACCOUNT_LOCKED,
  ErrorCode.CAPTCHA_INVALID,
]);

const isNotFound = (err: unknown) => err instanceof AppException && err.code === ErrorCode.NOT_FOUND;

function guessLoginType(account: string): LoginTypes {
  if (account.includes('@')) return LoginTypes.EMAIL;
  if (/^\+?\d{5,20}$/.test(account)) return LoginTypes.MOBILE;
  return LoginTypes.ACCOUNT;
}
