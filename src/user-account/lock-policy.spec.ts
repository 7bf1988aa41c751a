import { failuresLock, failureWindowStart, freeSlots, lockedUntil, unlockDue } from './lock-policy';

const HOUR = 3_600_000;
const now = new Date('2025-03-10T12:00:00.000Z');
const ago = (ms: number): Date => new Date(now.getTime() - ms);

describe('lock policy', () => {
  describe('failureWindowStart: the later of now − maxFailureInterval hours and the failure reset time', () => {
    it('with no reset time the window starts maxFailureInterval hours ago, to the millisecond', () => {
      expect(failureWindowStart(now, 24, null)).toEqual(ago(24 * HOUR));
      expect(failureWindowStart(now, 1, null)).toEqual(ago(HOUR));
    });

    it('a reset older than the window does not move it', () => {
      expect(failureWindowStart(now, 24, ago(24 * HOUR + 1))).toEqual(ago(24 * HOUR));
      expect(failureWindowStart(now, 24, ago(30 * 24 * HOUR))).toEqual(ago(24 * HOUR));
    });

    it('a reset inside the window (an unlock, enable or password reset) starts the count there', () => {
      expect(failureWindowStart(now, 24, ago(24 * HOUR - 1))).toEqual(ago(24 * HOUR - 1));
      expect(failureWindowStart(now, 24, ago(5 * 60_000))).toEqual(ago(5 * 60_000));
    });

    it('a reset exactly at now − maxFailureInterval gives that same start', () => {
      expect(failureWindowStart(now, 24, ago(24 * HOUR))).toEqual(ago(24 * HOUR));
    });

    it('a reset at now leaves an empty window: only failures from now on count', () => {
      expect(failureWindowStart(now, 24, now)).toEqual(now);
    });

    // countFailuresSince counts records with login_time >= the start (the e2e lockout suite proves it
    // against the database): so the failure at the start counts and the one before it does not.
    it('a failure exactly maxFailureInterval hours old sits on the start (counted); 1 ms older lies before it', () => {
      const start = failureWindowStart(now, 24, null).getTime();
      expect(ago(24 * HOUR).getTime()).toBe(start);
      expect(ago(24 * HOUR + 1).getTime()).toBe(start - 1);
    });
  });

  describe('failuresLock: the earlier failures plus the current one reach at least maxFailureTimes', () => {
    it('max − 1 does not lock, max and max + 1 lock', () => {
      expect(failuresLock(4, 5)).toBe(false);
      expect(failuresLock(5, 5)).toBe(true);
      expect(failuresLock(6, 5)).toBe(true);
    });

    it('maxFailureTimes 1: the very first failure locks', () => {
      expect(failuresLock(0, 1)).toBe(false);
      expect(failuresLock(1, 1)).toBe(true);
    });
  });

  describe('unlockDue: a lock ends at a login attempt only when unlock_time is set and earlier than now', () => {
    it('unlock_time exactly now is not yet earlier than now: still locked', () => {
      expect(unlockDue({ locked: true, unlockTime: now }, now)).toBe(false);
    });

    it('unlock_time 1 ms before now is due', () => {
      expect(unlockDue({ locked: true, unlockTime: ago(1) }, now)).toBe(true);
    });

    it('unlock_time in the future is not due', () => {
      expect(unlockDue({ locked: true, unlockTime: new Date(now.getTime() + 1) }, now)).toBe(false);
    });

    it('no unlock_time: the lock lasts until an administrator unlocks it', () => {
      expect(unlockDue({ locked: true, unlockTime: null }, now)).toBe(false);
    });

    it('an account that is not locked has nothing to unlock, whatever its unlock_time', () => {
      expect(unlockDue({ locked: false, unlockTime: ago(HOUR) }, now)).toBe(false);
      expect(unlockDue({ locked: false, unlockTime: null }, now)).toBe(false);
    });
  });

  describe('lockedUntil: unlock_time = now + lockMinutes', () => {
    it('adds lockMinutes in minutes, to the millisecond', () => {
      expect(lockedUntil(now, 1440)).toEqual(new Date('2025-03-11T12:00:00.000Z'));
      expect(lockedUntil(now, 1)).toEqual(new Date('2025-03-10T12:01:00.000Z'));
    });

    it('a lock of 0 minutes ends at now, so it is due 1 ms later and not before', () => {
      const until = lockedUntil(now, 0);
      expect(until).toEqual(now);
      expect(unlockDue({ locked: true, unlockTime: until }, now)).toBe(false);
      expect(unlockDue({ locked: true, unlockTime: until }, new Date(now.getTime() + 1))).toBe(true);
    });
  });

  describe('freeSlots: compares of one account that may start now', () => {
    it('without failures or compares in flight, maxFailureTimes compares may run at once', () => {
      expect(freeSlots(0, 0, 5)).toBe(5);
      expect(freeSlots(0, 0, 1)).toBe(1);
    });

    it('each counted failure and each compare in flight takes one', () => {
      expect(freeSlots(2, 0, 5)).toBe(3);
      expect(freeSlots(0, 3, 5)).toBe(2);
      expect(freeSlots(2, 2, 5)).toBe(1);
    });

    it('none once failures + compares in flight reach maxFailureTimes: no more wrong ones can be evaluated', () => {
      expect(freeSlots(2, 3, 5)).toBe(0);
      expect(freeSlots(4, 1, 5)).toBe(0);
      expect(freeSlots(0, 5, 5)).toBe(0);
      expect(freeSlots(0, 9, 5)).toBe(0);
    });

    it('failures at or past maxFailureTimes without a lock: one compare at a time, never none', () => {
      expect(freeSlots(5, 0, 5)).toBe(1);
      expect(freeSlots(7, 0, 5)).toBe(1);
      expect(freeSlots(5, 1, 5)).toBe(0);
      expect(freeSlots(1, 0, 1)).toBe(1);
      expect(freeSlots(1, 1, 1)).toBe(0);
    });
  });
});
