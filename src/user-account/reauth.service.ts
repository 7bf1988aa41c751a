import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { ExtensionPoint } from '../common/extension-point';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { SessionService } from '../session/session.service';
import { StrategyService } from '../strategy/strategy.service';
import { LockoutService } from './lockout.service';
import { PasswordProof } from './password-proof.service';
import { UserEntity } from './user.entity';

/** Who asks on /sys/me/reauth: the session's user, its session and where the request came from. */
export interface ReauthCaller {
  userId: string;
  tokenHash: string;
  ip: string;
  userAgent: string;
}

/**
 * How a second-factor code is proven for /sys/me/reauth (the second-factor module provides it):
 * checked, logged and counted as the module's own self-service codes are, `then` running under the
 * account's login mutex once the code is right.
 */
export interface ReauthCodeProof {
  proveForReauth(caller: ReauthCaller, code: string, then: () => Promise<void>): Promise<void>;
}

/** At most one: without it no code proves anything. */
export const REAUTH_CODE_PROOF = new ExtensionPoint<ReauthCodeProof>('REAUTH_CODE_PROOF');

/**
 * The fresh proof of step-up: the password (proven as a login proves it, PasswordProof.proveThen)
 * or a second-factor code marks the caller's session as freshly proven, in the session store, for
 * reauthMinutes. A wrong one is logged with login type `reauth` and counted by the account lock,
 * as the old password of a password change is; the attempt that locks ends the session that tried,
 * so a stolen token gets at most maxFailureTimes guesses.
 */
@Injectable()
export class ReauthService implements OnModuleInit {
  private codeProof: ReauthCodeProof | undefined;

  constructor(
    private readonly lockout: LockoutService,
    private readonly proof: PasswordProof,
    private readonly sessions: SessionService,
    private readonly logs: LoginLogService,
    private readonly clock: Clock,
    private readonly strategy: StrategyService,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.codeProof = REAUTH_CODE_PROOF.collectOne(this.modules);
  }

  async withPassword(caller: ReauthCaller, password: string): Promise<{ reauthUntil: number }> {
    const attempt = { loginType: LoginTypes.REAUTH, ip: caller.ip, userAgent: caller.userAgent };
    const refuseLocked = async (user: UserEntity): Promise<never> => {
      await this.logs.record({
        ...attempt,
        account: user.username,
        userId: user.id,
        userName: user.name,
        status: LoginStatus.LOCKED,
        failure: ErrorCode.ACCOUNT_LOCKED,
      });
      throw new AppException(ErrorCode.ACCOUNT_LOCKED);
    };
    const at = await this.proof.proveThen(
      caller.userId,
      password,
      {
        locked: refuseLocked,
        wrong: async (user) => {
          const locked = await this.lockout.recordWrongPassword({
            ...attempt,
            account: user.username,
            user,
            reason: ErrorCode.BAD_CREDENTIALS,
          });
          if (locked) await this.sessions.end(caller.tokenHash, user.id);
          throw new AppException(ErrorCode.BAD_CREDENTIALS);
        },
      },
      () => this.markProven(caller),
    );
    return this.answer(at);
  }

  async withCode(caller: ReauthCaller, code: string): Promise<{ reauthUntil: number }> {
    // No second-factor module (a command): nothing is enrolled, so no code can be right.
    if (!this.codeProof) throw new AppException(ErrorCode.MFA_CODE_INVALID);
    let at = 0;
    await this.codeProof.proveForReauth(caller, code, async () => {
      at = await this.markProven(caller);
    });
    return this.answer(at);
  }

  private async markProven(caller: ReauthCaller): Promise<number> {
    const at = this.clock.nowMs();
    // The session ended meanwhile (logout, kick-out, an administrator): there is nothing to mark.
    if (!(await this.sessions.markProven(caller.tokenHash, at))) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    return at;
  }

  private async answer(at: number): Promise<{ reauthUntil: number }> {
    return { reauthUntil: at + (await this.strategy.loginStrategy()).reauthMinutes * 60_000 };
  }
}
