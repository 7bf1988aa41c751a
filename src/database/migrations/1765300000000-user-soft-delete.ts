import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** /sys/user/delete: a soft delete keeps the row (identifiers stay taken, log rows keep their user). */
export class UserSoftDelete1765300000000 implements MigrationInterface {
  name = 'UserSoftDelete1765300000000';

  async up(q: QueryRunner): Promise<void> {
    const { time } = columnsFor(q);
    await q.addColumn('sys_user', new TableColumn(time('delete_time')));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('sys_user', 'delete_time');
  }
}
