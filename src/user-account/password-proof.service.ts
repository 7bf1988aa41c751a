import { Injectable } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { AccountStateService } from './account-state.service';
import { CompareSlot, CompareSlots } from './compare-slots';
import { freeSlots } from './lock-policy';
import { LockoutService } from './lockout.service';
import { PasswordHasher } from './password-hasher';
import { UserEntity } from './user.entity';
import { UserLookup } from './user-lookup.service';

/**
 * A password that matched, its compare slot still held. It proves nothing until confirmed under
 * the account's login mutex: the account may have been reset, changed or locked during the compare.
 */
export interface ComparedPassword {
  /**
   * The account as read, under its mutex, when the compare was admitted; its `password` is the hash
   * the password matched.
   */
  readonly user: UserEntity;
  /**
   * Inside the account's login mutex, with `current` the account as read there: frees the slot;
   * when the hash is another by now (a reset, a change), the proof starts again with the new one;
   * when the account is locked by now, refused (ProofRefusals.locked) as a serial order would.
   */
  confirm(current: UserEntity): Promise<void>;
}

/** How the caller answers a refused proof; each writes its log row and throws. */
export interface ProofRefusals {
  /** The account is locked and not due (checked before the compare); the compare time is already spent. */
  locked(user: UserEntity): Promise<never>;
  /** A wrong password, under the account's login mutex with the account just reread (LockoutService.recordWrongPassword). */
  wrong(user: UserEntity): Promise<never>;
}

type Admission = { locked: true; user: UserEntity } | { locked: false; user: UserEntity; slot: CompareSlot };

/** Thrown by ComparedPassword.confirm when the hash changed: prove() compares again. */
const HASH_CHANGED = Symbol('the password hash changed during the compare');

/**
 * The one protocol by which a password is proven (a login, the old password of an own change, a
 * step-up), as a serial order would prove it, without holding the account's login mutex through
 * BCrypt:
 *
 * 1. under the mutex: reread, lock check (before the compare, so a locked account tells nothing),
 *    take a compare slot (LockoutService.reserveCompare); with none free, let go of the mutex and
 *    wait in this instance's line for the account (the lock is checked again whenever a slot shows
 *    free);
 * 2. outside: the compare, while the slot is held;
 * 3. under the mutex again, with the account reread (recheck): a hash changed meanwhile means the
 *    compare is void and runs again with the new hash; a lock meanwhile refuses. Then a wrong
 *    password frees its slot and is recorded in one step, so failures + compares in flight never
 *    exceed maxFailureTimes on any number of instances; a right one runs the caller's work.
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

  /**
   * Proves `password` for the account and hands the match to `use`, which must confirm it inside
   * the account's login mutex (ComparedPassword.confirm) before it acts on it; the login tail does
   * so in its own mutex section. Refused attempts end in `refusals`. The slot is freed however
   * `use` ends.
   */
  async prove<T>(
    userId: string,
    password: string,
    refusals: ProofRefusals,
    use: (compared: ComparedPassword) => Promise<T>,
    /** A client known good (TrustedClients): the compare goes ahead of a flood's (CompareBudget). */
    priority = false,
  ): Promise<T> {
    let giveUpAt = Date.now() + this.mutex.defaultWaitMs;
    for (;;) {
      const admitted = await this.admit(userId, giveUpAt);
      if (admitted.locked) {
        // The same time as a compare, outside the mutex: the reply never tells whether the guess was right.
        await this.hasher.burn(password, userId, priority);
        return refusals.locked(admitted.user);
      }
      const { user, slot } = admitted;
      try {
        if (await this.hasher.matches(password, user.password, userId, priority)) {
          return await use({
            user,
            confirm: async (current) => {
              await slot.release();
              if (!(await this.recheck(current, user, refusals))) throw HASH_CHANGED;
            },
          });
        }
        await this.mutex.run(Keys.loginMutex(userId), async () => {
          await slot.release();
          const current = await this.accounts.withPassword(userId);
          if (await this.recheck(current, user, refusals)) await refusals.wrong(current);
        });
      } catch (err) {
        if (err !== HASH_CHANGED) throw err;
        // A right password met a new hash: a new proof, with a wait of its own.
        giveUpAt = Date.now() + this.mutex.defaultWaitMs;
      } finally {
        await slot.release();
      }
    }
  }

  /**
   * prove() for a caller with no mutex section of its own: `then` runs under the account's login
   * mutex once the match is confirmed there, with the account as read there; `first` runs before,
   * outside the mutex (work too slow to hold the mutex through, such as the new password's screen).
   */
  proveThen<T>(
    userId: string,
    password: string,
    refusals: ProofRefusals,
    then: (current: UserEntity) => Promise<T>,
    first?: () => Promise<void>,
  ): Promise<T> {
    return this.prove(userId, password, refusals, async (compared) => {
      await first?.();
      return this.mutex.run(Keys.loginMutex(userId), async () => {
        const current = await this.accounts.withPassword(userId);
        await compared.confirm(current);
        return then(current);
      });
    });
  }

  /**
   * Step 3, under the account's login mutex with `current` just read: false when its hash is no
   * longer the one `compared` was read with (a serial order would have compared with the new one,
   * so the compare counts for nothing); refused when locked meanwhile (by an administrator, or by
   * wrong passwords of a parallel attempt); true otherwise.
   */
  private async recheck(current: UserEntity, compared: UserEntity, refusals: ProofRefusals): Promise<boolean> {
    if (current.password !== compared.password) return false;
    if (await this.states.stillLocked(current)) await refusals.locked(current);
    return true;
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
      // The slots are counted in the same round trip as the mutex is taken (see runReading).
      return await this.mutex.runReading(
        Keys.loginMutex(userId),
        () => this.slots.held(userId),
        async (inFlight): Promise<Admission | null> => {
          if (freeSlots(0, inFlight, maxFailureTimes) === 0) return null;
          const user = await this.accounts.withPassword(userId);
          if (await this.states.stillLocked(user)) return { locked: true, user };
          slot = await this.lockout.reserveCompare(user, inFlight);
          return slot ? { locked: false, user, slot } : null;
        },
        undefined,
        Math.max(0, giveUpAt - Date.now()),
      );
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
    const mine = new Promise<void>((r) => {
      done = r;
    });
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
