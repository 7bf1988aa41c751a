import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';

import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { KeyedMutex } from './keyed-mutex';
import { KvStore } from './kv.store';
import { MemoryKvStore } from './memory-kv.store';

@Global()
@Module({
  providers: [
    {
      provide: KvStore,
      inject: [AppConfig, Clock],
      useFactory: (config: AppConfig, clock: Clock): Promise<KvStore> | KvStore => {
        if (!config.REDIS_SENTINELS && !config.REDIS_URL) return new MemoryKvStore(clock);
        // Required here: the embedded default never loads the Redis client.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { RedisKvStore } = require('./redis-kv.store') as typeof import('./redis-kv.store');
        if (config.REDIS_SENTINELS) {
          return RedisKvStore.connectSentinel({
            sentinels: config.redisSentinelNodes,
            master: config.REDIS_SENTINEL_MASTER!,
            prefix: config.REDIS_KEY_PREFIX,
            waitReplicas: config.REDIS_SENTINEL_WAIT_REPLICAS,
          });
        }
        return RedisKvStore.connect(config.REDIS_URL!, config.REDIS_KEY_PREFIX, config.START_TIMEOUT_MS);
      },
    },
    KeyedMutex,
  ],
  exports: [KvStore, KeyedMutex],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(KvStore) private readonly store: KvStore) {}

  async onApplicationShutdown() {
    await this.store.close();
  }
}
