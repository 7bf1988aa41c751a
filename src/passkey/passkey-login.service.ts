import { Injectable } from '@nestjs/common';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';

import { LoginResult, LoginService, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode, Locale } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { MfaLoginService } from '../mfa/mfa-login.service';
import { StrategyService } from '../strategy/strategy.service';
import { LockoutService } from '../user-account/lockout.service';
import { UserLookup } from '../user-account/user-lookup.service';
import { PasskeyRepository } from './passkey.repository';
import { transportsOf } from './passkey.service';
import { credentialIdOf, PasskeyAssertions } from './passkey-assertions';
import { PASSKEY_CHALLENGE_TTL_MS, PasskeyChallenges } from './passkey-challenges';
import { PasskeyLoginProof } from './passkey-login.proof';
import type { RelyingPartyOf } from './relying-party';
import { webauthn } from './webauthn';

export interface PasskeyLoginRequest {
  challengeId: string;
  response: unknown;
  ip: string;
  userAgent: string;
  locale: Locale;
}

/**
 * Login with a passkey (login strategy passkeyLogin): by account (the account's passkeys offered)
 * or discoverable (the authenticator names its user), then the one login tail with login type
 * `passkey`. A passkey proves both factors, so no second step follows. Also the challenge of a
 * second step finished with a passkey (/sys/login/mfa/passkey/options).
 */
@Injectable()
export class PasskeyLoginService {
  constructor(
    private readonly repo: PasskeyRepository,
    private readonly challenges: PasskeyChallenges,
    private readonly assertions: PasskeyAssertions,
    private readonly accounts: UserLookup,
    private readonly logins: LoginService,
    private readonly mfaLogins: MfaLoginService,
    private readonly lockout: LockoutService,
    private readonly logs: LoginLogService,
    private readonly strategy: StrategyService,
  ) {}

  /**
   * An unknown account gets the answer of an account without passkeys (none offered), so the
   * options do not tell which accounts exist.
   */
  async options(
    rp: RelyingPartyOf,
    account: string | undefined,
  ): Promise<PublicKeyCredentialRequestOptionsJSON & { challengeId: string }> {
    await this.assertEnabled();
    const found = account === undefined ? null : await this.accounts.findForLogin(account);
    const offered = found ? await this.repo.ofUser(found.userId) : [];
    const options = await webauthn().generateAuthenticationOptions({
      rpID: rp.rpId,
      allowCredentials: offered.map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS,
    });
    const challengeId = await this.challenges.forLogin({
      ...rp,
      challenge: options.challenge,
      // Bound to the account typed, known or not: an answer by anyone else's passkey is refused.
      userId: account === undefined ? null : (found?.userId ?? ''),
      account: account ?? null,
    });
    return { ...options, challengeId };
  }

  async verify(req: PasskeyLoginRequest): Promise<LoginResult> {
    await this.assertEnabled();
    // Used, expired or never issued: there is no account to log or count it against.
    const challenge = await this.challenges.takeLogin(req.challengeId);
    if (!challenge) throw new AppException(ErrorCode.BAD_CREDENTIALS);
    const credentialId = credentialIdOf(req.response);
    const passkey = credentialId ? await this.repo.byCredentialId(credentialId) : null;
    const bound = challenge.userId !== null;
    if (!passkey || (bound && passkey.userId !== challenge.userId)) return this.unknown(req, challenge.account);
    const user = await this.accounts.get(passkey.userId).catch((err: unknown) => {
      if (err instanceof AppException && err.code === ErrorCode.NOT_FOUND) return null;
      throw err;
    });
    if (!user) return this.unknown(req, challenge.account);
    const way: LoginWay = {
      loginType: LoginTypes.PASSKEY,
      account: challenge.account ?? user.username,
      ip: req.ip,
      userAgent: req.userAgent,
      locale: req.locale,
      unusualIpCheck: true,
      // Something held (the authenticator) and something known or been (its PIN or biometric).
      secondFactorProven: true,
      twoFactors: true,
      freshProof: true,
    };
    return this.logins.complete(
      user,
      way,
      new PasskeyLoginProof(this.assertions, this.lockout, passkey, req.response, challenge, way),
    );
  }

  /** The second step of a held login, answered with a passkey: the challenge is kept under the mfaToken. */
  async secondStepOptions(rp: RelyingPartyOf, mfaToken: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const userId = await this.mfaLogins.pendingUser(mfaToken);
    if (!userId) throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
    const offered = await this.repo.ofUser(userId);
    const options = await webauthn().generateAuthenticationOptions({
      rpID: rp.rpId,
      allowCredentials: offered.map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
      // The password was the first factor: the authenticator's presence is the second.
      userVerification: 'preferred',
      timeout: PASSKEY_CHALLENGE_TTL_MS,
    });
    await this.challenges.forSecondStep(mfaToken, { ...rp, challenge: options.challenge, userId, account: null });
    return options;
  }

  private async assertEnabled(): Promise<void> {
    if (!(await this.strategy.loginStrategy()).passkeyLogin) throw new AppException(ErrorCode.FORBIDDEN);
  }

  /** A passkey nobody holds (deleted, or another account's): logged as an unknown account is, not counted. */
  private async unknown(req: PasskeyLoginRequest, account: string | null): Promise<never> {
    await this.logs.record({
      userId: null,
      account: account ?? '',
      userName: null,
      loginType: LoginTypes.PASSKEY,
      status: LoginStatus.PASSWRONG,
      ip: req.ip,
      userAgent: req.userAgent,
      failure: ErrorCode.BAD_CREDENTIALS,
    });
    throw new AppException(ErrorCode.BAD_CREDENTIALS);
  }
}
