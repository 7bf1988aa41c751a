import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

import { columnsFor } from '../migration-columns';

/**
 * (logs): the code of a login failure next to its text, and the indexes that serve the
 * prefix filters (`LIKE 'x%' ESCAPE '!'`) of the login log and the audit log.
 *
 * SQLite uses an index for LIKE only when the index has the collation LIKE compares with: NOCASE
 * (LIKE is case-insensitive for ASCII there unless case_sensitive_like is on). MariaDB uses the
 * column's own collation for both, so a plain index serves it.
 */
const INDEXES: [table: string, name: string, column: string][] = [
  ['sys_login_log', 'idx_login_log_account', 'account'],
  ['sys_login_log', 'idx_login_log_ip', 'ip'],
  ['sys_audit_log', 'idx_audit_log_username', 'username'],
  ['sys_audit_log', 'idx_audit_log_target', 'target'],
  ['sys_audit_log', 'idx_audit_log_target_name', 'target_name'],
];

export class LogSearch1765410000000 implements MigrationInterface {
  name = 'LogSearch1765410000000';

  async up(q: QueryRunner): Promise<void> {
    const { str, sqlite } = columnsFor(q);
    // Rows written before stay null: the console then shows the stored text.
    await q.addColumn('sys_login_log', new TableColumn(str('failure_code', 32, true)));
    for (const [table, name, column] of INDEXES) {
      await q.query(
        sqlite
          ? `CREATE INDEX "${name}" ON "${table}" ("${column}" COLLATE NOCASE)`
          : `CREATE INDEX \`${name}\` ON \`${table}\` (\`${column}\`)`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const { sqlite } = columnsFor(q);
    for (const [table, name] of INDEXES) {
      await q.query(sqlite ? `DROP INDEX "${name}"` : `DROP INDEX \`${name}\` ON \`${table}\``);
    }
    await q.dropColumn('sys_login_log', 'failure_code');
  }
}
