import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** The notification outbox, the site message centre and the password-expiry reminder keys. */
export class Notifications1764300000000 implements MigrationInterface {
  name = 'Notifications1764300000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, sqlite } = columnsFor(q);

    await q.createTable(
      new Table({
        name: 'sys_notification',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('user_id', 36),
          str('channel', 16),
          str('kind', 32),
          { name: 'payload', type: 'text' },
          str('status', 16),
          { name: 'attempts', type: 'int', default: 0 },
          time('next_attempt_at', false),
          str('last_error', 512, true),
          str('claimed_by', 64, true),
          time('claimed_until'),
          time('create_time', false),
          time('sent_time'),
        ],
      }),
    );
    await q.createIndex(
      'sys_notification',
      new TableIndex({
        name: 'idx_notification_status_due',
        columnNames: ['status', 'next_attempt_at'],
      }),
    );

    await q.createTable(
      new Table({
        name: 'sys_message',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('user_id', 36),
          str('kind', 32),
          str('title', 200),
          { name: 'content', type: 'text' },
          { name: 'is_read', type: sqlite ? 'boolean' : 'tinyint', isNullable: false, default: 0 },
          time('create_time', false),
        ],
      }),
    );
    await q.createIndex(
      'sys_message',
      new TableIndex({
        name: 'idx_message_user_read_time',
        columnNames: ['user_id', 'is_read', 'create_time'],
      }),
    );

    await q.createTable(
      new Table({
        name: 'sys_password_reminder',
        columns: [
          { ...str('user_id', 36), isPrimary: true },
          { ...time('expire_time', false), isPrimary: true },
          time('create_time', false),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['sys_password_reminder', 'sys_message', 'sys_notification']) {
      await q.dropTable(table, true);
    }
  }
}
