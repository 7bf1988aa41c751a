import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** Passkeys (WebAuthn credentials) of users (docs/security.md#passkeys). */
export class Passkeys1766000000000 implements MigrationInterface {
  name = 'Passkeys1766000000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, exact, bool, sqlite } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_user_passkey',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('user_id', 36),
          str('name', 64),
          { name: 'credential_id', type: 'text' },
          exact('credential_hash', 64),
          { name: 'public_key', type: 'text' },
          { name: 'counter', type: sqlite ? 'integer' : 'bigint', isNullable: false, default: 0 },
          { ...str('transports', 255), default: "''" },
          str('device_type', 16),
          { ...bool('backed_up'), isNullable: false },
          time('create_time', false),
          time('last_used_time'),
        ],
      }),
    );
    await q.createIndex('sys_user_passkey', new TableIndex({ name: 'idx_passkey_user', columnNames: ['user_id'] }));
    await q.createIndex(
      'sys_user_passkey',
      new TableIndex({ name: 'idx_passkey_credential', columnNames: ['credential_hash'], isUnique: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_user_passkey', true);
  }
}
