import { MigrationInterface, QueryRunner, Table } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** API keys of internal services: their hashes, codes, address ranges and lifetimes. */
export class ApiKeys1765600000000 implements MigrationInterface {
  name = 'ApiKeys1765600000000';

  async up(q: QueryRunner): Promise<void> {
    const { time, str, exact } = columnsFor(q);
    await q.createTable(
      new Table({
        name: 'sys_api_key',
        columns: [
          { ...str('id', 36), isPrimary: true },
          str('name', 48),
          { ...exact('name_key', 48), isUnique: true },
          { ...exact('key_hash', 64), isUnique: true },
          str('prefix', 8),
          { name: 'permissions', type: 'text' },
          { name: 'ip_ranges', type: 'text' },
          time('create_time', false),
          time('expire_time'),
          time('last_used_time'),
          time('revoked_time'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_api_key', true);
  }
}
