import { accountState, accountStates, StateSource } from './account-state';

const DAY = 86_400_000;
const now = new Date('2025-03-10T12:00:00.000Z');
const ago = (ms: number): Date => new Date(now.getTime() - ms);

/** An active user: password changed a day ago, created ten days ago, neither locked nor disabled. */
const user = (over: Partial<StateSource> = {}): StateSource => ({
  locked: false,
  unlockTime: null,
  disabled: false,
  passwordUpdateTime: ago(DAY),
  createTime: ago(10 * DAY),
  ...over,
});

describe('account state: the one rule the user list shows and filters by', () => {
  it('a user none of the states applies to is normal', () => {
    expect(accountStates(user(), 90, now)).toEqual(['normal']);
    expect(accountState(user({ locked: null, disabled: null }), 90, now)).toBe('normal');
  });

  it('locked while the lock refuses a login: no unlock time, or one not yet past', () => {
    expect(accountState(user({ locked: true }), 90, now)).toBe('locked');
    expect(accountState(user({ locked: true, unlockTime: new Date(now.getTime() + 1) }), 90, now)).toBe('locked');
    expect(accountState(user({ locked: true, unlockTime: now }), 90, now)).toBe('locked');
    // A lock whose time has passed ends at the next attempt: the user is no longer locked.
    expect(accountState(user({ locked: true, unlockTime: ago(1) }), 90, now)).toBe('normal');
  });

  it('disabled by the flag', () => {
    expect(accountState(user({ disabled: true }), 90, now)).toBe('disabled');
  });

  it('expired once passwordExpireDays since the last change (or the creation) are past; never with 0 days', () => {
    expect(accountState(user({ passwordUpdateTime: ago(90 * DAY + 1) }), 90, now)).toBe('expired');
    expect(accountState(user({ passwordUpdateTime: ago(90 * DAY) }), 90, now)).toBe('normal');
    expect(accountState(user({ passwordUpdateTime: ago(900 * DAY) }), 0, now)).toBe('normal');
    expect(accountStates(user({ passwordUpdateTime: null, createTime: ago(91 * DAY) }), 90, now)).toEqual([
      'expired',
      'initial',
    ]);
  });

  it('initial while the password was never changed since an administrator set it', () => {
    expect(accountState(user({ passwordUpdateTime: null }), 90, now)).toBe('initial');
  });

  it('several states apply at once; the one shown is the first a login meets: locked, disabled, expired, initial', () => {
    const all = user({ locked: true, disabled: true, passwordUpdateTime: null, createTime: ago(91 * DAY) });
    expect(accountStates(all, 90, now)).toEqual(['locked', 'disabled', 'expired', 'initial']);
    expect(accountState(all, 90, now)).toBe('locked');
    expect(accountState(user({ disabled: true, passwordUpdateTime: null }), 90, now)).toBe('disabled');
  });
});
