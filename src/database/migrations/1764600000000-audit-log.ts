import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** The audit log of administrative actions. */
export class AuditLog1764600000000 implements MigrationInterface {
  name = 'AuditLog1764600000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, sqlite } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_audit_log',
        columns: [
          {
            name: 'id',
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          str('user_id', 36),
          str('username', 64, true),
          str('action', 64),
          str('target', 128, true),
          { name: 'detail', type: 'text', isNullable: true },
          str('ip', 64),
          time('create_time', false),
        ],
      }),
    );
    await q.createIndex('sys_audit_log', new TableIndex({ name: 'idx_audit_log_time', columnNames: ['create_time'] }));
    await q.createIndex(
      'sys_audit_log',
      new TableIndex({ name: 'idx_audit_log_action_time', columnNames: ['action', 'create_time'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_audit_log', true);
  }
}
