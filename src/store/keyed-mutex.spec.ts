import { sleep, waitFor } from '../../test/support/wait';
import { SystemClock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { KeyedMutex } from './keyed-mutex';
import { MemoryKvStore } from './memory-kv.store';
import { StoreUnavailableError } from './redis-kv.store';

/**
 * The lease bounds how long a crashed holder blocks others, but it must never run
 * out under a holder that is still running (a database stall longer than the lease let a second
 * attempt in, and one compare past maxFailureTimes was evaluated). Real time, short leases.
 */
describe('KeyedMutex lease', () => {
  let store: MemoryKvStore;
  let mutex: KeyedMutex;

  beforeEach(() => {
    store = new MemoryKvStore(new SystemClock());
    mutex = new KeyedMutex(store);
  });
  afterEach(() => store.close());

  it('a holder running five times its lease keeps the key: a second taker waits until it ends', async () => {
    // Real time: the lease is long enough that a busy machine's event-loop stalls (a few hundred ms)
    // cannot lose it between renewals, which is not what this test is about.
    const order: string[] = [];
    const first = mutex.run(
      'k',
      async () => {
        order.push('first in');
        await sleep(2_500);
        order.push('first out');
      },
      500,
      5_000,
    );
    await sleep(20);
    const second = mutex.run(
      'k',
      async () => {
        order.push('second in');
      },
      500,
      5_000,
    );
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
    await expect(store.get('k')).resolves.toBeNull();
  });

  it('stops renewing when the section ends, also when it throws', async () => {
    const renew = jest.spyOn(store, 'expireIfEquals');
    await mutex.run('k', () => sleep(300), 90);
    await expect(
      mutex.run(
        'k',
        async () => {
          await sleep(300);
          throw new Error('boom');
        },
        90,
      ),
    ).rejects.toThrow('boom');
    const renewals = renew.mock.calls.length;
    expect(renewals).toBeGreaterThan(0);
    await sleep(300);
    expect(renew.mock.calls.length).toBe(renewals);
    await expect(store.get('k')).resolves.toBeNull();
  });

  it('a lease nobody renews (a crashed holder) still ends after leaseMs', async () => {
    await store.setIfAbsent('k', 'crashed-holder', 200);
    const started = Date.now();
    await expect(mutex.run('k', async () => 'after-lease', 200, 5_000)).resolves.toBe('after-lease');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(1_000);
  });
  it('by default a lease is no longer than a taker waits: a crashed holder delays takers, never outlasts their wait', async () => {
    // DB_STATEMENT_TIMEOUT_MS 100 → takers wait 2 s by default, so the default lease is at most 2 s.
    const short = new KeyedMutex(store, { DB_STATEMENT_TIMEOUT_MS: 100 } as AppConfig);
    // The holder's process "dies": its section never ends and no renewal reaches the store.
    jest.spyOn(store, 'expireIfEquals').mockResolvedValue(false);
    void short.run('k', () => new Promise(() => undefined));
    await sleep(20);
    const started = Date.now();
    await expect(short.run('k', async () => 'after-lease', undefined, 5_000)).resolves.toBe('after-lease');
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});

/**
 * A take the store carried out but answered too late: the client's deadline gave up on it, yet
 * Redis runs a command it has received. Nobody holds that key, and nobody would release it before
 * its lease ran out: an account's logins (or the day's retention) would wait for a dead lease.
 */
describe('KeyedMutex: a take answered past the deadline', () => {
  let store: MemoryKvStore;
  let mutex: KeyedMutex;

  beforeEach(() => {
    store = new MemoryKvStore(new SystemClock());
    mutex = new KeyedMutex(store);
    const setIfAbsent = store.setIfAbsent.bind(store);
    jest.spyOn(store, 'setIfAbsent').mockImplementationOnce(async (key, value, ttlMs) => {
      await setIfAbsent(key, value, ttlMs);
      throw new StoreUnavailableError('redis did not answer within 1500 ms');
    });
  });
  afterEach(() => store.close());

  it("run: the taker gets the store's error, and the key it may have taken is freed for the next", async () => {
    await expect(mutex.run('k', async () => 'never', 60_000, 5_000)).rejects.toThrow(StoreUnavailableError);
    await waitFor(async () => (await store.get('k')) === null, 'the orphaned key to be freed', 1_000);
    const started = Date.now();
    await expect(mutex.run('k', async () => 'next', 60_000, 5_000)).resolves.toBe('next');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('tryRun: the job that follows runs instead of finding the key taken for the whole lease', async () => {
    await expect(mutex.tryRun('job', async () => 'never', 60_000)).rejects.toThrow(StoreUnavailableError);
    await waitFor(async () => (await store.get('job')) === null, 'the orphaned key to be freed', 1_000);
    await expect(mutex.tryRun('job', async () => 'next', 60_000)).resolves.toEqual({ ran: true, value: 'next' });
  });
});
