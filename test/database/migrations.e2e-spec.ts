import { MigrationInterface, QueryRunner } from 'typeorm';

import { dataSourceOptions, initializeDataSource, MIGRATIONS } from '../../src/database/data-source-options';
import { mariadbRedis, Provisioned } from '../support/backends';

/** A schema change that takes longer than a request may: a table copy of a large sys_user, say. */
class SlowSchemaChange1799999999999 implements MigrationInterface {
  name = 'SlowSchemaChange1799999999999';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('SELECT SLEEP(0.6)');
  }
  async down(): Promise<void> {}
}

/**
 * Every MariaDB/MySQL statement has a deadline (DB_STATEMENT_TIMEOUT_MS). Migrations run
 * at start on the same pool: a schema change longer than the deadline stopped the start (an ALTER of
 * sys_user at 1 M rows takes about 3 s). They run without the run-time limit, which is put back after.
 */
describe('migrations on MariaDB run outside the statement deadline', () => {
  let provisioned: Provisioned;
  beforeAll(async () => {
    provisioned = await mariadbRedis.provision();
  });
  afterAll(() => provisioned.dispose());

  it('a migration longer than the deadline completes; requests afterwards keep the deadline', async () => {
    const base = dataSourceOptions(provisioned.env.DATABASE_URL, false, 200);
    // One pooled connection: the one the migrations ran on is the one the request below gets.
    const options = {
      ...base,
      migrations: [...MIGRATIONS, SlowSchemaChange1799999999999],
      extra: { connectionLimit: 1 },
    } as typeof base;
    const dataSource = await initializeDataSource(options, 200);
    try {
      const applied = await dataSource.query('SELECT name FROM migrations ORDER BY id');
      expect(applied.map((r: { name: string }) => r.name)).toContain('SlowSchemaChange1799999999999');
      await expect(dataSource.query('SELECT SLEEP(0.6)')).rejects.toMatchObject({ errno: 1969 });
    } finally {
      await dataSource.destroy();
    }
  });
});
