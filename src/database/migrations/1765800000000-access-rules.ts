import { MigrationInterface, QueryRunner, Table } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** The login access rules (docs/security.md#login-access-rules). */
export class AccessRules1765800000000 implements MigrationInterface {
  name = 'AccessRules1765800000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, bool } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_access_rule',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('name', 64),
          str('action', 8),
          { name: 'ip_ranges', type: 'text' },
          { name: 'time_windows', type: 'text' },
          { name: 'roles', type: 'text' },
          { name: 'users', type: 'text' },
          { ...bool('enabled'), isNullable: false, default: 1 },
          time('create_time', false),
          time('update_time', false),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_access_rule', true);
  }
}
