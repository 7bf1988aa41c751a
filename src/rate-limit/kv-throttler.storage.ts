import { ThrottlerStorage } from '@nestjs/throttler';

import { KvStore } from '../store/kv.store';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export const THROTTLE_KEY_PREFIX = 'THROTTLE:';

/**
 * @nestjs/throttler's storage port on our KvStore: a fixed window per key, counted with one
 * atomic increment, so that with REDIS_URL every instance counts into the same window
 * (@nest-lab/throttler-storage-redis needs ioredis and peers Nest ≤ 11). A client over the
 * limit stays refused until its window ends; blockDuration is not used.
 */
export class KvThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly store: KvStore) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const { count, ttlMs } = await this.store.incrWithTtl(THROTTLE_KEY_PREFIX + key, ttl);
    const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
    const isBlocked = count > limit;
    return { totalHits: count, timeToExpire: seconds, isBlocked, timeToBlockExpire: isBlocked ? seconds : 0 };
  }
}
