import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { StrategyService } from '../strategy/strategy.service';
import { LoginFailedEvent } from './account.events';
import { AccountStateService } from './account-state.service';
import { CompareSlot, CompareSlots } from './compare-slots';
import { failuresLock, failureWindowStart, freeSlots } from './lock-policy';
import { UserEntity } from './user.entity';

export interface WrongPassword {
  /** The account row as read inside the account's login mutex. */
  user: UserEntity;
  /** What the client typed to name the account (the user name for a password change). */
  account: string;
  loginType: LoginTypes;
  ip: string;
  userAgent: string;
  /** The answer the client gets, recorded as the failure reason. */
  reason: ErrorCode;
}

/** A failure of any proof the lock counts: a wrong password (passwrong) or second-factor code (mfawrong). */
export interface WrongProof extends WrongPassword {
  status: LoginStatus.PASSWRONG | LoginStatus.MFAWRONG;
}

/**
 * For every place a password is proven: the login (step 3) and the old password of a
 * password change (a stolen token must not be a free password oracle). One wrong
 * password is logged `passwrong`, counted in the window and may lock the account; the owner is
 * notified. The caller holds the account's login mutex, so the count is exact; and a
 * password is only compared in a slot (reserveCompare), so that no more wrong ones are evaluated than
 * the count has room for, although compares of one account run at once.
 */
@Injectable()
export class LockoutService {
  constructor(
    private readonly logs: LoginLogService,
    private readonly accounts: AccountStateService,
    private readonly strategy: StrategyService,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly slots: CompareSlots,
  ) {}

  /**
   * A slot for one password compare of the account, or null while failures counted in the window
   * plus the `inFlight` compares leave none (freeSlots). The caller holds the account's login mutex
   * (the count and the take are one step), read `inFlight` (CompareSlots.held) in that same hold and
   * has checked the lock.
   */
  async reserveCompare(user: UserEntity, inFlight: number): Promise<CompareSlot | null> {
    const { maxFailureInterval, maxFailureTimes } = await this.strategy.loginStrategy();
    // The count is read only when it decides: not when the compares in flight fill every slot
    // whatever it is, nor when they leave one free whatever it is (none in flight).
    if (freeSlots(0, inFlight, maxFailureTimes) === 0) return null;
    if (freeSlots(Number.MAX_SAFE_INTEGER, inFlight, maxFailureTimes) > 0) return this.slots.take(user.id);
    const failures = await this.failuresInWindow(user, this.clock.now(), maxFailureInterval);
    return freeSlots(failures, inFlight, maxFailureTimes) > 0 ? this.slots.take(user.id) : null;
  }

  /** True when this failure locked the account. An automatic lock ends no session. */
  recordWrongPassword(w: WrongPassword): Promise<boolean> {
    return this.recordFailure({ ...w, status: LoginStatus.PASSWRONG });
  }

  /**
   * One failure toward the lock: logged with its status, counted in the window with the others (a
   * wrong second-factor code counts as a wrong password does), may lock, and is notified.
   * True when it locked the account. The caller holds the account's login mutex.
   */
  async recordFailure(w: WrongProof): Promise<boolean> {
    const now = this.clock.now();
    const { maxFailureInterval, maxFailureTimes } = await this.strategy.loginStrategy();
    // Counted before the row is written, plus this one (the mutex holds the count): the row is then
    // written once with whether it locked, never changed afterwards (the log is sealed).
    const failures = (await this.failuresInWindow(w.user, now, maxFailureInterval)) + 1;
    const locks = failuresLock(failures, maxFailureTimes);
    await this.logs.record({
      userId: w.user.id,
      account: w.account,
      userName: w.user.name,
      loginType: w.loginType,
      status: w.status,
      ip: w.ip,
      userAgent: w.userAgent,
      failure: w.reason,
      locking: locks,
    });
    let lockedUntil: Date | undefined;
    if (locks) lockedUntil = await this.accounts.lockAfterFailures(w.user, failures);
    await this.events.emitAsync(
      LoginFailedEvent.NAME,
      new LoginFailedEvent(
        w.user.id,
        w.account,
        w.loginType,
        w.ip,
        now,
        w.status === LoginStatus.MFAWRONG,
        lockedUntil,
      ),
    );
    return locks;
  }

  private failuresInWindow(user: UserEntity, now: Date, maxFailureInterval: number): Promise<number> {
    return this.logs.countFailuresSince(user.id, failureWindowStart(now, maxFailureInterval, user.failureResetTime));
  }
}
