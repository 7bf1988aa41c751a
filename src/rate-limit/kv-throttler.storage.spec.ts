import { FakeClock } from '../../test/support/fake-clock';
import { MemoryKvStore } from '../store/memory-kv.store';
import { KvThrottlerStorage, THROTTLE_KEY_PREFIX } from './kv-throttler.storage';

const WINDOW_MS = 60_000;

describe('KvThrottlerStorage (per-IP throttling, fixed window)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let storage: KvThrottlerStorage;
  const hit = (key: string, limit = 3, ttl = WINDOW_MS) => storage.increment(key, ttl, limit);

  beforeEach(() => {
    clock = new FakeClock(new Date('2025-01-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    storage = new KvThrottlerStorage(store);
  });

  afterEach(() => store.close());

  it('counts each key on its own', async () => {
    expect((await hit('login:10.0.0.1')).totalHits).toBe(1);
    expect((await hit('login:10.0.0.1')).totalHits).toBe(2);
    expect((await hit('login:10.0.0.2')).totalHits).toBe(1);
    expect((await hit('captcha:10.0.0.1')).totalHits).toBe(1);
    expect((await hit('login:10.0.0.1')).totalHits).toBe(3);
  });

  it('counts in the store under THROTTLE:<key>, so every instance sharing the store shares the window', async () => {
    await hit('login:10.0.0.1');
    expect(await store.get(`${THROTTLE_KEY_PREFIX}login:10.0.0.1`)).toBe('1');
    const otherInstance = new KvThrottlerStorage(store);
    expect((await otherInstance.increment('login:10.0.0.1', WINDOW_MS, 3)).totalHits).toBe(2);
  });

  it('lets the limit through and blocks past it until the window ends', async () => {
    for (let i = 1; i <= 3; i++) {
      const record = await hit('k');
      expect(record).toMatchObject({ totalHits: i, isBlocked: false, timeToBlockExpire: 0 });
    }
    const fourth = await hit('k');
    expect(fourth).toMatchObject({ totalHits: 4, isBlocked: true, timeToExpire: 60, timeToBlockExpire: 60 });
    clock.advance(30_000);
    expect(await hit('k')).toMatchObject({ isBlocked: true, timeToExpire: 30, timeToBlockExpire: 30 });
    expect((await hit('other')).isBlocked).toBe(false);
  });

  it('a new window starts from zero once the old one has expired', async () => {
    for (let i = 0; i < 5; i++) await hit('k');
    clock.advance(WINDOW_MS - 1);
    expect((await hit('k')).isBlocked).toBe(true);
    clock.advance(1);
    expect(await hit('k')).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 60 });
  });

  it('hits do not extend the window (fixed, not sliding)', async () => {
    await hit('k', 100);
    clock.advance(40_000);
    expect((await hit('k', 100)).timeToExpire).toBe(20);
    clock.advance(20_000);
    expect((await hit('k', 100)).totalHits).toBe(1);
  });

  it('reports the time left in whole seconds, rounded up and never below 1', async () => {
    expect((await hit('k', 100)).timeToExpire).toBe(60);
    clock.advance(500);
    expect((await hit('k', 100)).timeToExpire).toBe(60);
    clock.advance(58_600); // 900 ms left
    expect((await hit('k', 100)).timeToExpire).toBe(1);
    clock.advance(899); // 1 ms left
    const last = await hit('k', 1);
    expect(last).toMatchObject({ isBlocked: true, timeToExpire: 1, timeToBlockExpire: 1 });
    expect(Number.isInteger(last.timeToExpire)).toBe(true);
  });

  it('a short window (under a second) still answers Retry-After ≥ 1', async () => {
    const record = await storage.increment('k', 200, 0);
    expect(record).toMatchObject({ isBlocked: true, timeToExpire: 1, timeToBlockExpire: 1 });
  });
});
