import { randomBytes } from 'node:crypto';

import { createClient, RedisClientType } from 'redis';

/**
 * The Redis key space of a test run. Every prefix a test gives the service (REDIS_KEY_PREFIX) or
 * a store starts with `lpst.<run>.`, where `<run>` is made once per Jest run by the global set-up
 * (test/support/redis-run.ts) and inherited by every worker: each suite deletes its own prefix when
 * it disposes of it, and the global teardown fails the run when any key of the run is left. Other
 * people's keys on a shared Redis are never touched: everything is scoped by prefix, never FLUSHALL.
 */
export const REDIS_TEST_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
export const RUN_ENV = 'LPS_TEST_REDIS_RUN';

/** The run's tag; a process started without the global set-up makes its own. */
export function testRun(): string {
  process.env[RUN_ENV] ??= randomBytes(4).toString('hex');
  return process.env[RUN_ENV]!;
}

/** What every key of this run starts with. */
export const runPrefix = (run = testRun()) => `lpst.${run}.`;

/** A fresh prefix of this run: `lpst.<run>.<kind><8 hex>:`. */
export const testKeyPrefix = (kind: string) => `${runPrefix()}${kind}${randomBytes(4).toString('hex')}:`;

/** Redis glob characters taken literally. */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/** Runs `body` with a client of the test Redis. */
async function withRedis<T>(body: (client: RedisClientType) => Promise<T>): Promise<T> {
  const client = createClient({ url: REDIS_TEST_URL }) as RedisClientType;
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/** The keys under a prefix (SCAN, never KEYS). */
export function keysUnder(prefix: string): Promise<string[]> {
  return withRedis(async (client) => {
    const found: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${literal(prefix)}*`, COUNT: 500 }))
      found.push(...([] as string[]).concat(batch as string | string[]));
    return found;
  });
}

/** Deletes every key under a prefix; answers how many there were. */
export function deleteKeysUnder(prefix: string): Promise<number> {
  return withRedis(async (client) => {
    let deleted = 0;
    for await (const batch of client.scanIterator({ MATCH: `${literal(prefix)}*`, COUNT: 500 })) {
      const keys = ([] as string[]).concat(batch as string | string[]);
      if (keys.length) deleted += await client.unlink(keys);
    }
    return deleted;
  });
}
