import type { UserState } from './dto/user.dto';
import { unlockDue } from './lock-policy';
import { passwordExpiresAt } from './password-expiry';
import type { UserEntity } from './user.entity';

/** What a user's state is read from: the row's lock, disable and password columns. */
export type StateSource = Pick<UserEntity, 'locked' | 'unlockTime' | 'disabled' | 'passwordUpdateTime' | 'createTime'>;

/**
 * The states that apply, most pressing first, in the order a login meets them: a lock refuses before
 * anything, then the disable, then the password's expiry, then the first-login change. The order is
 * the precedence of `accountState`; the list filter selects every user a state applies to, so one
 * user may be found under several of them.
 */
export const STATE_PRECEDENCE = ['locked', 'disabled', 'expired', 'initial'] as const satisfies readonly UserState[];

/**
 * Every state that applies to `user` as of `now` under the account strategy's passwordExpireDays,
 * most pressing first; `['normal']` when none does. locked: the lock still refuses a login (no unlock
 * time, or one not yet past); disabled; expired: the password's expiry (0 days: never) is past;
 * initial: the password was set by an administrator and never changed since. The list filter's SQL
 * (statePredicate in user.repository.ts) selects by the same rules.
 */
export function accountStates(user: StateSource, passwordExpireDays: number, now: Date): UserState[] {
  const holds: Record<(typeof STATE_PRECEDENCE)[number], boolean> = {
    locked: !!user.locked && !unlockDue({ locked: true, unlockTime: user.unlockTime ?? null }, now),
    disabled: !!user.disabled,
    expired: (passwordExpiresAt(user, passwordExpireDays)?.getTime() ?? Infinity) < now.getTime(),
    initial: !user.passwordUpdateTime,
  };
  const states = STATE_PRECEDENCE.filter((s) => holds[s]);
  return states.length ? states : ['normal'];
}

/** The one state a user is shown under: the most pressing of accountStates. */
export function accountState(user: StateSource, passwordExpireDays: number, now: Date): UserState {
  return accountStates(user, passwordExpireDays, now)[0];
}
