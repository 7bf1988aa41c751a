import { Injectable } from '@nestjs/common';
import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { CompareSlot, CompareSlots } from './compare-slots';
import { freeSlots } from './lock-policy';
import { LockoutService } from './lockout.service';
import { PasswordHasher } from './password-hasher';
import { AccountStateService } from './account-state.service';
import { UserLookup } from './user-lookup.service';
import { UserEntity } from './user.entity';

/** A right password, compared while its slot was held. */
export interface RightPassword {
  /**
   * The account as read, under its mutex, when the compare was admitted; its `password` is the hash
   * the password matched. A section that rereads the account and finds another hash (an
   * administrator's reset, a password change meanwhile) must not act on this compare.
   */
  readonly user: UserEntity;
  /** Frees the compare slot: the caller calls it inside its own mutex section, and again in a finally. */
  release(): Promise<void>;
}

/** How the caller answers a refused proof; each writes its log row and throws. */
export interface ProofRefusals {
  /** The account is locked and not due (checked before the compare, contract §5); the compare time is already spent. */
  locked(user: UserEntity): Promise<never>;
  /** A wrong password, under the account's login mutex with the account just reread (LockoutService.recordWrongPassword). */
  wrong(user: UserEntity): Promise<never>;
}

type Admission = { locked: true; user: UserEntity } | { locked: false; user: UserEntity; slot: CompareSlot };

/**
 * A password proven against an account as a serial order would prove it, without holding the
 * account's login mutex through BCrypt (issue 13.3):
 *
 * 1. under the mutex: reread, lock check (contract §5: before the compare), take a compare slot
 *    (LockoutService.reserveCompare); with none free, let go of the mutex and wait in this
 *    instance's line for the account (the lock is checked again whenever a slot shows free);
 * 2. outside: the compare, while the slot is held;
 * 3. a wrong password: under the mutex, the slot freed and the failure recorded in one step, so
 *    failures + compares in flight never exceed maxFailureTimes and no more than maxFailureTimes
 *    wrong passwords are evaluated before the lock, on any number of instances. A right one goes
 *    back to the caller, which rereads, checks the lock again and goes on under its own mutex section.
 */
@Injectable()
export class PasswordProof {
  /** Per account, the end of this instance's line of waiters (see admit). */
  private readonly lines = new Map<string, Promise<void>>();

  constructor(
    private readonly accounts: UserLookup,
    private readonly states: AccountStateService,
    private readonly lockout: LockoutService,
    private readonly hasher: PasswordHasher,
    private readonly mutex: KeyedMutex,
    private readonly slots: CompareSlots,
    private readonly strategy: StrategyService,
  ) {}

  async compare(userId: string, password: string, refusals: ProofRefusals): Promise<RightPassword> {
    const giveUpAt = Date.now() + this.mutex.defaultWaitMs;
    for (;;) {
      const admitted = await this.admit(userId, giveUpAt);
      if (admitted.locked) {
        // The same time as a compare, outside the mutex: the reply never tells whether the guess was right.
        await this.hasher.burn(password);
        return refusals.locked(admitted.user);
      }
      const { user, slot } = admitted;
      let right: boolean;
      try {
        right = await this.hasher.matches(password, user.password);
      } catch (err) {
        await slot.release();
        throw err;
      }
      if (right) return { user, release: () => slot.release() };
      try {
        await this.mutex.run(Keys.loginMutex(userId), async () => {
          await slot.release();
          const current = await this.accounts.withPassword(userId);
          // Changed meanwhile (a reset): a serial order would have compared with the new hash, so compare again.
          if (current.password !== user.password) return;
          // Locked meanwhile by an administrator: refused as a serial order would, not counted.
          if (await this.states.stillLocked(current)) await refusals.locked(current);
          await refusals.wrong(current);
        });
      } finally {
        await slot.release();
      }
    }
  }

  /**
   * Step 1, until a slot is free or the account is found locked; SERVICE_UNAVAILABLE at the mutex's
   * wait. Those of one account that find no slot wait in line on this instance, first come first
   * served, and only the first of the line looks for a free slot: no herd of pollers, and a
   * newcomer never takes the slot the longest waiter is waiting for.
   */
  private async admit(userId: string, giveUpAt: number): Promise<Admission> {
    if (!this.lines.has(userId)) {
      const admitted = await this.tryAdmit(userId, giveUpAt, false);
      if (admitted) return admitted;
    }
    return this.inLine(userId, async () => {
      for (;;) {
        if (Date.now() > giveUpAt) throw new AppException(ErrorCode.SERVICE_UNAVAILABLE);
        const admitted = await this.tryAdmit(userId, giveUpAt, true);
        if (admitted) return admitted;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
      }
    });
  }

  /** One look for a slot: null when none is free. */
  private async tryAdmit(userId: string, giveUpAt: number, waiting: boolean): Promise<Admission | null> {
    const { maxFailureTimes } = await this.strategy.loginStrategy();
    // While waiting, every slot taken by compares in flight is seen without taking the mutex.
    if (waiting && freeSlots(0, await this.slots.held(userId), maxFailureTimes) === 0) return null;
    let slot: CompareSlot | null = null;
    try {
      return await this.mutex.run(Keys.loginMutex(userId), async (): Promise<Admission | null> => {
        const inFlight = await this.slots.held(userId);
        if (freeSlots(0, inFlight, maxFailureTimes) === 0) return null;
        const user = await this.accounts.withPassword(userId);
        if (await this.states.stillLocked(user)) return { locked: true, user };
        slot = await this.lockout.reserveCompare(user, inFlight);
        return slot ? { locked: false, user, slot } : null;
      }, undefined, Math.max(0, giveUpAt - Date.now()));
    } catch (err) {
      // A slot taken in a section that failed to end (the store going away) must not stay renewed.
      await (slot as CompareSlot | null)?.release();
      throw err;
    }
  }

  /** Runs `wait` after every earlier waiter of the account on this instance has had its turn. */
  private async inLine<T>(userId: string, wait: () => Promise<T>): Promise<T> {
    const ahead = this.lines.get(userId) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((r) => { done = r; });
    const tail = ahead.then(() => mine);
    this.lines.set(userId, tail);
    try {
      await ahead;
      return await wait();
    } finally {
      done();
      if (this.lines.get(userId) === tail) this.lines.delete(userId);
    }
  }
}
