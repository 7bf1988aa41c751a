/**
 * Spec 3.1 as pure rules (contract §5 decides the window's start): the one place that says when
 * failures count, when they lock and when a lock is over. No I/O: the callers read and write.
 */

const HOUR_MS = 3_600_000;

/**
 * Failures count from the later of (now − maxFailureInterval hours) and the account's last
 * failure reset (an unlock, automatic or by an administrator, an enable or a password reset).
 */
export function failureWindowStart(now: Date, maxFailureIntervalHours: number, failureResetTime: Date | null): Date {
  return new Date(Math.max(now.getTime() - maxFailureIntervalHours * HOUR_MS, failureResetTime?.getTime() ?? 0));
}

/** Spec 3.1: "plus the current failure reach at least maxFailureTimes" → lock. */
export function failuresLock(failures: number, maxFailureTimes: number): boolean {
  return failures >= maxFailureTimes;
}

/** Spec 3.1: a lock ends at a login attempt only when unlock_time is set and earlier than now. */
export function unlockDue(lock: { locked: boolean; unlockTime: Date | null }, now: Date): boolean {
  return !!lock.locked && lock.unlockTime !== null && lock.unlockTime.getTime() < now.getTime();
}

export function lockedUntil(now: Date, lockMinutes: number): Date {
  return new Date(now.getTime() + lockMinutes * 60_000);
}
