import { Logger } from '@nestjs/common';
import { createClient, createSentinel, RedisClientType } from '@redis/client';

import { addressOf, reasonOf, StartFailure } from '../common/start-failure';
import { FailoverFence } from './failover-fence';
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

/** How long a write waits for its replicas (Sentinel, REDIS_SENTINEL_WAIT_REPLICAS) before the request answers 503. */
export const REDIS_WAIT_REPLICAS_MS = 1000;

/** The commands the store sends; with Sentinel, each may be cancelled while it waits for the new primary. */
const COMMANDS = new Set([
  'get',
  'mGet',
  'set',
  'getDel',
  'eval',
  'del',
  'pExpire',
  'pTTL',
  'sAdd',
  'sRem',
  'sMembers',
  'publish',
  'ping',
  'wait',
]);

/**
 * Sentinel's client keeps a command while it looks for the new primary (a failover takes seconds) and
 * sends it there afterwards. Once our deadline has answered the request with 503, the command must
 * not run any more: a session stored for a login that was refused, or a logout carried out after the
 * user was told it failed, would be a state nobody asked for. An AbortSignal (no timer of its own)
 * cancels it while it still waits.
 */
function cancelledOnDeadline(client: RedisClientType, ms: number): RedisClientType {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function' || !COMMANDS.has(String(property)))
        return withDeadline(target, ms)[property as keyof RedisClientType];
      return (...args: unknown[]) => {
        const abort = new AbortController();
        const command = (
          target.withCommandOptions({ abortSignal: abort.signal }) as unknown as Record<
            PropertyKey,
            (...a: unknown[]) => Promise<unknown>
          >
        )[property](...args);
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            abort.abort();
            reject(new StoreUnavailableError(`redis did not answer within ${ms} ms`));
          }, ms);
        });
        return Promise.race([command, deadline]).finally(() => clearTimeout(timer));
      };
    },
  });
}

export interface SentinelOptions {
  sentinels: { host: string; port: number }[];
  master: string;
  prefix: string;
  /** Replicas that must hold a write before it counts as done (WAIT); 0: do not wait. */
  waitReplicas: number;
}

/** Redis store: what several instances share. Every key and channel gets REDIS_KEY_PREFIX. */
export class RedisKvStore extends KvStore {
  private readonly logger = new Logger('Redis');
  private subscriber?: RedisClientType;
  /** Sentinel only: the failover fence and how many replicas confirm each write (see durable()). */
  private fence?: FailoverFence;
  private waitReplicas = 0;

  private constructor(
    private readonly client: RedisClientType,
    private readonly prefix: string,
  ) {
    super();
  }

