import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { KvStore } from './kv.store';

/**
 * A mutual-exclusion section per key across every instance that shares the
 * store: SET NX PX to take it, compare-and-delete to release it, the lease
 * bounding how long a crashed holder can block others. The login pipeline
 * uses it so that the lock check, the password compare and the failure count
 * of one account are never interleaved (contract §5: exactly maxFailureTimes
 * evaluated). No maintained package offers this on node-redis (redlock needs
 * ioredis), and it is a handful of lines on the store port.
 */
@Injectable()
export class KeyedMutex {
  constructor(private readonly store: KvStore) {}

  async run<T>(key: string, fn: () => Promise<T>, leaseMs = 15_000, waitMs = 20_000): Promise<T> {
    const owner = randomUUID();
    const giveUpAt = Date.now() + waitMs;
    let delay = 2;
    while (!(await this.store.setIfAbsent(key, owner, leaseMs))) {
      if (Date.now() > giveUpAt) throw new AppException(ErrorCode.SERVICE_UNAVAILABLE);
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 25);
    }
    try {
      return await fn();
    } finally {
      await this.store.delIfEquals(key, owner);
    }
  }
}
