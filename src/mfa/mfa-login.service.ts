import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

import { LoginResult, LoginService, LoginStep, LoginWay, NO_MFA, StepAttempt } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { bilingual } from '../common/texts';
import { NotificationService } from '../notification/notification.service';
import { NotificationKind } from '../notification/notification.types';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { json, OneTimeKind, OneTimeStore } from '../store/one-time-store';
import { StrategyService } from '../strategy/strategy.service';
import { LoginStrategy, MFA_MODE_ENROLLED, MFA_MODE_REQUIRED } from '../strategy/strategy.types';
import { credentialStamp } from '../user-account/credential-stamp';
import { LockoutService } from '../user-account/lockout.service';
import { UserEntity } from '../user-account/user.entity';
import { UserLookup } from '../user-account/user-lookup.service';
import { MfaService } from './mfa.service';
import { PendingLogin, SecondFactorProof } from './second-factor.proof';
import { SECOND_FACTOR_METHODS, SecondFactorMethod } from './second-factor-methods';
import { AddedSecondFactor, availableFactors, SECOND_FACTORS } from './second-factors';

export const MFA_TOKEN_TTL_MS = 5 * 60_000;

/** The mfaToken is a bearer secret: only its SHA-256 is stored. */
export const PENDING_LOGINS: OneTimeKind<PendingLogin> = {
  key: Keys.mfaToken,
  ttlMs: MFA_TOKEN_TTL_MS,
  hashed: true,
  format: json<PendingLogin>(),
};

export interface MfaLoginRequest {
  mfaToken: string;
  /** A TOTP or recovery code; absent when `answer` carries another method's. */
  code?: string;
  /** Another method's answer (SecondFactorMethod, by its name), e.g. a passkey's assertion. */
  answer?: { method: string; value: unknown };
  ip: string;
  userAgent: string;
}

/**
 * The second factor in the login tail: a step added to every way in. It writes mfaEnabled into the
 * session profile; holds the login of an enrolled user while mfaMode ≥ 1, unless the way already
 * proved a second factor (QR code, the resume); sends a user not enrolled to enrolment while
 * mfaMode = 2, whatever the way. The resume, POST /sys/login/mfa, runs the same tail again with
 * its own proof (SecondFactorProof).
 */
@Injectable()
export class MfaLoginService implements LoginStep, OnModuleInit {
  readonly name = 'mfa';
  private readonly logger = new Logger('Mfa');
  private readonly pendingLogins: OneTimeStore<PendingLogin>;
  private methods: SecondFactorMethod[] = [];
  private added: AddedSecondFactor[] = [];

  constructor(
    private readonly logins: LoginService,
    private readonly mfa: MfaService,
    store: KvStore,
    private readonly clock: Clock,
    private readonly accounts: UserLookup,
    private readonly lockout: LockoutService,
    private readonly notifications: NotificationService,
    private readonly strategy: StrategyService,
    private readonly modules: ModuleRef,
  ) {
    this.pendingLogins = new OneTimeStore(store, clock, PENDING_LOGINS);
  }

  onModuleInit() {
    this.methods = SECOND_FACTOR_METHODS.collect(this.modules);
    this.added = SECOND_FACTORS.collect(this.modules);
  }

  /** The user of a login held for its second factor, or null: for a method preparing its answer (a passkey challenge). */
  async pendingUser(mfaToken: string): Promise<string | null> {
    return (await this.pendingLogins.peek(mfaToken))?.userId ?? null;
  }