  /**
   * Redis behind Sentinel. node-redis's Sentinel client asks the Sentinels for the
   * primary, follows +switch-master and READONLY replies to the new one, and moves the pub/sub
   * subscriptions with it. A command sent while it looks for the new primary waits (up to our
   * deadline, then 503, see cancelledOnDeadline).
   */
  static async connectSentinel(options: SentinelOptions): Promise<RedisKvStore> {
    const sentinel = createSentinel({
      name: options.master,
      sentinelRootNodes: options.sentinels,
      // As in connect(): no per-command AbortSignal.timeout timer; our deadline instead.
      commandOptions: { timeout: 0 },
      nodeClientOptions: {
        disableOfflineQueue: true,
        socket: { connectTimeout: 3000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 3000) },
      },
      sentinelClientOptions: { socket: { connectTimeout: 3000 } },
    });
    const store = new RedisKvStore(
      cancelledOnDeadline(sentinel as unknown as RedisClientType, REDIS_COMMAND_DEADLINE_MS),
      options.prefix,
    );
    const fence = new FailoverFence(options.sentinels, options.master);
    store.fence = fence;
    store.waitReplicas = options.waitReplicas;
    // Logged once per kind and minute at most: a failover makes every client of the pool complain.
    const seen = new Map<string, number>();
    sentinel.on('error', (err: unknown) => {
      const text = err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
      const now = Date.now();
      if ((seen.get(text) ?? 0) > now - 60_000) return;
      if (seen.size > 100) seen.clear();
      seen.set(text, now);
      store.logger.warn(`redis sentinel: ${text}`);
    });
    sentinel.on('client-error', (event: { type: string }) => {
      if (event.type === 'MASTER') fence.connectionLost();
    });
    sentinel.on('topology-change', (event: { type: string; node?: { host: string; port: number } }) => {
      if (event.type !== 'MASTER_CHANGE') return;
      fence.primaryMoved(event.node);
      store.logger.log(`redis sentinel: primary of ${options.master} is ${event.node?.host}:${event.node?.port}`);
    });
    try {
      await sentinel.connect();
    } catch (err) {
      fence.close();
      // node-redis gives up after 16 rounds of asking the Sentinels, a second apart (about 30 s).
      const sentinels = options.sentinels.map((n) => `${n.host}:${n.port}`).join(',');
      throw new StartFailure(
        'REDIS_SENTINELS',
        `no primary of "${options.master}" reachable through ${sentinels} (${reasonOf(err)}): ` +
          'check REDIS_SENTINELS and REDIS_SENTINEL_MASTER, and that the Sentinels and the primary are reachable',
      );
    }
    return store;
  }

  /**
   * Sentinel: a write counts as done once REDIS_SENTINEL_WAIT_REPLICAS replicas hold it (WAIT on
   * the connection that wrote it) and no failover started meanwhile (FailoverFence). Redis
   * replicates asynchronously, so otherwise the primary's last writes before a failover would be
   * lost after the service answered them: a token handed out that no longer exists, a logout
   * undone. When the replicas do not confirm in time, a failover is under way, or the connection
   * was lost or moved meanwhile (WAIT would then speak for another connection's writes), the
   * request answers 503 instead; the write may then exist or not, as with any request that failed
   * midway.
   */
  private async durable<T>(write: () => Promise<T>): Promise<T> {
    const fence = this.fence;
    if (!fence) return write();
    if (fence.writesRefused) throw new StoreUnavailableError('redis sentinel failover under way');
    const epoch = fence.epoch;
    const result = await write();
    const acknowledged = this.waitReplicas
      ? Number(await this.client.wait(this.waitReplicas, REDIS_WAIT_REPLICAS_MS))
      : 0;
    if (acknowledged < this.waitReplicas || epoch !== fence.epoch) {
      throw new StoreUnavailableError(`write confirmed by ${acknowledged} of ${this.waitReplicas} replica(s)`);
    }
    return result;
  }

  /** startTimeoutMs: how long the first connection may take (START_TIMEOUT_MS); then a StartFailure naming REDIS_URL. */
  static async connect(url: string, prefix: string, startTimeoutMs = 30_000): Promise<RedisKvStore> {
    const client = createClient({
      url,
      // Fail fast while Redis is away instead of queueing requests until they hang.
      disableOfflineQueue: true,
      // Our own deadline (withDeadline) only: node-redis 6's default gives every command an
      // AbortSignal.timeout(5000), whose timer lives its 5 s after the command answered — under
      // load tens of thousands of them, costing memory and throughput.
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
      await Promise.race([
        client.connect(),
        new Promise((_, reject) => {
          timer = setTimeout(reject, startTimeoutMs);
        }),
      ]);
    } catch (err) {
      client.destroy();
      throw new StartFailure(
        'REDIS_URL',
        `no answer from Redis at ${addressOf(url, 6379)} within ${Math.round(startTimeoutMs / 1000)} s` +
          ` (${reasonOf(lastError ?? err)}): check that Redis runs there and that REDIS_URL points to it`,
      );
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
    if (ttlMs === undefined) await this.durable(() => this.client.set(this.k(key), value));
    else
      await this.durable(() =>
        this.client.set(this.k(key), value, { expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) } }),
      );
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    const r = await this.durable(() =>
      this.client.set(this.k(key), value, {
        condition: 'NX',
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      }),
    );
    return r === 'OK';
  }

  async replaceKeepTtl(key: string, value: string) {
    const r = await this.durable(() => this.client.set(this.k(key), value, { condition: 'XX', expiration: 'KEEPTTL' }));
    return r === 'OK';
  }

  async replaceIfEquals(key: string, expected: string, value: string) {
    const r = await this.durable(() =>
      this.client.eval(REPLACE_IF_EQUALS, { keys: [this.k(key)], arguments: [expected, value] }),
    );
    return Number(r) === 1;
  }

  async getDel(key: string) {
    return (await this.durable(() => this.client.getDel(this.k(key)))) as string | null;
  }

  async delIfEquals(key: string, value: string) {
    const r = await this.durable(() => this.client.eval(DEL_IF_EQUALS, { keys: [this.k(key)], arguments: [value] }));
    return Number(r) === 1;
  }

  async del(...keys: string[]) {
    if (keys.length) await this.durable(() => this.client.del(keys.map((k) => this.k(k))));
  }

  async expire(key: string, ttlMs: number) {
    await this.durable(() => this.client.pExpire(this.k(key), Math.max(1, Math.ceil(ttlMs))));
  }

  async expireIfEquals(key: string, value: string, ttlMs: number) {
    const r = await this.durable(() =>
      this.client.eval(PEXPIRE_IF_EQUALS, {
        keys: [this.k(key)],
        arguments: [value, String(Math.max(1, Math.ceil(ttlMs)))],
      }),
    );
    return Number(r) === 1;
  }

  async incrWithTtl(key: string, ttlMs: number) {
    const [count, ttl] = (await this.durable(() =>
      this.client.eval(INCR_WITH_TTL, {
        keys: [this.k(key)],
        arguments: [String(Math.max(1, Math.ceil(ttlMs)))],
      }),
    )) as [number, number];
    return { count: Number(count), ttlMs: Number(ttl) };
  }

  async ttl(key: string) {
    return Number(await this.client.pTTL(this.k(key)));
  }

  async sAdd(key: string, member: string) {
    await this.durable(() => this.client.sAdd(this.k(key), member));
  }

  async sRem(key: string, ...members: string[]) {
    if (members.length) await this.durable(() => this.client.sRem(this.k(key), members));
  }

  async sMembers(key: string) {
    return (await this.client.sMembers(this.k(key))) as string[];
  }

  async publish(channel: string, message: string) {
    await this.client.publish(this.k(channel), message);
  }

  async subscribe(channel: string, handler: (message: string) => void) {
    // Sentinel's client subscribes on its own connection to the primary and moves it on a failover.
    if (this.fence) {
      await this.client.subscribe(this.k(channel), (message: string) => handler(message));
      return;
    }
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
    this.fence?.close();
    await Promise.allSettled([this.subscriber?.close(), this.client.close()]);
  }
}
