import { Logger } from '@nestjs/common';
import { createClient, RedisClientType } from 'redis';
import { addressOf, reasonOf, StartFailure } from '../common/start-failure';
import { KvStore } from './kv.store';

const DEL_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const PEXPIRE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
// INCR and the first PEXPIRE in one step: a crash between them must not leave a counter that never expires.
const INCR_WITH_TTL = `local n = redis.call('INCR', KEYS[1])
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) t = tonumber(ARGV[1]) end
return {n, t}`;
const REPLACE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 else return 0 end`;

/** How long one Redis command may take before the request fails as unavailable (503) instead of waiting. */
export const REDIS_COMMAND_DEADLINE_MS = 1500;

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/**
 * The client, with a deadline on every command. node-redis fails fast while disconnected
 * (disableOfflineQueue), but a server that hangs with the connection open (frozen host, network
 * partition) would keep a written command waiting for ever: its own command timeout stops once
 * the command is on the wire.
 */
function withDeadline(client: RedisClientType, ms: number): RedisClientType {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailableError(`redis did not answer within ${ms} ms`)), ms);
        });
        return Promise.race([result, deadline]).finally(() => clearTimeout(timer));
      };
    },
  });
}

/** Redis store: what several instances share. Every key and channel gets REDIS_KEY_PREFIX. */
export class RedisKvStore extends KvStore {
  private readonly logger = new Logger('Redis');
  private subscriber?: RedisClientType;

  private constructor(private readonly client: RedisClientType, private readonly prefix: string) {
    super();
  }

  /** startTimeoutMs: how long the first connection may take (START_TIMEOUT_MS); then a StartFailure naming REDIS_URL. */
  static async connect(url: string, prefix: string, startTimeoutMs = 30_000): Promise<RedisKvStore> {
    const client = createClient({
      url,
      // Fail fast while Redis is away instead of queueing requests until they hang.
      disableOfflineQueue: true,
      // Our own deadline (withDeadline) only: node-redis 6's default gives every command an
      // AbortSignal.timeout(5000), whose timer lives its 5 s after the command answered — under
      // load tens of thousands of them, RSS 650 MiB and a third less throughput (issue 13.4).
      commandOptions: { timeout: 0 },
      socket: { connectTimeout: 3000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 3000) },
    }) as RedisClientType;
    const store = new RedisKvStore(withDeadline(client, REDIS_COMMAND_DEADLINE_MS), prefix);
    // Until the first connection, each retry's error is kept for the one line a failed start ends with.
    let started = false;
    let lastError: unknown;
    client.on('error', (err: Error) => {
      if (started) store.logger.warn(`redis: ${err.constructor.name}: ${err.message}`);
      else lastError = err;
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([client.connect(), new Promise((_, reject) => { timer = setTimeout(reject, startTimeoutMs); })]);
    } catch (err) {
      client.destroy();
      throw new StartFailure('REDIS_URL', `no answer from Redis at ${addressOf(url, 6379)} within ${Math.round(startTimeoutMs / 1000)} s`
        + ` (${reasonOf(lastError ?? err)}): check that Redis runs there and that REDIS_URL points to it`);
    } finally {
      clearTimeout(timer);
    }
    started = true;
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

  async expireIfEquals(key: string, value: string, ttlMs: number) {
    const r = await this.client.eval(PEXPIRE_IF_EQUALS, {
      keys: [this.k(key)], arguments: [value, String(Math.max(1, Math.ceil(ttlMs)))],
    });
    return Number(r) === 1;
  }

  async incrWithTtl(key: string, ttlMs: number) {
    const [count, ttl] = (await this.client.eval(INCR_WITH_TTL, {
      keys: [this.k(key)], arguments: [String(Math.max(1, Math.ceil(ttlMs)))],
    })) as [number, number];
    return { count: Number(count), ttlMs: Number(ttl) };
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
