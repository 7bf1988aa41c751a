import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { createClient } from 'redis';

import { SystemClock } from '../../src/common/clock';
import { KeyedMutex } from '../../src/store/keyed-mutex';
import { Keys } from '../../src/store/keys';
import { KvStore } from '../../src/store/kv.store';
import { MemoryKvStore } from '../../src/store/memory-kv.store';
import { RedisKvStore } from '../../src/store/redis-kv.store';
import { CompareSlots } from '../../src/user-account/compare-slots';
import { FakeClock } from '../support/fake-clock';
import { testKeyPrefix } from '../support/redis-keys';
import { sleep } from '../support/wait';

/** A full garbage collection, as node --expose-gc would offer it. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const REDIS = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
const newPrefix = () => testKeyPrefix('kv');

/** Deletes every key under a prefix (SCAN, never KEYS). */
async function purge(prefix: string): Promise<void> {
  const raw = createClient({ url: REDIS });
  await raw.connect();
  try {
    for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
      const keys = ([] as string[]).concat(batch as string | string[]);
      if (keys.length) await raw.del(keys);
    }
  } finally {
    await raw.close();
  }
}

interface Opened {
  store: KvStore;
  /** Lets time pass: the fake clock for memory; real time for Redis (only ever a few tens of ms). */
  elapse(ms: number): Promise<void>;
  dispose(): Promise<void>;
}

interface Subject {
  name: 'memory' | 'redis';
  open(): Promise<Opened>;
}

const SUBJECTS: Subject[] = [
  {
    name: 'memory',
    async open() {
      const clock = new FakeClock();
      const store = new MemoryKvStore(clock);
      return { store, elapse: async (ms) => clock.advance(ms), dispose: () => store.close() };
    },
  },
  {
    name: 'redis',
    async open() {
      const prefix = newPrefix();
      const store = await RedisKvStore.connect(REDIS, prefix);
      return {
        store,
        elapse: (ms) => sleep(ms),
        async dispose() {
          await store.close();
          await purge(prefix);
        },
      };
    },
  },
];

/**
 * What a value's lifetime is measured against: long on memory (fake clock), short on Redis (real
 * clock) — but longer than a loaded machine may take between a write and the read after it.
 */
const SHORT_TTL: Record<Subject['name'], number> = { memory: 60_000, redis: 400 };

