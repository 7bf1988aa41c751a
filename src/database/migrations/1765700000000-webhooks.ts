import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** Webhooks: the subscriptions of other systems, and one row per delivery try. */
export class Webhooks1765700000000 implements MigrationInterface {
  name = 'Webhooks1765700000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, bool, sqlite } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_webhook',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('url', 2048),
          str('events', 512),
          { ...bool('enabled'), isNullable: false },
          str('secret', 255),
          time('create_time', false),
          time('update_time', false),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sys_webhook_delivery',
        columns: [
          {
            name: 'id',
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          str('webhook_id', 36),
          str('message_id', 36),
          str('event_type', 32),
          { name: 'attempt', type: 'int' },
          time('attempt_time', false),
          { name: 'http_status', type: 'int', isNullable: true },
          str('error', 255, true),
          { name: 'duration_ms', type: 'int' },
          { ...bool('success'), isNullable: false },
        ],
      }),
    );
    await q.createIndex(
      'sys_webhook_delivery',
      new TableIndex({ name: 'idx_webhook_delivery_hook_time', columnNames: ['webhook_id', 'attempt_time'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_webhook_delivery', true);
    await q.dropTable('sys_webhook', true);
  }
}