  async run(attempt: StepAttempt): Promise<void> {
    const totp = await this.mfa.enabled(attempt.user.id);
    attempt.addToProfile({ mfaEnabled: totp });
    const mode = attempt.login.mfaMode;
    // With the second factor off nothing below asks whether the user is enrolled: no query for it.
    if (mode < MFA_MODE_ENROLLED) return;
    // Mode 1 asks the users who enabled TOTP; in mode 2 another enrolled method (a passkey) counts as
    // enrolment too, and so does a factor another module adds that the user can give now (a code to a
    // mobile or e-mail). Either way, a user who is asked may answer with any of them.
    const enabled =
      totp ||
      (mode === MFA_MODE_REQUIRED &&
        ((await this.anyMethodEnrolled(attempt.user.id)) ||
          (await this.addedFactors(attempt.user, attempt.login)).length > 0));
    // A way that proved a second factor is not asked again; enrolment is still required in mode 2.
    if (mode >= MFA_MODE_ENROLLED && enabled && !attempt.way.secondFactorProven) {
      attempt.hold({
        accessToken: null,
        tempUser: false,
        forceUpdatePassword: false,
        tip: '',
        ...NO_MFA,
        mfaRequired: true,
        mfaToken: await this.pend(attempt),
      });
    } else if (mode === MFA_MODE_REQUIRED && !enabled) {
      // A forced password change keeps its tip and comes first: the password before the enrolment.
      attempt.requireTemp('MFA_SETUP_REQUIRED', { passwordChange: false, mfaSetup: true, keepForcedTip: true });
    }
  }

  private async anyMethodEnrolled(userId: string): Promise<boolean> {
    for (const method of this.methods) if (await method.enrolled(userId)) return true;
    return false;
  }

  /** POST /sys/login/mfa: the second step of a password login. */
  async verify(req: MfaLoginRequest): Promise<LoginResult> {
    const token = req.mfaToken;
    const method = req.answer && this.methods.find((m) => m.name === req.answer!.method);
    if (req.answer && !method) throw new AppException(ErrorCode.MFA_CODE_INVALID);
    const pending = await this.pendingLogins.peek(token);
    if (!pending) throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
    const user = await this.accounts.get(pending.userId).catch((err: unknown) => {
      throw err instanceof AppException && err.code === ErrorCode.NOT_FOUND
        ? new AppException(ErrorCode.MFA_TOKEN_INVALID)
        : err;
    });
    const way: LoginWay = {
      loginType: pending.loginType,
      account: pending.account,
      ip: req.ip,
      userAgent: req.userAgent,
      locale: pending.locale,
      unusualIpCheck: true,
      secondFactorProven: true,
      twoFactors: true,
      freshProof: pending.freshProof === true,
    };
    const login = await this.strategy.loginStrategy();
    const proof = new SecondFactorProof(
      this.pendingLogins,
      this.mfa,
      this.lockout,
      {
        token,
        pending,
        code: req.code ?? '',
        method: method ? { impl: method, answer: req.answer!.value } : undefined,
        ip: req.ip,
        userAgent: req.userAgent,
      },
      (u) => this.addedFactors(u, login),
    );
    const result = await this.logins.complete(user, way, proof);
    if (proof.used === 'recovery') await this.tellRecoveryCodeUsed(user.id, pending.account, req.ip);
    return result;
  }

  /** The factors other modules add that the user can give under `login`. */
  private addedFactors(user: UserEntity, login: LoginStrategy): Promise<AddedSecondFactor[]> {
    return availableFactors(this.added, user, login);
  }

  private pend(attempt: StepAttempt): Promise<string> {
    return this.pendingLogins.issue({
      userId: attempt.user.id,
      loginType: attempt.way.loginType,
      account: attempt.way.account,
      locale: attempt.way.locale,
      stamp: credentialStamp(attempt.user.password),
      freshProof: attempt.way.freshProof === true,
    });
  }

  /** A site message to the user; the login has happened, so a failure here is logged only. */
  private async tellRecoveryCodeUsed(userId: string, account: string, ip: string): Promise<void> {
    try {
      await this.notifications.notify(userId, NotificationKind.RECOVERY_CODE_USED, ['site'], {
        account,
        ip,
        time: this.clock.now().toISOString(),
        hint: bilingual('notification.recoveryCodeUsedHint'),
      });
    } catch (err) {
      this.logger.error(`could not queue the recovery-code notice of user ${userId}: ${(err as Error)?.name}`);
    }
  }
}