describe.each(SUBJECTS)('KvStore contract on $name', (subject) => {
  let opened: Opened;
  let store: KvStore;
  const short = SHORT_TTL[subject.name];
  let n = 0;
  const key = (name: string) => `${name}:${++n}`;

  beforeAll(async () => {
    opened = await subject.open();
    store = opened.store;
  });
  afterAll(() => opened.dispose());

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBe(true);
  });

  // Node-redis 6 gives every command a 5 s AbortSignal.timeout by default, a timer that
  // outlives the command by seconds; at 17 000 authenticated requests per second the service held
  // ~85 000 of them and its RSS climbed to 650 MiB. A command that has answered holds nothing.
  it('keeps nothing alive once a command has answered: 20 000 reads leave the heap flat', async () => {
    const k = key('heap');
    await store.set(k, 'x'.repeat(200));
    const reads = async (count: number) => {
      for (let i = 0; i < count; i += 200) await Promise.all(Array.from({ length: 200 }, () => store.get(k)));
    };
    await reads(2_000); // warm-up: JIT, pools
    collectGarbage();
    const before = getHeapStatistics().used_heap_size;
    await reads(20_000);
    collectGarbage();
    const grownMiB = (getHeapStatistics().used_heap_size - before) / 2 ** 20;
    expect(grownMiB).toBeLessThan(2);
  });

  describe('get / set / del / mget', () => {
    it('stores and reads a string, overwrites it, and null for an absent key', async () => {
      const k = key('plain');
      await expect(store.get(k)).resolves.toBeNull();
      await store.set(k, 'one');
      await expect(store.get(k)).resolves.toBe('one');
      await store.set(k, 'two ✓ 中文');
      await expect(store.get(k)).resolves.toBe('two ✓ 中文');
    });

    it('mget answers in key order with null for absent keys, [] for no keys', async () => {
      const a = key('m');
      const b = key('m');
      await store.set(a, 'A');
      await store.set(b, 'B');
      await expect(store.mget([b, key('absent'), a])).resolves.toEqual(['B', null, 'A']);
      await expect(store.mget([])).resolves.toEqual([]);
    });

    // The session read of every authenticated request: answered on a later turn of the event loop,
    // the requests read in one turn write their answers together (docs/benchmarks.md, the embedded
    // default's answers); the in-process store keeps to it as Redis's replies do.
    it('mget answers on a later turn of the event loop than the one that asked', async () => {
      const k = key('turn');
      await store.set(k, 'v');
      const order: string[] = [];
      setImmediate(() => order.push('the asking turn ended'));
      const values = await store.mget([k]);
      order.push('answered');
      expect(values).toEqual(['v']);
      expect(order).toEqual(['the asking turn ended', 'answered']);
    });

    it('del removes several keys at once and ignores absent ones', async () => {
      const a = key('d');
      const b = key('d');
      await store.set(a, '1');
      await store.set(b, '2');
      await store.del(a, b, key('absent'));
      await expect(store.mget([a, b])).resolves.toEqual([null, null]);
      await expect(store.del()).resolves.toBeUndefined();
    });
  });

  describe('expiry', () => {
    it('ttl is -2 for an absent key, -1 without expiry, the remaining ms with one', async () => {
      const k = key('ttl');
      await expect(store.ttl(k)).resolves.toBe(-2);
      await store.set(k, 'v');
      await expect(store.ttl(k)).resolves.toBe(-1);
      await store.set(k, 'v', 60_000);
      const ttl = await store.ttl(k);
      expect(ttl).toBeGreaterThan(59_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it('a value with a ttl is gone once the ttl has passed', async () => {
      const k = key('exp');
      await store.set(k, 'v', short);
      await expect(store.get(k)).resolves.toBe('v');
      await opened.elapse(short + 30);
      await expect(store.get(k)).resolves.toBeNull();
      await expect(store.ttl(k)).resolves.toBe(-2);
      await expect(store.mget([k])).resolves.toEqual([null]);
    });

    it('set without a ttl clears an earlier ttl', async () => {
      const k = key('persist');
      await store.set(k, 'v', 60_000);
      await store.set(k, 'w');
      await expect(store.ttl(k)).resolves.toBe(-1);
    });

    it('expire gives an existing key a new lifetime, and does not create an absent one', async () => {
      const k = key('expire');
      await store.set(k, 'v', 1_000);
      await store.expire(k, 120_000);
      expect(await store.ttl(k)).toBeGreaterThan(119_000);
      await store.expire(k, short);
      await opened.elapse(short + 30);
      await expect(store.get(k)).resolves.toBeNull();
      const absent = key('expire-absent');
      await store.expire(absent, 60_000);
      await expect(store.ttl(absent)).resolves.toBe(-2);
    });
  });

  describe('setIfAbsent', () => {
    it('sets only when absent, with the ttl, and again once the holder expired', async () => {
      const k = key('nx');
      await expect(store.setIfAbsent(k, 'first', short)).resolves.toBe(true);
      await expect(store.setIfAbsent(k, 'second', short)).resolves.toBe(false);
      await expect(store.get(k)).resolves.toBe('first');
      const ttl = await store.ttl(k);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(short);
      await opened.elapse(short + 30);
      await expect(store.setIfAbsent(k, 'third', 60_000)).resolves.toBe(true);
      await expect(store.get(k)).resolves.toBe('third');
    });

    it('of 30 concurrent calls exactly one wins', async () => {
      const k = key('nx-race');
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => store.setIfAbsent(k, `v${i}`, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.get(k)).resolves.toBe(`v${results.indexOf(true)}`);
    });
  });

  describe('replaceKeepTtl', () => {
    it('replaces the value and keeps the remaining lifetime', async () => {
      const k = key('xx');
      await store.set(k, 'old', 60_000);
      await opened.elapse(subject.name === 'memory' ? 20_000 : 0);
      const before = await store.ttl(k);
      await expect(store.replaceKeepTtl(k, 'new')).resolves.toBe(true);
      await expect(store.get(k)).resolves.toBe('new');
      const after = await store.ttl(k);
      expect(after).toBeGreaterThan(0);
      expect(after).toBeLessThanOrEqual(before);
      if (subject.name === 'memory') expect(after).toBe(40_000);
    });

    it('keeps "no expiry" as no expiry', async () => {
      const k = key('xx-persist');
      await store.set(k, 'old');
      await expect(store.replaceKeepTtl(k, 'new')).resolves.toBe(true);
      await expect(store.ttl(k)).resolves.toBe(-1);
    });

    it('is false and creates nothing when the key is absent or expired', async () => {
      const absent = key('xx-absent');
      await expect(store.replaceKeepTtl(absent, 'v')).resolves.toBe(false);
      await expect(store.get(absent)).resolves.toBeNull();
      const expired = key('xx-expired');
      await store.set(expired, 'v', short);
      await opened.elapse(short + 30);
      await expect(store.replaceKeepTtl(expired, 'w')).resolves.toBe(false);
      await expect(store.get(expired)).resolves.toBeNull();
    });
  });

  describe('replaceIfEquals', () => {
    it('replaces only while the key holds the expected value, keeping the lifetime', async () => {
      const k = key('cas');
      await store.set(k, 'v1', 60_000);
      await opened.elapse(subject.name === 'memory' ? 20_000 : 0);
      const before = await store.ttl(k);
      await expect(store.replaceIfEquals(k, 'stale', 'v2')).resolves.toBe(false);
      await expect(store.get(k)).resolves.toBe('v1');
      await expect(store.replaceIfEquals(k, 'v1', 'v2')).resolves.toBe(true);
      await expect(store.get(k)).resolves.toBe('v2');
      const after = await store.ttl(k);
      expect(after).toBeGreaterThan(0);
      expect(after).toBeLessThanOrEqual(before);
      if (subject.name === 'memory') expect(after).toBe(40_000);
    });

    it('is false and creates nothing when the key is absent or expired', async () => {
      const absent = key('cas-absent');
      await expect(store.replaceIfEquals(absent, '', 'v')).resolves.toBe(false);
      await expect(store.get(absent)).resolves.toBeNull();
      const expired = key('cas-expired');
      await store.set(expired, 'v', short);
      await opened.elapse(short + 30);
      await expect(store.replaceIfEquals(expired, 'v', 'w')).resolves.toBe(false);
      await expect(store.get(expired)).resolves.toBeNull();
    });

    it('of 30 concurrent writers holding the same read exactly one wins', async () => {
      const k = key('cas-race');
      await store.set(k, 'base', 60_000);
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => store.replaceIfEquals(k, 'base', `w${i}`)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.get(k)).resolves.toBe(`w${results.indexOf(true)}`);
    });
  });

  describe('getDel', () => {
    it('reads and deletes; null for an absent key', async () => {
      const k = key('gd');
      await store.set(k, 'once', 60_000);
      await expect(store.getDel(k)).resolves.toBe('once');
      await expect(store.get(k)).resolves.toBeNull();
      await expect(store.getDel(k)).resolves.toBeNull();
    });

    it('of 50 concurrent calls exactly one gets the value', async () => {
      const k = key('gd-race');
      await store.set(k, 'prize', 60_000);
      const results = await Promise.all(Array.from({ length: 50 }, () => store.getDel(k)));
      expect(results.filter((r) => r !== null)).toEqual(['prize']);
      await expect(store.get(k)).resolves.toBeNull();
    });

    it('an expired value is not returned', async () => {
      const k = key('gd-expired');
      await store.set(k, 'stale', short);
      await opened.elapse(short + 30);
      await expect(store.getDel(k)).resolves.toBeNull();
    });
  });

  describe('delIfEquals', () => {
    it('deletes only while the key holds the given value', async () => {
      const k = key('cad');
      await store.set(k, 'mine', 60_000);
      await expect(store.delIfEquals(k, 'theirs')).resolves.toBe(false);
      await expect(store.get(k)).resolves.toBe('mine');
      await expect(store.delIfEquals(k, 'mine')).resolves.toBe(true);
      await expect(store.get(k)).resolves.toBeNull();
      await expect(store.delIfEquals(k, 'mine')).resolves.toBe(false);
    });
  });

  describe('expireIfEquals', () => {
    it('renews the lifetime only while the key holds the given value', async () => {
      const k = key('pex');
      await store.set(k, 'mine', short);
      await expect(store.expireIfEquals(k, 'theirs', 120_000)).resolves.toBe(false);
      expect(await store.ttl(k)).toBeLessThanOrEqual(short);
      await expect(store.expireIfEquals(k, 'mine', 120_000)).resolves.toBe(true);
      expect(await store.ttl(k)).toBeGreaterThan(119_000);
      await expect(store.get(k)).resolves.toBe('mine');
      // Renewing again shortens as well as lengthens: the lease is now + ttlMs.
      await expect(store.expireIfEquals(k, 'mine', short)).resolves.toBe(true);
      await opened.elapse(short + 30);
      await expect(store.get(k)).resolves.toBeNull();
    });

    it('is false and creates nothing when the key is absent or expired, and never outlives a new owner', async () => {
      const absent = key('pex-absent');
      await expect(store.expireIfEquals(absent, 'mine', 60_000)).resolves.toBe(false);
      await expect(store.ttl(absent)).resolves.toBe(-2);
      const expired = key('pex-expired');
      await store.set(expired, 'mine', short);
      await opened.elapse(short + 30);
      await expect(store.expireIfEquals(expired, 'mine', 60_000)).resolves.toBe(false);
      await expect(store.get(expired)).resolves.toBeNull();
      // Someone else took the key after the lease ended: the old owner's renewal leaves it alone.
      await store.setIfAbsent(expired, 'next-owner', short);
      await expect(store.expireIfEquals(expired, 'mine', 120_000)).resolves.toBe(false);
      expect(await store.ttl(expired)).toBeLessThanOrEqual(short);
    });
  });

  describe('sets', () => {
    it('sAdd / sRem / sMembers, members unique, the key gone with its last member', async () => {
      const k = key('set');
      await expect(store.sMembers(k)).resolves.toEqual([]);
      await store.sAdd(k, 'a');
      await store.sAdd(k, 'b');
      await store.sAdd(k, 'a');
      await store.sAdd(k, 'c');
      expect((await store.sMembers(k)).sort()).toEqual(['a', 'b', 'c']);
      await store.sRem(k, 'a', 'c', 'absent');
      await expect(store.sMembers(k)).resolves.toEqual(['b']);
      await store.sRem(k);
      await expect(store.sMembers(k)).resolves.toEqual(['b']);
      await store.sRem(k, 'b');
      await expect(store.sMembers(k)).resolves.toEqual([]);
      await expect(store.ttl(k)).resolves.toBe(-2);
    });

    it('sRem on an absent set is harmless, and del removes a set', async () => {
      const k = key('set-del');
      await expect(store.sRem(k, 'x')).resolves.toBeUndefined();
      await store.sAdd(k, 'x');
      await store.del(k);
      await expect(store.sMembers(k)).resolves.toEqual([]);
    });

    it('keeps every member of 40 concurrent adds', async () => {
      const k = key('set-race');
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.sAdd(k, `m${i}`)));
      expect(await store.sMembers(k)).toHaveLength(40);
    });
  });

  describe('publish / subscribe', () => {
    it('delivers published messages to the subscribers of that channel only', async () => {
      const channel = key('chan');
      const other = key('chan');
      const received: string[] = [];
      const elsewhere: string[] = [];
      await store.subscribe(channel, (m) => received.push(m));
      await store.subscribe(other, (m) => elsewhere.push(m));
      await store.publish(channel, 'hello');
      await store.publish(channel, 'world');
      for (let i = 0; i < 100 && received.length < 2; i++) await sleep(20);
      expect(received).toEqual(['hello', 'world']);
      await sleep(20);
      expect(elsewhere).toEqual([]);
    });

    it('delivers to every handler of a channel, also when subscribed concurrently', async () => {
      const a = key('chan-a');
      const b = key('chan-b');
      const got: Record<string, string[]> = { a1: [], a2: [], b: [] };
      await Promise.all([
        store.subscribe(a, (m) => got.a1.push(m)),
        store.subscribe(a, (m) => got.a2.push(m)),
        store.subscribe(b, (m) => got.b.push(m)),
      ]);
      await store.publish(a, 'to-a');
      await store.publish(b, 'to-b');
      for (let i = 0; i < 100 && got.a1.length + got.a2.length + got.b.length < 3; i++) await sleep(20);
      expect(got).toEqual({ a1: ['to-a'], a2: ['to-a'], b: ['to-b'] });
    });

    it('a fresh store takes concurrent first subscriptions to several channels', async () => {
      const fresh = await subject.open();
      try {
        const got: string[] = [];
        await Promise.all([
          fresh.store.subscribe('first-x', (m) => got.push(`x:${m}`)),
          fresh.store.subscribe('first-y', (m) => got.push(`y:${m}`)),
          fresh.store.subscribe('first-z', (m) => got.push(`z:${m}`)),
        ]);
        await fresh.store.publish('first-x', '1');
        await fresh.store.publish('first-y', '2');
        await fresh.store.publish('first-z', '3');
        for (let i = 0; i < 100 && got.length < 3; i++) await sleep(20);
        expect(got.sort()).toEqual(['x:1', 'y:2', 'z:3']);
      } finally {
        await fresh.dispose();
      }
    });

    it('publish to a channel nobody listens on succeeds', async () => {
      await expect(store.publish(key('nobody'), 'x')).resolves.toBeUndefined();
    });
  });

  describe('KeyedMutex on this store', () => {
    let mutex: KeyedMutex;
    beforeAll(() => {
      mutex = new KeyedMutex(store);
    });

    it('20 concurrent runs on the same key never overlap, all run, and the lock is released', async () => {
      const k = key('mutex');
      let holders = 0;
      let maxHolders = 0;
      let runs = 0;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          mutex.run(k, async () => {
            holders += 1;
            maxHolders = Math.max(maxHolders, holders);
            await sleep(1 + (i % 3));
            runs += 1;
            holders -= 1;
            return i;
          }),
        ),
      );
      expect(maxHolders).toBe(1);
      expect(runs).toBe(20);
      expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
      await expect(store.get(k)).resolves.toBeNull();
    });

    it('runs on different keys do not wait for each other', async () => {
      let holders = 0;
      let maxHolders = 0;
      await Promise.all(
        [key('mutex-x'), key('mutex-y'), key('mutex-z')].map((k) =>
          mutex.run(k, async () => {
            holders += 1;
            maxHolders = Math.max(maxHolders, holders);
            await sleep(30);
            holders -= 1;
          }),
        ),
      );
      expect(maxHolders).toBe(3);
    });

    it('releases the key when the section throws, and passes the error on', async () => {
      const k = key('mutex-throw');
      await expect(
        mutex.run(k, async () => {
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await expect(store.get(k)).resolves.toBeNull();
      await expect(mutex.run(k, async () => 'next')).resolves.toBe('next');
    });

    it('a crashed holder blocks only until its lease ends', async () => {
      const k = key('mutex-lease');
      await expect(store.setIfAbsent(k, 'crashed-holder', short)).resolves.toBe(true);
      let ran = false;
      const waiting = mutex.run(k, async () => {
        ran = true;
        return 'after-lease';
      });
      await sleep(20);
      expect(ran).toBe(false);
      await opened.elapse(short + 30);
      await expect(waiting).resolves.toBe('after-lease');
    });

    it('a holder running past its lease keeps the key: the lease is renewed while it runs', async () => {
      const k = key('mutex-renew');
      const order: string[] = [];
      const first = mutex.run(
        k,
        async () => {
          order.push('first in');
          await sleep(400);
          order.push('first out');
        },
        100,
        5_000,
      );
      await sleep(20);
      const second = mutex.run(
        k,
        async () => {
          order.push('second in');
        },
        100,
        5_000,
      );
      await Promise.all([first, second]);
      expect(order).toEqual(['first in', 'first out', 'second in']);
      await expect(store.get(k)).resolves.toBeNull();
    });

    it('runReading: the read sent with the taking sees what the previous holder wrote, never older', async () => {
      const k = key('mutex-read');
      const counter = key('mutex-read-counter');
      // 10 sections, each reading the counter with its taking and writing it plus one: a read made
      // before the key was taken (or an answer of a failed attempt) would repeat a value.
      const seen = await Promise.all(
        Array.from({ length: 10 }, () =>
          mutex.runReading(
            k,
            () => store.get(counter),
            async (value) => {
              const n = Number(value ?? 0);
              await sleep(2);
              await store.set(counter, String(n + 1), 60_000);
              return n;
            },
          ),
        ),
      );
      expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
      await expect(store.get(counter)).resolves.toBe('10');
      await expect(store.get(k)).resolves.toBeNull();
    });

    it('runReading: a failed read releases the key and passes its error on, the section never runs', async () => {
      const k = key('mutex-read-fails');
      let ran = false;
      await expect(
        mutex.runReading(
          k,
          () => Promise.reject(new Error('read failed')),
          async () => {
            ran = true;
          },
        ),
      ).rejects.toThrow('read failed');
      expect(ran).toBe(false);
      await expect(store.get(k)).resolves.toBeNull();
    });

    it('gives up with SERVICE_UNAVAILABLE when the key stays taken past the wait', async () => {
      const k = key('mutex-wait');
      await store.set(k, 'someone-else', 60_000);
      await expect(mutex.run(k, async () => 'never', 15_000, 50)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
      // Giving up never deletes the other holder's lock.
      await expect(store.get(k)).resolves.toBe('someone-else');
    });
  });

  describe('CompareSlots on this store', () => {
    const user = () => key('slots-user');

    it('counts the slots taken; a release frees its own, once, however often it is called', async () => {
      const slots = new CompareSlots(store);
      const u = user();
      await expect(slots.held(u)).resolves.toBe(0);
      const [one, two] = [await slots.take(u), await slots.take(u)];
      await expect(slots.held(u)).resolves.toBe(2);
      await one.release();
      await one.release();
      await expect(slots.held(u)).resolves.toBe(1);
      await two.release();
      await expect(slots.held(u)).resolves.toBe(0);
      await expect(store.sMembers(Keys.loginSlots(u))).resolves.toEqual([]);
    });

    it('a slot whose holder died (no release, no renewal) lapses with its lease, and its name is dropped', async () => {
      const slots = new CompareSlots(store, short);
      const u = user();
      await store.set(Keys.loginSlot(u, 'dead'), 'dead', short);
      await store.sAdd(Keys.loginSlots(u), 'dead');
      await expect(slots.held(u)).resolves.toBe(1);
      await opened.elapse(short + 30);
      await expect(slots.held(u)).resolves.toBe(0);
      await expect(store.sMembers(Keys.loginSlots(u))).resolves.toEqual([]);
    });

    it('a slot whose compare runs past its lease is kept: the lease is renewed while it is held', async () => {
      // Real time on both: a memory store on the system clock, Redis as it is.
      const real = subject.name === 'memory' ? new MemoryKvStore(new SystemClock()) : store;
      try {
        // A lease of half a second held for three: renewed every third of it, so only an event loop
        // stalled for a whole lease (never seen, even on a loaded CI host) could lose it.
        const slots = new CompareSlots(real, 500);
        const u = user();
        const slot = await slots.take(u);
        await sleep(1_600);
        await expect(slots.held(u)).resolves.toBe(1);
        await slot.release();
        await expect(slots.held(u)).resolves.toBe(0);
      } finally {
        if (real !== store) await real.close();
      }
    });
  });
});

