import type { LoginChecks, LoginProof } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode, Locale } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import type { OneTimeStore } from '../store/one-time-store';
import { credentialStamp } from '../user-account/credential-stamp';
import type { LockoutService } from '../user-account/lockout.service';
import type { UserEntity } from '../user-account/user.entity';
import type { MfaProof, MfaService } from './mfa.service';
import type { SecondFactorMethod } from './second-factor-methods';
import type { AddedSecondFactor } from './second-factors';

/** What AUTH_MFA:{sha256hex(mfaToken)} keeps for the resume: who, and how the first step came in. */
export interface PendingLogin {
  userId: string;
  loginType: LoginTypes;
  account: string;
  locale: Locale;
  /** The password the first step proved (credentialStamp): a reset or change meanwhile kills the token. */
  stamp: string;
  /** The first step proved the password, so the finished login is a fresh proof (at the second step's time). */
  freshProof?: boolean;
}

/** One resume of a held login: its mfaToken, what it keeps, the code sent and from where. */
export interface SecondFactorAttempt {
  token: string;
  pending: PendingLogin;
  code: string;
  /** Another method's answer in place of the code (a passkey): the code is then not read. */
  method?: { impl: SecondFactorMethod; answer: unknown };
  ip: string;
  userAgent: string;
}

/**
 * The second step of a password login: the account still unlocked and enabled (else the mfaToken
 * dies with the refusal), the token still pending, the password the first step proved still the
 * account's, the second factor still on, then the code. A wrong code is logged `mfawrong` and
 * counted by the account lock (the token dies when it locks); a right code sent twice is refused
 * without being counted. Exactly one right code consumes the token.
 */
export class SecondFactorProof implements LoginProof {
  readonly name = 'second-factor';
  /** Which kind of code proved it, once one has. */
  used: MfaProof | string | null = null;

  constructor(
    private readonly pendingLogins: Pick<OneTimeStore<PendingLogin>, 'peek' | 'revoke' | 'consume'>,
    private readonly mfa: Pick<MfaService, 'enabled' | 'prove'>,
    private readonly lockout: Pick<LockoutService, 'recordFailure'>,
    private readonly attempt: SecondFactorAttempt,
    /** The factors other modules add (SECOND_FACTORS) that this user can give now. */
    private readonly added: (user: UserEntity) => Promise<AddedSecondFactor[]> = async () => [],
  ) {}

  async prove(checks: LoginChecks): Promise<void> {
    const { token, pending, code, ip, userAgent } = this.attempt;
    try {
      await checks.checkLock();
      await checks.checkDisabled();
    } catch (err) {
      await this.pendingLogins.revoke(token); // once locked (or disabled), the mfaToken is dead
      throw err;
    }
    // A concurrent right code may have consumed it while this one waited for the mutex.
    if (!(await this.pendingLogins.peek(token))) throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
    // The password the first step proved was reset or changed meanwhile: the login starts again.
    if (credentialStamp(checks.user.password) !== pending.stamp) await this.void();
    const proof = this.attempt.method
      ? await this.byMethod(checks.user.id, this.attempt.method)
      : await this.byCode(checks.user, code);
    // A right code sent twice: refused, but neither logged nor counted; the token lives on.
    if (proof === 'replay') throw new AppException(ErrorCode.MFA_CODE_INVALID);
    if (!proof) {
      const locked = await this.lockout.recordFailure({
        user: checks.user,
        account: pending.account,
        loginType: pending.loginType,
        ip,
        userAgent,
        status: LoginStatus.MFAWRONG,
        reason: ErrorCode.MFA_CODE_INVALID,
      });
      if (locked) await this.pendingLogins.revoke(token);
      throw new AppException(ErrorCode.MFA_CODE_INVALID);
    }
    // Exactly one right code consumes the token.
    if (!(await this.pendingLogins.consume(token))) throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
    this.used = proof;
  }

  /** A TOTP or recovery code, else a code another module sent (SECOND_FACTORS): the first that finds it right. */
  private async byCode(user: UserEntity, code: string): Promise<MfaProof | string | 'replay' | null> {
    // The second factor removed meanwhile (by the user, or an administrator's reset): the login starts again.
    const totp = await this.mfa.enabled(user.id);
    const added = await this.added(user);
    if (!totp && !added.length) await this.void();
    const proof = totp ? await this.mfa.prove(user.id, code) : null;
    if (proof) return proof;
    // Each added factor that finds the code wrong has counted a miss of its own.
    for (const factor of added) if ((await factor.prove(user, code)) === 'right') return factor.name;
    return null;
  }

  /** Another method (SecondFactorMethod): removed meanwhile voids the token as TOTP does; stale is no guess. */
  private async byMethod(userId: string, method: { impl: SecondFactorMethod; answer: unknown }) {
    if (!(await method.impl.enrolled(userId))) await this.void();
    const outcome = await method.impl.prove(userId, this.attempt.token, method.answer);
    return outcome === 'right' ? method.impl.name : outcome === 'stale' ? 'replay' : null;
  }

  private async void(): Promise<never> {
    await this.pendingLogins.revoke(this.attempt.token);
    throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
  }
}
