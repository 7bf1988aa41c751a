import type { LoginChecks, LoginProof, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { LoginStatus } from '../login-log/login-log.entity';
import type { LockoutService } from '../user-account/lockout.service';
import type { PasskeyEntity } from './passkey.entity';
import type { PasskeyAssertions } from './passkey-assertions';
import type { PasskeyChallenge } from './passkey-challenges';

/**
 * The passkey way in: locked before anything (logged `locked`, as a password login is), then the
 * assertion; a wrong one is logged `passwrong`, counted by the lock and answered BAD_CREDENTIALS,
 * like a wrong password. Then step 5, the disabled check.
 */
export class PasskeyLoginProof implements LoginProof {
  readonly name = 'passkey';

  constructor(
    private readonly assertions: Pick<PasskeyAssertions, 'check'>,
    private readonly lockout: Pick<LockoutService, 'recordFailure'>,
    private readonly passkey: PasskeyEntity,
    private readonly response: unknown,
    private readonly challenge: PasskeyChallenge,
    private readonly way: LoginWay,
  ) {}

  async prove(checks: LoginChecks): Promise<void> {
    await checks.checkLock();
    if ((await this.assertions.check(this.passkey, this.response, this.challenge, true)) !== 'right') {
      await this.lockout.recordFailure({
        user: checks.user,
        account: this.way.account,
        loginType: this.way.loginType,
        ip: this.way.ip,
        userAgent: this.way.userAgent,
        status: LoginStatus.PASSWRONG,
        reason: ErrorCode.BAD_CREDENTIALS,
      });
      throw new AppException(ErrorCode.BAD_CREDENTIALS);
    }
    await checks.checkDisabled();
  }
}
