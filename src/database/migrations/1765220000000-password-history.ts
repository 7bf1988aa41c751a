import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** passwordHistoryCount: the hashes of users' previous passwords. */
export class PasswordHistory1765220000000 implements MigrationInterface {
  name = 'PasswordHistory1765220000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, sqlite } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_password_history',
        columns: [
          {
            name: 'id',
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          str('user_id', 36),
          str('password_hash', 100),
          time('replaced_time', false),
        ],
      }),
    );
    await q.createIndex(
      'sys_password_history',
      new TableIndex({ name: 'idx_password_history_user', columnNames: ['user_id', 'id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_password_history', true);
  }
}
