import { AsyncLocalStorage } from 'node:async_hooks';

import type { DataSource } from 'typeorm';

const scopes = new AsyncLocalStorage<Trace>();

/**
 * What a test does, told apart from what the instance does meanwhile on its own: the log sealer and
 * the notification outbox poll every second, with statements and store calls of their own that would
 * otherwise land in a trace of one request now and then. A call belongs to the trace when it comes
 * from the chain of calls `run` started; the test app's requests are injected, so they run in it.
 */
export class Trace {
  run<T>(during: () => Promise<T>): Promise<T> {
    return scopes.run(this, during);
  }

  /** Whether the current call comes from this trace's `run`. */
  get current(): boolean {
    return scopes.getStore() === this;
  }
}

/**
 * The SQL statements `db` runs for what `during` does, as text (see Trace); another app in the same
 * process (a second instance) is left out.
 */
export async function sqlDuring(
  db: DataSource,
  during: () => Promise<unknown>,
  trace = new Trace(),
): Promise<string[]> {
  // Every statement TypeORM runs goes through its driver's query runner.
  const runner = db.createQueryRunner();
  const prototype = Object.getPrototypeOf(runner);
  const original = prototype.query as (...args: unknown[]) => Promise<unknown>;
  const sent: string[] = [];
  const query = jest.spyOn(prototype, 'query').mockImplementation(function (
    this: { connection?: DataSource },
    ...args: unknown[]
  ) {
    if (this.connection === db && trace.current) sent.push(String(args[0]));
    return original.apply(this, args);
  });
  await runner.release();
  try {
    await trace.run(during);
    return sent;
  } finally {
    query.mockRestore();
  }
}
