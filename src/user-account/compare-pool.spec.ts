import type { Worker } from 'node:worker_threads';

import * as bcrypt from 'bcrypt';

import { ComparePool } from './compare-pool';

/** The pool's workers, to make one of them die as a crash would. */
const workersOf = (pool: ComparePool) => [...(pool as unknown as { all: Set<Worker> }).all];

/** A compare that has not answered within `ms` is a hang: it fails the test instead of timing it out. */
function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}

describe('ComparePool', () => {
  let hash: string;
  let pool: ComparePool | undefined;

  beforeAll(async () => {
    hash = await bcrypt.hash('right password', 4);
  });
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('answers whether the password matches, with how long the compare took', async () => {
    pool = new ComparePool(2);
    const [right, wrong] = await Promise.all([pool.compare('right password', hash), pool.compare('wrong', hash)]);
    expect(right.ok).toBe(true);
    expect(wrong.ok).toBe(false);
    expect(right.ms).toBeGreaterThan(0);
  });

  it('replaces a worker that dies, so that logins keep being answered instead of hanging', async () => {
    pool = new ComparePool(1);
    await pool.compare('right password', hash);
    const [worker] = workersOf(pool);
    await worker.terminate();

    const answers = await within(Promise.all([pool.compare('right password', hash), pool.compare('wrong', hash)]));
    expect(answers.map((a) => a.ok)).toEqual([true, false]);
    expect(workersOf(pool)).toHaveLength(1);
    expect(workersOf(pool)[0]).not.toBe(worker);
  });

  it('runs a compare again on the replacement when its worker dies in the middle of it', async () => {
    pool = new ComparePool(1);
    const slow = await bcrypt.hash('right password', 12);
    const [worker] = workersOf(pool);
    const inFlight = pool.compare('right password', slow);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.terminate();

    await expect(within(inFlight, 15_000)).resolves.toMatchObject({ ok: true });
  });

  it('refuses compares once closed instead of leaving them waiting', async () => {
    pool = new ComparePool(1);
    await pool.close();
    await expect(within(pool.compare('right password', hash))).rejects.toThrow('closed');
    pool = undefined;
  });
});
