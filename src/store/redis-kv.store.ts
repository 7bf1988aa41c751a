import { Logger } from '@nestjs/common';
import { createClient, RedisClientType } from 'redis';
import { KvStore } from './kv.store';

const DEL_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const REPLACE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 else return 0 end`;

/** Redis store: what several instances share. Every key and channel gets REDIS_KEY_PREFIX. */
export class RedisKvStore extends KvStore {
  private readonly logger = new Logger('Redis');
  private subscriber?: RedisClientType;

  private constructor(private readonly client: RedisClientType, private readonly prefix: string) {
    super();
  }

  static async connect(url: string, prefix: string): Promise<RedisKvStore> {
    const client = createClient({
      url,
      // Fail fast while Redis is away instead of queueing requests until they hang.
      disableOfflineQueue: true,
      socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 3000) },
    }) as RedisClientType;
    const store = new RedisKvStore(client, prefix);
    client.on('error', (err: Error) => store.logger.warn(`redis: ${err.name}: ${err.message}`));
    await client.connect();
    return store;
  }

  private k(key: string) {
    return this.prefix + key;
  }

  async get(key: string) {
    return (await this.client.get(this.k(key))) as string | null;
  }

  async mget(keys: string[]) {
    if (!keys.length) return [];
    return (await this.client.mGet(keys.map((k) => this.k(k)))) as (string | null)[];
  }

  async set(key: string, value: string, ttlMs?: number) {
    if (ttlMs === undefined) await this.client.set(this.k(key), value);
    else await this.client.set(this.k(key), value, { expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) } });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    const r = await this.client.set(this.k(key), value, {
      condition: 'NX', expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
    });
    return r === 'OK';
  }

  async replaceKeepTtl(key: string, value: string) {
    const r = await this.client.set(this.k(key), value, { condition: 'XX', expiration: 'KEEPTTL' });
    return r === 'OK';
  }

  async replaceIfEquals(key: string, expected: string, value: string) {
    const r = await this.client.eval(REPLACE_IF_EQUALS, { keys: [this.k(key)], arguments: [expected, value] });
    return Number(r) === 1;
  }

  async getDel(key: string) {
    return (await this.client.getDel(this.k(key))) as string | null;
  }

  async delIfEquals(key: string, value: string) {
    const r = await this.client.eval(DEL_IF_EQUALS, { keys: [this.k(key)], arguments: [value] });
    return Number(r) === 1;
  }

  async del(...keys: string[]) {
    if (keys.length) await this.client.del(keys.map((k) => this.k(k)));
  }

  async expire(key: string, ttlMs: number) {
    await this.client.pExpire(this.k(key), Math.max(1, Math.ceil(ttlMs)));
  }

  async ttl(key: string) {
    return Number(await this.client.pTTL(this.k(key)));
  }

  async sAdd(key: string, member: string) {
    await this.client.sAdd(this.k(key), member);
  }

  async sRem(key: string, ...members: string[]) {
    if (members.length) await this.client.sRem(this.k(key), members);
  }

  async sMembers(key: string) {
    return (await this.client.sMembers(this.k(key))) as string[];
  }

  async publish(channel: string, message: string) {
    await this.client.publish(this.k(channel), message);
  }

  async subscribe(channel: string, handler: (message: string) => void) {
    if (!this.subscriber) {
      this.subscriber = this.client.duplicate() as RedisClientType;
      this.subscriber.on('error', (err: Error) => this.logger.warn(`redis subscriber: ${err.name}: ${err.message}`));
      await this.subscriber.connect();
    }
    await this.subscriber.subscribe(this.k(channel), (message: string) => handler(message));
  }

  async ping() {
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close() {
    await Promise.allSettled([this.subscriber?.close(), this.client.close()]);
  }
}
