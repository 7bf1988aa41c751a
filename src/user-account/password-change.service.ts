import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { AuditLogService } from '../audit/audit-log.service';
import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { PasswordChangedEvent } from './account.events';
import { LockoutService } from './lockout.service';
import { PasswordHasher } from './password-hasher';
import { checkPasswordComplexity } from './password-policy';
import { PasswordProof } from './password-proof.service';
import { PasswordScreen, previousToKeep } from './password-screen';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';
import { UserLookup } from './user-lookup.service';

/** Own password changes evaluated per user and hour. */
export const OWN_CHANGES_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

export interface OwnPasswordChange {
  userId: string;
  /** The session asking; it survives the change, the user's others end. */
  tokenHash: string;
  oldPass: string;
  newPass: string;
  ip: string;
  userAgent: string;
}

/**
 * The own password change, with the old password proven as a login proves it (PasswordProof: in a
 * compare slot of the account, outside its login mutex), refused without a compare while the
 * account is locked, and a wrong old password logged (`passwrong`, login type `passchange`),
 * counted toward the account lock and, when it locks the account, the end of the session that
 * tried: a stolen token gets at most maxFailureTimes guesses, as a stranger at the login page does.
 * The new password then meets the complexity rules and the screen (PasswordScreen) before it is set.
 */
@Injectable()
export class PasswordChangeService {
  constructor(
    private readonly accounts: UserLookup,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly strategy: StrategyService,
    private readonly clock: Clock,
    private readonly lockout: LockoutService,
    private readonly proof: PasswordProof,
    private readonly sessions: SessionService,
    private readonly logs: LoginLogService,
    private readonly mutex: KeyedMutex,
    private readonly screen: PasswordScreen,
    private readonly store: KvStore,
    private readonly events: EventEmitter2,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * One change of a user at a time (another answers RATE_LIMITED at once rather than
   * queue), and at most OWN_CHANGES_PER_HOUR evaluated per user and hour, on every instance
   * together: each evaluation costs a BCrypt compare per remembered password (passwordHistoryCount).
   */
  async changeOwn(c: OwnPasswordChange): Promise<void> {
    const paced = await this.mutex.tryRun(Keys.ownPasswordChange(c.userId), async () => {
      // The fixed window of the per-IP throttle (src/rate-limit/kv-throttler.storage.ts), here per user.
      const { count } = await this.store.incrWithTtl(Keys.ownPasswordChanges(c.userId), HOUR_MS);
      if (count > OWN_CHANGES_PER_HOUR) throw new AppException(ErrorCode.RATE_LIMITED);
      await this.change(c);
    });
    if (!paced.ran) throw new AppException(ErrorCode.RATE_LIMITED);
  }

  /** The change; announced (PasswordChangedEvent) once the new password is set. */
  private async change(c: OwnPasswordChange): Promise<void> {
    const attempt = { loginType: LoginTypes.PASSCHANGE, ip: c.ip, userAgent: c.userAgent };
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
    const changed = await this.proof.proveThen(
      c.userId,
      c.oldPass,
      {
        locked: refuseLocked,
        wrong: async (user) => {
          const locked = await this.lockout.recordWrongPassword({
            ...attempt,
            account: user.username,
            user,
            reason: ErrorCode.OLD_PASSWORD_WRONG,
          });
          if (locked) await this.sessions.end(c.tokenHash, user.id);
          throw new AppException(ErrorCode.OLD_PASSWORD_WRONG);
        },
      },
      async (current) => {
        await this.setOwnPassword(c.userId, c.tokenHash, c.newPass);
        return current;
      },
      // The new password's rules and screen first, outside the login mutex (their BCrypt compares with
      // the remembered passwords take time); a password changed meanwhile voids the proof, and the
      // screen runs again with the next one.
      async () => this.screen.checkOwn(await this.accounts.withPassword(c.userId), c.newPass),
    );
    this.events.emit(
      PasswordChangedEvent.NAME,
      new PasswordChangedEvent(changed.id, changed.username, c.ip, this.clock.now()),
    );
    // Only a change that happened: a refused one is in the login log (passwrong) or nowhere.
    await this.audit.recordDone('me.password.change', {
      actorId: changed.id,
      actorName: changed.username,
      ip: c.ip,
      targetId: changed.id,
      targetName: changed.username,
    });
  }

  /**
   * Once the old password is proven and the new one screened, under the account's login mutex: the
   * complexity check again (the strategy may have changed meanwhile), the new hash (the replaced one
   * joins the history), and the user's other sessions end.
   */
  private async setOwnPassword(userId: string, currentTokenHash: string, newPass: string): Promise<void> {
    const rules = await this.strategy.userStrategy();
    checkPasswordComplexity(newPass, rules);
    await this.users.setPassword(
      userId,
      await this.hasher.hash(newPass),
      this.clock.now(),
      previousToKeep(rules.passwordHistoryCount),
    );
    await this.sessions.endAll(userId, currentTokenHash);
  }
}
