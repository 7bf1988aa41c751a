import { deleteKeysUnder, keysUnder, RUN_ENV, runPrefix, testRun } from './redis-keys';

/*
 * Jest's globalSetup and globalTeardown (jest.config.js): the set-up tags the run (workers inherit
 * the variable); the teardown fails the run when a suite left keys of it in Redis, naming the
 * prefixes, and then deletes them so that the next run starts clean. Without a reachable Redis
 * (a run on SQLite + memory only) there is nothing to check.
 */

export async function setupRun(): Promise<void> {
  testRun();
}

export async function teardownRun(): Promise<void> {
  const run = process.env[RUN_ENV];
  if (!run) return;
  let left: string[];
  try {
    left = await keysUnder(runPrefix(run));
  } catch {
    return;
  }
  if (!left.length) return;
  await deleteKeysUnder(runPrefix(run));
  const prefixes = new Map<string, number>();
  for (const key of left) {
    const prefix = key.slice(0, key.indexOf(':') + 1);
    prefixes.set(prefix, (prefixes.get(prefix) ?? 0) + 1);
  }
  const shown = [...prefixes].map(([prefix, n]) => `${prefix} (${n})`).join(', ');
  throw new Error(
    `Tests left ${left.length} Redis keys behind (now deleted): ${shown}. Dispose of what you provision (test/support/redis-keys.ts).`,
  );
}
