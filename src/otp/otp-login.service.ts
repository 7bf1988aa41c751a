import { Injectable } from '@nestjs/common';

import { LoginResult, LoginService, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode, Locale } from '../common/error-code';
import { LoginStatus } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { StrategyService } from '../strategy/strategy.service';
import { LockoutService } from '../user-account/lockout.service';
import { UserLookup } from '../user-account/user-lookup.service';
import { OtpCodes } from './otp-codes';
import { guessCodeLoginType, OtpLoginProof } from './otp-login.proof';
import { ignoreNotFound } from './otp-send.service';

export interface OtpLoginRequest {
  account: string;
  code: string;
  ip: string;
  userAgent: string;
  locale: Locale;
}

/**
 * POST /sys/login/otp: the account and a code sent for `login`, through the login tail every way in
 * shares (steps 4–11: lock, disabled, expiry, first login, the added steps — second factor, access
 * rules — and the token). An account nobody holds answers as a wrong code does and is logged the same.
 */
@Injectable()
export class OtpLoginService {
  constructor(
    private readonly strategy: StrategyService,
    private readonly accounts: UserLookup,
    private readonly logins: LoginService,
    private readonly codes: OtpCodes,
    private readonly lockout: LockoutService,
    private readonly logs: LoginLogService,
  ) {}

  async login(req: OtpLoginRequest): Promise<LoginResult> {
    if (!(await this.strategy.loginStrategy()).otpLogin) throw new AppException(ErrorCode.FORBIDDEN);
    const found = await this.accounts.findForLogin(req.account);
    const user = found && (await this.accounts.get(found.userId).catch(ignoreNotFound));
    if (!user) return this.unknownAccount(req);
    const way: LoginWay = {
      loginType: guessCodeLoginType(req.account),
      account: req.account,
      ip: req.ip,
      userAgent: req.userAgent,
      locale: req.locale,
      unusualIpCheck: true,
    };
    try {
      return await this.logins.complete(user, way, new OtpLoginProof(this.codes, this.lockout, way, req.code));
    } catch (err) {
      // Deleted since its look-up: answered as an account nobody holds.
      if (err instanceof AppException && err.code === ErrorCode.NOT_FOUND) return this.unknownAccount(req);
      throw err;
    }
  }

  private async unknownAccount(req: OtpLoginRequest): Promise<never> {
    await this.logs.record({
      userId: null,
      account: req.account,
      userName: null,
      loginType: guessCodeLoginType(req.account),
      status: LoginStatus.PASSWRONG,
      ip: req.ip,
      userAgent: req.userAgent,
      failure: ErrorCode.MFA_CODE_INVALID,
    });
    throw new AppException(ErrorCode.MFA_CODE_INVALID);
  }
}
