import type { Worker } from 'node:worker_threads';

import { Logger } from '@nestjs/common';
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
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    hash = await bcrypt.hash('right password', 4);
  });
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
    warn.mockRestore();
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
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/^a password compare worker stopped \(exit code \d+\); replaced$/),
    );
  });

  it('stops replacing workers that keep dying without answering, and says so instead of hanging', async () => {
    pool = new ComparePool(1);
    for (let i = 0; i < 6; i += 1) {
      const [worker] = workersOf(pool);
      await worker.terminate();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(workersOf(pool)).toHaveLength(0);
    expect(warn).toHaveBeenLastCalledWith(
      expect.stringMatching(/stopped \(exit code \d+\); not replaced: 6 stopped in a row$/),
    );
    await expect(within(pool.compare('right password', hash))).rejects.toThrow('no compare worker is left');
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
