import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

import { columnsFor } from '../migration-columns';

/** dormantDays: when each user last logged in successfully (null: never). */
export class LastLoginTime1765215000000 implements MigrationInterface {
  name = 'LastLoginTime1765215000000';

  async up(q: QueryRunner): Promise<void> {
    const { time } = columnsFor(q);
    await q.addColumn('sys_user', new TableColumn(time('last_login_time')));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('sys_user', 'last_login_time');
  }
}
