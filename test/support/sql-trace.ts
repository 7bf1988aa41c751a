import type { DataSource } from 'typeorm';

/**
 * The SQL statements `db` runs while `during` runs, as text; another app in the same process (a
 * second instance) is left out.
 */
export async function sqlDuring(db: DataSource, during: () => Promise<unknown>): Promise<string[]> {
  // Every statement TypeORM runs goes through its driver's query runner.
  const runner = db.createQueryRunner();
  const query = jest.spyOn(Object.getPrototypeOf(runner), 'query');
  await runner.release();
  try {
    await during();
    return query.mock.calls
      .filter((_, i) => (query.mock.contexts[i] as { connection?: DataSource } | undefined)?.connection === db)
      .map((call) => String(call[0]));
  } finally {
    query.mockRestore();
  }
}
