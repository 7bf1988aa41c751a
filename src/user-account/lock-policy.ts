/**
 * The lock as pure rules: the one place that says when failures count, when they lock and when a
 * lock is over. No I/O, so each rule is specified alone; the callers read and write.
 */

const HOUR_MS = 3_600_000;

/**
 * Failures count from the later of (now − maxFailureInterval hours) and the account's last
 * failure reset (an unlock, automatic or by an administrator, an enable or a password reset).
 */
export function failureWindowStart(now: Date, maxFailureIntervalHours: number, failureResetTime: Date | null): Date {
  return new Date(Math.max(now.getTime() - maxFailureIntervalHours * HOUR_MS, failureResetTime?.getTime() ?? 0));
}

/** The failures in the window, the one just logged included, lock once they reach maxFailureTimes. */
export function failuresLock(failures: number, maxFailureTimes: number): boolean {
  return failures >= maxFailureTimes;
}

/**
 * How many more password compares of one account may start now, given the failures
 * counted in the window and the compares already in flight (each may turn out one more failure).
 * Never more than maxFailureTimes − failures at once, so that no more than maxFailureTimes wrong
 * passwords are ever evaluated before the lock. When the count already reached maxFailureTimes
 * without a lock (the limit lowered, or a lock write that failed), one compare at a time, as a
 * serial order would run it: a wrong one then locks, a right one logs in.
 */
export function freeSlots(failures: number, inFlight: number, maxFailureTimes: number): number {
  return Math.max(0, Math.max(maxFailureTimes - failures, 1) - inFlight);
}

/** A lock ends at a login attempt only when unlock_time is set and earlier than now. */
export function unlockDue(lock: { locked: boolean; unlockTime: Date | null }, now: Date): boolean {
  return !!lock.locked && lock.unlockTime !== null && lock.unlockTime.getTime() < now.getTime();
}

/** When a lock that starts now ends. */
export function lockedUntil(now: Date, lockMinutes: number): Date {
  return new Date(now.getTime() + lockMinutes * 60_000);
}
