import type { RetryPolicy } from '../notification.types';

/** Tuning of the outbox worker. Times are milliseconds. */
export const OUTBOX = {
  /** How often every instance looks for due rows (besides the kick after each insert). */
  pollMs: 1_000,
  /** Rows looked at per query. */
  batchSize: 20,
  /** A claim older than this is presumed dead (its instance crashed) and may be taken over. */
  leaseMs: 5 * 60_000,
  /** Attempts before a row is given up as failed: 5 s, 10 s, 20 s … about 40 min in all. */
  maxAttempts: 10,
  backoffBaseMs: 5_000,
  backoffMaxMs: 60 * 60_000,
} as const;

/** Exponential backoff after the n-th failed attempt (n ≥ 1). */
export function backoffMs(attempts: number): number {
  return Math.min(OUTBOX.backoffBaseMs * 2 ** Math.max(0, attempts - 1), OUTBOX.backoffMaxMs);
}

/** The retries of every channel that names none of its own (email, sms, site). */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: OUTBOX.maxAttempts, delayMs: backoffMs };
