import { randomBytes } from 'node:crypto';

import { FakeClock } from '../../test/support/fake-clock';
import { unit } from '../../test/support/unit';
import { MemoryKvStore } from '../store/memory-kv.store';
import { allowsAddress, ApiKeyCache } from './api-key.cache';
import type { ApiKeyEntity } from './api-key.entity';
import type { ApiKeyRepository } from './api-key.repository';

/** sys_api_key as a map, counting the queries the cache makes. */
class FakeKeys implements Pick<ApiKeyRepository, 'byHash' | 'liveHashes'> {
  readonly rows = new Map<string, ApiKeyEntity>();
  byHashCalls = 0;
  liveCalls = 0;
  async byHash(keyHash: string) {
    this.byHashCalls += 1;
    const row = [...this.rows.values()].find((r) => r.keyHash === keyHash);
    // A copy, as a query answers: later changes to the table do not reach a row already read.
    return row ? { ...row } : null;
  }
  async liveHashes() {
    this.liveCalls += 1;
    return [...this.rows.values()].filter((r) => !r.revokedTime).map((r) => r.keyHash);
  }
  add(fields: Partial<ApiKeyEntity> = {}): ApiKeyEntity {
    const id = randomBytes(8).toString('hex');
    const row: ApiKeyEntity = {
      id,
      name: `svc-${id}`,
      nameKey: `svc-${id}`,
      keyHash: randomBytes(32).toString('hex'),
      prefix: 'lps_abcd',
      permissions: ['sys:user:list'],
      ipRanges: [],
      createTime: new Date(),
      expireTime: null,
      lastUsedTime: null,
      revokedTime: null,
      ...fields,
    };
    this.rows.set(id, row);
    return row;
  }
}

const randomHash = () => randomBytes(32).toString('hex');

describe('ApiKeyCache', () => {
  let keys: FakeKeys;
  let clock: FakeClock;
  let store: MemoryKvStore;
  let cache: ApiKeyCache;
  /** Another instance's cache on the same database and store. */
  let other: ApiKeyCache;

  beforeEach(async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    keys = new FakeKeys();
    clock = new FakeClock();
    store = new MemoryKvStore(clock);
    ({ service: cache } = await unit(ApiKeyCache, { ApiKeyRepository: keys, KvStore: store, Clock: clock }));
    ({ service: other } = await unit(ApiKeyCache, { ApiKeyRepository: keys, KvStore: store, Clock: clock }));
    await cache.onModuleInit();
    await other.onModuleInit();
  });
  /** Time passes: the service's clock and the timers of the checks, together. */
  const pass = async (ms: number) => {
    clock.advance(ms);
    await jest.advanceTimersByTimeAsync(ms);
  };
  afterEach(() => {
    cache.onModuleDestroy();
    other.onModuleDestroy();
    jest.useRealTimers();
  });

  it('answers a flood of made-up keys, all different, without one query for a key', async () => {
    keys.add();
    for (let i = 0; i < 1_000; i++) expect(await cache.find(randomHash())).toBeNull();
    expect(keys.byHashCalls).toBe(0);
    // The live hashes were read once; the stamp did not move.
    expect(keys.liveCalls).toBe(1);
  });

  it('remembers an unknown hash: asked again, not even the store is read', async () => {
    const hash = randomHash();
    expect(await cache.find(hash)).toBeNull();
    const get = jest.spyOn(store, 'get');
    expect(await cache.find(hash)).toBeNull();
    expect(get).not.toHaveBeenCalled();
  });

  it("forgets an unknown hash after a minute of the service's clock", async () => {
    const hash = randomHash();
    expect(await cache.find(hash)).toBeNull();
    const get = jest.spyOn(store, 'get');
    clock.advance(59_999);
    expect(await cache.find(hash)).toBeNull();
    expect(get).not.toHaveBeenCalled();
    clock.advance(2);
    expect(await cache.find(hash)).toBeNull();
    expect(get).toHaveBeenCalled();
  });

  it('reads a key from the database once, then from memory; concurrent misses share one read', async () => {
    const row = keys.add({ permissions: ['sys:user:list', 'sys:user:lock'] });
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.find(row.keyHash)));
    expect(found.every((r) => r?.id === row.id)).toBe(true);
    expect(found[0]).toMatchObject({ name: row.name, permissions: ['sys:user:list', 'sys:user:lock'] });
    await cache.find(row.keyHash);
    expect(keys.byHashCalls).toBe(1);
  });

  it('finds at once a key made on another instance after its live keys were read', async () => {
    expect(await cache.find(randomHash())).toBeNull();
    const row = keys.add();
    await other.announce();
    expect(await cache.find(row.keyHash)).toMatchObject({ id: row.id });
  });

  it('forgets a revoked key at once on forget (the message of the revoking instance)', async () => {
    const row = keys.add();
    expect(await cache.find(row.keyHash)).not.toBeNull();
    row.revokedTime = new Date();
    cache.forget(row.id);
    expect(await cache.find(row.keyHash)).toBeNull();
  });

  it('with the message lost, drops a revoked key within a second: the stamp it compares each second moved', async () => {
    const row = keys.add();
    expect(await cache.find(row.keyHash)).not.toBeNull();
    row.revokedTime = new Date();
    await other.announce();
    // Until the check, the key is still held (this is what the second bounds).
    expect(await cache.find(row.keyHash)).not.toBeNull();
    await pass(999);
    expect(await cache.find(row.keyHash)).toBeNull();
  });

  it('with the stamp write lost too, drops a revoked key once it reads the live keys again (each minute)', async () => {
    const row = keys.add();
    expect(await cache.find(row.keyHash)).not.toBeNull();
    row.revokedTime = new Date();
    await pass(30_000);
    expect(await cache.find(row.keyHash)).not.toBeNull();
    await pass(31_000);
    expect(await cache.find(row.keyHash)).toBeNull();
  });

  it('does not keep what a lookup read while a revocation arrived', async () => {
    const row = keys.add();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const byHash = keys.byHash.bind(keys);
    keys.byHash = async (hash) => {
      const found = await byHash(hash);
      await gate;
      return found;
    };
    const pending = cache.find(row.keyHash);
    await jest.advanceTimersByTimeAsync(0);
    cache.forget(row.id);
    row.revokedTime = new Date();
    release();
    // The one request in flight is answered with what it read, the cache keeps nothing of it.
    expect(await pending).toMatchObject({ id: row.id });
    expect(await cache.find(row.keyHash)).toBeNull();
  });
});

describe('allowsAddress', () => {
  const keys = new FakeKeys();
  const recordOf = async (ipRanges: string[]) => {
    const clock = new FakeClock();
    const store = new MemoryKvStore(clock);
    const { service } = await unit(ApiKeyCache, { ApiKeyRepository: keys, KvStore: store, Clock: clock });
    return (await service.find(keys.add({ ipRanges }).keyHash))!;
  };

  it('matches IPv4 and IPv6 ranges and single addresses; no ranges is any address', async () => {
    const record = await recordOf(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
    expect(['10.1.2.3', '2001:db8:1::9', '192.0.2.7'].map((ip) => allowsAddress(record, ip))).toEqual([
      true,
      true,
      true,
    ]);
    expect(['11.0.0.1', '2001:db9::1', '192.0.2.8', 'unknown', ''].map((ip) => allowsAddress(record, ip))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(allowsAddress(await recordOf([]), '203.0.113.5')).toBe(true);
  });
});
