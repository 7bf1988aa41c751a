import type { LoginChecks, LoginProof, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import type { Session } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { originOf, SessionService } from '../session/session.service';
import { credentialStamp } from '../user-account/credential-stamp';

/** What a code remembers of the session that generated it. */
export interface GrantOrigin {
  tokenHash: string;
  /** The password as it was when the code was made (credentialStamp). */
  credentialStamp: string;
  /** For the audit row of the authorisation (user names do not change). */
  username: string;
}

/**
 * The QR way in, once its one-time code has been taken: the code is void unless the session that
 * generated it is still alive and belongs to the account, and the password has not changed since
 * (so a stolen or revoked session cannot mint access that outlives it). Then the account's
 * disabled and locked state, in that order. The new session ends when the generating one would
 * (`way.originTime`) and has proven two factors when it had (`way.twoFactors`).
 */
export class QrcodeLoginProof implements LoginProof {
  readonly name = 'qrcode';

  constructor(
    private readonly sessions: Pick<SessionService, 'byTokenId'>,
    private readonly origin: GrantOrigin,
    private readonly way: LoginWay,
  ) {}

  async prove(checks: LoginChecks): Promise<void> {
    const origin = await this.aliveOrigin(checks);
    this.way.originTime = originOf(origin);
    this.way.twoFactors = origin.mfa === 1;
    await checks.checkDisabled();
    await checks.checkLock();
  }

  /** The generating session, when it still vouches for the code; QRCODE_INVALID otherwise. */
  private async aliveOrigin(checks: LoginChecks): Promise<Session> {
    const session = await this.sessions.byTokenId(this.origin.tokenHash);
    const alive = session !== null && session.kickout === 0 && session.userId === checks.user.id;
    if (!alive || credentialStamp(checks.user.password) !== this.origin.credentialStamp) {
      throw new AppException(ErrorCode.QRCODE_INVALID);
    }
    return session;
  }
}
