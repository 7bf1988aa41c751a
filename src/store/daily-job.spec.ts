import { SystemClock } from '../common/clock';
import { DailyJob } from './daily-job';
import { KeyedMutex } from './keyed-mutex';
import { MemoryKvStore } from './memory-kv.store';

/** A pass the test ends when it chooses, so overlaps and shutdowns happen mid-pass. */
function heldPass<T>() {
  let finish!: (value: T) => void;
  let fail!: (err: Error) => void;
  const done = new Promise<T>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const pass = jest.fn(() => done);
  return { pass, finish, fail };
}

describe('DailyJob: the scaffold the daily jobs share', () => {
  it("'share': a call while a pass runs gets that pass; the next call after it starts a new one", async () => {
    const job = new DailyJob<number>({ idle: 0, overlap: 'share' });
    const { pass, finish } = heldPass<number>();
    const first = job.run(pass);
    const second = job.run(pass);
    expect(second).toBe(first);
    finish(3);
    await expect(Promise.all([first, second])).resolves.toEqual([3, 3]);
    await expect(job.run(async () => 4)).resolves.toBe(4);
    expect(pass).toHaveBeenCalledTimes(1);
  });

  it("'skip': a call while a pass runs resolves to idle at once and runs nothing", async () => {
    const job = new DailyJob<string | null>({ idle: null, overlap: 'skip' });
    const { pass, finish } = heldPass<string>();
    const first = job.run(pass);
    await expect(job.run(pass)).resolves.toBeNull();
    finish('done');
    await expect(first).resolves.toBe('done');
    expect(pass).toHaveBeenCalledTimes(1);
  });

  it('a pass that fails rejects its callers and leaves the job free for the next one', async () => {
    const job = new DailyJob<number>({ idle: 0, overlap: 'share' });
    await expect(job.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(job.run(async () => 1)).resolves.toBe(1);
  });

  it('stop() waits for the pass in flight, even a failing one, and no pass starts after it', async () => {
    const job = new DailyJob<number>({ idle: 0, overlap: 'share' });
    const { pass, fail } = heldPass<number>();
    const running = job.run(pass).catch(() => 'failed');
    let stopped = false;
    const stopping = job.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    // The pass sees the flag and may end early; stop() has not returned before it does.
    expect(job.stopped).toBe(true);
    expect(stopped).toBe(false);
    fail(new Error('closing'));
    await stopping;
    await expect(running).resolves.toBe('failed');
    const late = jest.fn(async () => 5);
    await expect(job.run(late)).resolves.toBe(0);
    expect(late).not.toHaveBeenCalled();
  });

  describe('with a cluster-wide turn', () => {
    let store: MemoryKvStore;
    let mutex: KeyedMutex;

    beforeEach(() => {
      store = new MemoryKvStore(new SystemClock());
      mutex = new KeyedMutex(store);
    });
    afterEach(() => store.close());

    it('one instance runs; another that finds the turn taken resolves to idle, is told, and does not wait', async () => {
      const onTaken = jest.fn();
      const here = new DailyJob<number>({ idle: 0, overlap: 'share', turn: { mutex, key: 'TURN', leaseMs: 1_000 } });
      const there = new DailyJob<number>({
        idle: 0,
        overlap: 'share',
        turn: { mutex, key: 'TURN', leaseMs: 1_000, onTaken },
      });
      const { pass, finish } = heldPass<number>();
      const running = here.run(pass);
      await new Promise((resolve) => setImmediate(resolve));
      const skipped = jest.fn(async () => 9);
      await expect(there.run(skipped)).resolves.toBe(0);
      expect(skipped).not.toHaveBeenCalled();
      expect(onTaken).toHaveBeenCalledTimes(1);
      finish(2);
      await expect(running).resolves.toBe(2);
      // The turn is released when the pass ends: the next day's pass may run anywhere.
      await expect(store.get('TURN')).resolves.toBeNull();
      await expect(there.run(async () => 7)).resolves.toBe(7);
    });
  });
});
