import { MigrationInterface, QueryRunner, Table } from 'typeorm';

import { columnsFor } from '../migration-columns';

const LOGS: [table: string, uniqueIndex: string][] = [
  ['sys_login_log', 'uq_login_log_seal_seq'],
  ['sys_audit_log', 'uq_audit_log_seal_seq'],
];

/**
 * Sealed logs (docs/security.md#sealed-logs): the seal columns of both log tables, the unique
 * index that keeps two sealers from giving one place twice, the chain state of each table (rows
 * already there predate sealing: `legacy_below`) and the runs retention releases.
 *
 * The columns are added with plain ALTER TABLE … ADD COLUMN: on SQLite TypeORM's addColumn copies
 * the whole table and recreates its indexes without the COLLATE NOCASE of the prefix indexes.
 */
export class LogSeals1765900000000 implements MigrationInterface {
  name = 'LogSeals1765900000000';

  async up(q: QueryRunner): Promise<void> {
    const { sqlite, str } = columnsFor(q);
    const bigint = sqlite ? 'integer' : 'bigint';
    for (const [table, index] of LOGS) {
      if (sqlite) {
        for (const column of ['row_mac varchar(64)', 'seal_seq integer', 'seal_prev integer', 'seal varchar(64)'])
          await q.query(`ALTER TABLE "${table}" ADD COLUMN ${column}`);
        await q.query(`CREATE UNIQUE INDEX "${index}" ON "${table}" ("seal_seq")`);
      } else {
        await q.query(
          `ALTER TABLE \`${table}\` ADD COLUMN \`row_mac\` varchar(64) NULL, ADD COLUMN \`seal_seq\` bigint NULL,` +
            ` ADD COLUMN \`seal_prev\` bigint NULL, ADD COLUMN \`seal\` varchar(64) NULL,` +
            ` ADD UNIQUE INDEX \`${index}\` (\`seal_seq\`)`,
        );
      }
    }
    await q.createTable(
      new Table({
        name: 'sys_log_chain',
        columns: [
          { ...str('table_name', 32), isPrimary: true },
          { name: 'legacy_below', type: bigint },
          { name: 'head_seq', type: bigint },
          { name: 'head_id', type: bigint },
          str('head_seal', 64, true),
          str('head_mac', 64, true),
          { name: 'forwarded_seq', type: bigint },
        ],
      }),
    );
    for (const [table] of LOGS) {
      await q.query(
        `INSERT INTO sys_log_chain (table_name, legacy_below, head_seq, head_id, forwarded_seq)` +
          ` SELECT '${table}', COALESCE(MAX(id), 0) + 1, 0, 0, 0 FROM ${table}`,
      );
    }
    await q.createTable(
      new Table({
        name: 'sys_log_release',
        columns: [
          { ...str('table_name', 32), isPrimary: true },
          { name: 'from_seq', type: bigint, isPrimary: true },
          { name: 'to_seq', type: bigint },
          { name: 'last_id', type: bigint },
          str('last_seal', 64),
          str('mac', 64),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const { sqlite } = columnsFor(q);
    await q.dropTable('sys_log_release');
    await q.dropTable('sys_log_chain');
    for (const [table, index] of LOGS) {
      await q.query(sqlite ? `DROP INDEX "${index}"` : `DROP INDEX \`${index}\` ON \`${table}\``);
      for (const column of ['row_mac', 'seal_seq', 'seal_prev', 'seal'])
        await q.query(
          sqlite
            ? `ALTER TABLE "${table}" DROP COLUMN "${column}"`
            : `ALTER TABLE \`${table}\` DROP COLUMN \`${column}\``,
        );
    }
  }
}
