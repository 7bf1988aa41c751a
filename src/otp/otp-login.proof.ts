import type { LoginChecks, LoginProof, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import type { LockoutService } from '../user-account/lockout.service';
import type { OtpChannel } from './otp.types';
import type { OtpCodes } from './otp-codes';

export const LOGIN_TYPE_OF_CHANNEL: Record<OtpChannel, LoginTypes> = {
  sms: LoginTypes.SMSCODE,
  email: LoginTypes.EMAILCODE,
};

/**
 * The one-time-code way in: refused while locked before the code is looked at (the lock is checked
 * before any proof, as docs/policies.md says), then the code: a wrong one (or none live) is
 * logged `passwrong` and counted by the lock, a right one is spent; then step 5. The login type is
 * the channel the code went through.
 */
export class OtpLoginProof implements LoginProof {
  readonly name = 'otp';

  constructor(
    private readonly codes: Pick<OtpCodes, 'check'>,
    private readonly lockout: Pick<LockoutService, 'recordFailure'>,
    private readonly way: LoginWay,
    private readonly code: string,
  ) {}

  async prove(checks: LoginChecks): Promise<void> {
    await checks.checkLock();
    const verdict = await this.codes.check('login', checks.user.id, this.code);
    if (verdict.channel) this.way.loginType = LOGIN_TYPE_OF_CHANNEL[verdict.channel];
    if (!verdict.right) {
      await this.lockout.recordFailure({
        user: checks.user,
        account: this.way.account,
        loginType: this.way.loginType,
        ip: this.way.ip,
        userAgent: this.way.userAgent,
        status: LoginStatus.PASSWRONG,
        reason: ErrorCode.MFA_CODE_INVALID,
      });
      throw new AppException(ErrorCode.MFA_CODE_INVALID);
    }
    await checks.checkDisabled();
  }
}

/** The login type of an attempt whose code is unknown: by the shape of the account typed. */
export function guessCodeLoginType(account: string): LoginTypes {
  return account.includes('@') ? LoginTypes.EMAILCODE : LoginTypes.SMSCODE;
}
