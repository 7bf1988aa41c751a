import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** The whole first schema, written once for SQLite and MySQL/MariaDB alike. */
export class InitSchema1763900000000 implements MigrationInterface {
  name = 'InitSchema1763900000000';

  async up(q: QueryRunner): Promise<void> {
    const { sqlite, bool, time, str } = columnsFor(q);

    await q.createTable(
      new Table({
        name: 'sys_user',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('username', 64),
          str('name', 64),
          str('mobile', 32, true),
          str('email', 128, true),
          str('password', 100),
          time('password_update_time'),
          time('create_time', false),
          bool('locked'),
          time('unlock_time'),
          bool('disabled'),
          time('failure_reset_time'),
        ],
        uniques: [
          { name: 'uq_sys_user_username', columnNames: ['username'] },
          { name: 'uq_sys_user_mobile', columnNames: ['mobile'] },
          { name: 'uq_sys_user_email', columnNames: ['email'] },
        ],
      }),
    );

    await q.createTable(
      new Table({
        name: 'sys_role',
        columns: [{ ...str('code', 64), isPrimary: true }, str('name', 64), { name: 'permissions', type: 'text' }],
      }),
    );

    await q.createTable(
      new Table({
        name: 'sys_user_role',
        columns: [
          { ...str('user_id', 36), isPrimary: true },
          { ...str('role_code', 64), isPrimary: true },
        ],
      }),
    );

    await q.createTable(
      new Table({
        name: 'sys_login_log',
        columns: [
          {
            name: 'id',
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          str('user_id', 36, true),
          str('account', 128),
          str('user_name', 64, true),
          str('login_type', 16),
          str('status', 16),
          str('ip', 64),
          str('browser', 64, true),
          str('os', 64, true),
          time('login_time', false),
          str('failure_reason', 255, true),
        ],
      }),
    );
    await q.createIndex(
      'sys_login_log',
      new TableIndex({
        name: 'idx_login_log_user_status_time',
        columnNames: ['user_id', 'status', 'login_time'],
      }),
    );
    await q.createIndex('sys_login_log', new TableIndex({ name: 'idx_login_log_time', columnNames: ['login_time'] }));

    await q.createTable(
      new Table({
        name: 'sys_props',
        columns: [
          { ...str('prop_group', 64), isPrimary: true },
          { ...str('prop_key', 64), isPrimary: true },
          { name: 'prop_value', type: 'text' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['sys_props', 'sys_login_log', 'sys_user_role', 'sys_role', 'sys_user']) {
      await q.dropTable(table, true);
    }
  }
}