describe('RedisKvStore key prefix (REDIS_KEY_PREFIX)', () => {
  const prefixA = newPrefix();
  const prefixB = newPrefix();
  let a: RedisKvStore;
  let b: RedisKvStore;
  let raw: ReturnType<typeof createClient>;

  beforeAll(async () => {
    a = await RedisKvStore.connect(REDIS, prefixA);
    b = await RedisKvStore.connect(REDIS, prefixB);
    raw = createClient({ url: REDIS });
    await raw.connect();
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close(), raw.close()]);
    await purge(prefixA);
    await purge(prefixB);
  });

  it('stores strings, ttls and sets under prefix + key, and nothing under the bare key', async () => {
    await a.set('AUTH_TOKEN:abc', '{"x":1}', 60_000);
    await expect(raw.get(`${prefixA}AUTH_TOKEN:abc`)).resolves.toBe('{"x":1}');
    await expect(raw.get('AUTH_TOKEN:abc')).resolves.toBeNull();
    expect(Number(await raw.pTTL(`${prefixA}AUTH_TOKEN:abc`))).toBeGreaterThan(59_000);

    await a.sAdd('AUTH_USER_TOKENS:u1', 'h1');
    await expect(raw.sMembers(`${prefixA}AUTH_USER_TOKENS:u1`)).resolves.toEqual(['h1']);
    await expect(raw.exists('AUTH_USER_TOKENS:u1')).resolves.toBe(0);

    await raw.set(`${prefixA}CAPTCHA:c1`, 'abcd');
    await expect(a.get('CAPTCHA:c1')).resolves.toBe('abcd');
    await expect(a.getDel('CAPTCHA:c1')).resolves.toBe('abcd');
    await expect(raw.exists(`${prefixA}CAPTCHA:c1`)).resolves.toBe(0);

    await a.setIfAbsent('AUTH_LOGIN_MUTEX:u1', 'owner', 60_000);
    await expect(raw.get(`${prefixA}AUTH_LOGIN_MUTEX:u1`)).resolves.toBe('owner');
    await expect(a.delIfEquals('AUTH_LOGIN_MUTEX:u1', 'owner')).resolves.toBe(true);
    await expect(raw.exists(`${prefixA}AUTH_LOGIN_MUTEX:u1`)).resolves.toBe(0);
  });

  it('two prefixes on one Redis never see each other', async () => {
    await a.set('shared-name', 'from-a');
    await expect(b.get('shared-name')).resolves.toBeNull();
    await expect(b.setIfAbsent('shared-name', 'from-b', 60_000)).resolves.toBe(true);
    await expect(a.get('shared-name')).resolves.toBe('from-a');
    await expect(b.get('shared-name')).resolves.toBe('from-b');
  });

  it('publishes on prefix + channel, and subscribes there', async () => {
    const sub = raw.duplicate();
    await sub.connect();
    try {
      const seenRaw: string[] = [];
      await sub.subscribe(`${prefixA}SYS_PROPS_CHANGED`, (m) => seenRaw.push(m));
      const seenB: string[] = [];
      await b.subscribe('SYS_PROPS_CHANGED', (m) => seenB.push(m));
      const seenA: string[] = [];
      await a.subscribe('SYS_PROPS_CHANGED', (m) => seenA.push(m));

      await a.publish('SYS_PROPS_CHANGED', 'user_login_strategy');
      await raw.publish(`${prefixA}SYS_PROPS_CHANGED`, 'user_strategy');
      for (let i = 0; i < 100 && (seenRaw.length < 2 || seenA.length < 2); i++) await sleep(20);
      expect(seenRaw).toEqual(['user_login_strategy', 'user_strategy']);
      expect(seenA).toEqual(['user_login_strategy', 'user_strategy']);
      await sleep(20);
      // Another prefix is another namespace, channels included.
      expect(seenB).toEqual([]);
    } finally {
      await sub.close();
    }
  });
});
