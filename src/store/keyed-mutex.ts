import { randomUUID } from 'node:crypto';

import { Injectable, Logger, Optional } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { KvStore } from './kv.store';

/**
 * A mutual-exclusion section per key across every instance that shares the
 * store: SET NX PX to take it, compare-and-delete to release it. The login pipeline
 * uses it so that the lock check, the reservation of a compare slot and the
 * failure count of one account are never interleaved (exactly
 * maxFailureTimes evaluated); the BCrypt compare itself runs outside. No maintained package offers this on node-redis (redlock needs
 * ioredis), and it is a handful of lines on the store port.
 *
 * The lease bounds how long a crashed holder blocks others; a living holder renews it
 * (compare-and-pexpire) for as long as its section runs, so a slow section (a stalled
 * database) never loses the key to a second taker. The renewal timer lives in
 * the holder's process: when the process dies, renewal stops and the lease runs out.
 */
@Injectable()
export class KeyedMutex {
  private readonly logger = new Logger('KeyedMutex');
  /**
   * How long a taker waits before answering SERVICE_UNAVAILABLE. The sections are database work:
   * a holder stuck on a stalled table fails after DB_STATEMENT_TIMEOUT_MS, so waiting more than
   * two deadlines only queues requests behind a stall; a healthy section of one
   * account takes milliseconds plus one password compare.
   */
  readonly defaultWaitMs: number;
  /**
   * No longer than the wait: a living holder renews its lease anyway, and a crashed one must not
   * keep every taker of its key answering 503 for longer than a taker would wait.
   */
  private readonly defaultLeaseMs: number;

  constructor(
    private readonly store: KvStore,
    @Optional() config?: AppConfig,
  ) {
    const deadlineMs = config?.DB_STATEMENT_TIMEOUT_MS;
    this.defaultWaitMs = deadlineMs ? Math.max(2 * deadlineMs, 2_000) : 20_000;
    this.defaultLeaseMs = Math.min(15_000, this.defaultWaitMs);
  }

  run<T>(key: string, fn: () => Promise<T>, leaseMs = this.defaultLeaseMs, waitMs = this.defaultWaitMs): Promise<T> {
    return this.runReading(key, () => Promise.resolve(undefined), fn, leaseMs, waitMs);
  }

  /**
   * run(), with `read` sent to the store together with each attempt to take the key, so that the
   * section's first read costs no round trip of its own: the store runs a connection's commands in
   * the order they were sent, so what `read` answers is as read just after the key was taken.
   * `read` must be safe to run without the key (an attempt that finds the key held drops its
   * answer) and send its first command when called.
   */
  async runReading<R, T>(
    key: string,
    read: () => Promise<R>,
    fn: (read: R) => Promise<T>,
    leaseMs = this.defaultLeaseMs,
    waitMs = this.defaultWaitMs,
  ): Promise<T> {
    const owner = randomUUID();
    const giveUpAt = Date.now() + waitMs;
    let delay = 2;
    let value: R;
    for (;;) {
      const taken = this.take(key, owner, leaseMs);
      const answer = read();
      // Dropped when the key is held or the attempt fails; the attempt's own error is the one thrown.
      answer.catch(() => undefined);
      if (await taken) {
        value = await answer.catch(async (err: unknown) => {
          await this.store.delIfEquals(key, owner);
          throw err;
        });
        break;
      }
      if (Date.now() > giveUpAt) throw new AppException(ErrorCode.SERVICE_UNAVAILABLE);
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 25);
    }
    const stopRenewing = this.renewWhileHeld(key, owner, leaseMs);
    try {
      return await fn(value);
    } finally {
      stopRenewing();
      await this.store.delIfEquals(key, owner);
    }
  }

  /**
   * Runs `fn` only when the key is free right now, holding it (with a renewed lease) while `fn`
   * runs; resolves to `{ ran: false }` without waiting when another holder has it. For jobs that
   * one instance of a cluster does at a time (log retention), where a second taker should not queue.
   */
  async tryRun<T>(
    key: string,
    fn: () => Promise<T>,
    leaseMs = this.defaultLeaseMs,
  ): Promise<{ ran: true; value: T } | { ran: false }> {
    const owner = randomUUID();
    if (!(await this.take(key, owner, leaseMs))) return { ran: false };
    const stopRenewing = this.renewWhileHeld(key, owner, leaseMs);
    try {
      return { ran: true, value: await fn() };
    } finally {
      stopRenewing();
      await this.store.delIfEquals(key, owner);
    }
  }

  /**
   * SET NX PX. When its answer fails (the store's deadline passed), the store may still carry the
   * take out afterwards, leaving a key nobody holds or releases until its lease runs out; the
   * compare-and-delete sent after it (a connection's commands run in order) frees it. Not awaited:
   * the caller already waited the deadline once.
   */
  private take(key: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.store.setIfAbsent(key, owner, leaseMs).catch((err: unknown) => {
      this.store.delIfEquals(key, owner).catch(() => undefined);
      throw err;
    });
  }

  /**
   * Extends the lease every third of it, only while the key still holds this owner's value:
   * two renewals may fail (a slow store) before the lease runs out. Returns the stop function.
   */
  private renewWhileHeld(key: string, owner: string, leaseMs: number): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const schedule = () => {
      timer = setTimeout(
        async () => {
          try {
            if (!(await this.store.expireIfEquals(key, owner, leaseMs))) {
              // Only when the store lost the key or renewals failed for a whole lease.
              if (!stopped) this.logger.warn(`lease of ${key} was lost while its holder still ran`);
              return;
            }
          } catch (err) {
            this.logger.warn(`lease of ${key} not renewed: ${(err as Error)?.name}`);
          }
          if (!stopped) schedule();
        },
        Math.max(1, Math.floor(leaseMs / 3)),
      );
      // A pending renewal must not keep a process alive that is shutting down.
      timer.unref();
    };
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
}
