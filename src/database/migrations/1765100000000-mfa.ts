import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** The TOTP second factor and its recovery codes. */
export class Mfa1765100000000 implements MigrationInterface {
  name = 'Mfa1765100000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, exact, sqlite } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_user_mfa',
        columns: [
          { ...str('user_id', 36), isPrimary: true },
          str('secret', 255),
          time('enabled_time', false),
          { name: 'last_used_step', type: sqlite ? 'integer' : 'bigint', isNullable: true },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sys_user_recovery_code',
        columns: [
          {
            name: 'id',
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          str('user_id', 36),
          exact('code_hash', 64),
          time('used_time'),
        ],
      }),
    );
    await q.createIndex(
      'sys_user_recovery_code',
      new TableIndex({ name: 'idx_recovery_code_user_hash', columnNames: ['user_id', 'code_hash'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_user_recovery_code', true);
    await q.dropTable('sys_user_mfa', true);
  }
}
