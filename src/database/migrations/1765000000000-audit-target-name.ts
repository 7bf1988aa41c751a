import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** Audit rows name their target user by user name too, not by UUID only (rows written before stay null). */
export class AuditTargetName1765000000000 implements MigrationInterface {
  name = 'AuditTargetName1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const { str } = columnsFor(q);
    await q.addColumn('sys_audit_log', new TableColumn(str('target_name', 64, true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('sys_audit_log', 'target_name');
  }
}
