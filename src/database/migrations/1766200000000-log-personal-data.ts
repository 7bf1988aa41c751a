import { MigrationInterface, QueryRunner } from 'typeorm';

import { columnsFor } from '../migration-columns';

const COLUMNS: [table: string, column: string, type: string][] = [
  ['sys_login_log', 'pii_account', 'text'],
  ['sys_audit_log', 'pii_detail', 'text'],
];

/**
 * Personal data in the logs (docs/security.md#personal-data): beside the masked account of a login and
 * the masked detail of an audited change, the whole values sealed, for holders of sys:user:pii. Rows
 * already there keep what they held. Plain ADD COLUMN, as in the log seals' migration: on SQLite
 * TypeORM's addColumn would copy the table and lose the COLLATE NOCASE of its prefix indexes, and on
 * MariaDB a nullable column added at the end is instant, whatever the log's size.
 */
export class LogPersonalData1766200000000 implements MigrationInterface {
  name = 'LogPersonalData1766200000000';

  async up(q: QueryRunner): Promise<void> {
    const { sqlite } = columnsFor(q);
    for (const [table, column, type] of COLUMNS) {
      await q.query(
        sqlite
          ? `ALTER TABLE "${table}" ADD COLUMN "${column}" ${type}`
          : `ALTER TABLE \`${table}\` ADD COLUMN \`${column}\` ${type} NULL`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const { sqlite } = columnsFor(q);
    for (const [table, column] of COLUMNS) {
      await q.query(
        sqlite
          ? `ALTER TABLE "${table}" DROP COLUMN "${column}"`
          : `ALTER TABLE \`${table}\` DROP COLUMN \`${column}\``,
      );
    }
  }
}
