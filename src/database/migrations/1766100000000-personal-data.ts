import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

import { columnsFor } from '../migration-columns';

/**
 * Personal data at rest (docs/security.md#personal-data): room for the sealed mobile and e-mail,
 * their keyed hashes and the version they were made under. The rows themselves are encrypted by
 * PiiReencryptJob at start, in batches, because the key (and the suite) live in the service, not here.
 */
export class PersonalData1766100000000 implements MigrationInterface {
  name = 'PersonalData1766100000000';

  async up(q: QueryRunner): Promise<void> {
    const { sqlite, exact, str } = columnsFor(q);
    if (sqlite) {
      // The ciphertexts never repeat (a random IV each): their unique constraints would check nothing.
      await q.dropUniqueConstraint('sys_user', 'uq_sys_user_mobile');
      await q.dropUniqueConstraint('sys_user', 'uq_sys_user_email');
      await q.addColumns('sys_user', [
        new TableColumn(exact('mobile_hash', 64, true)),
        new TableColumn(exact('email_hash', 64, true)),
        new TableColumn(str('pii_version', 32, true)),
      ]);
    } else {
      // One statement: MariaDB copies the table once. The unique indexes go (a 1024-character column is beyond
      // an index key, and ciphertexts never repeat); uniqueness stays with sys_user_identifier.
      await q.query(
        'ALTER TABLE sys_user DROP INDEX uq_sys_user_mobile, DROP INDEX uq_sys_user_email,' +
          ' MODIFY mobile VARCHAR(255) NULL, MODIFY email VARCHAR(1024) NULL,' +
          ' ADD mobile_hash VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,' +
          ' ADD email_hash VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,' +
          ' ADD pii_version VARCHAR(32) NULL',
      );
    }
    await q.createIndex('sys_user', new TableIndex({ name: 'idx_sys_user_mobile_hash', columnNames: ['mobile_hash'] }));
    await q.createIndex('sys_user', new TableIndex({ name: 'idx_sys_user_email_hash', columnNames: ['email_hash'] }));
    await q.createIndex('sys_user', new TableIndex({ name: 'idx_sys_user_pii_version', columnNames: ['pii_version'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('sys_user', 'idx_sys_user_pii_version');
    await q.dropIndex('sys_user', 'idx_sys_user_email_hash');
    await q.dropIndex('sys_user', 'idx_sys_user_mobile_hash');
    await q.dropColumns('sys_user', ['pii_version', 'email_hash', 'mobile_hash']);
  }
}
