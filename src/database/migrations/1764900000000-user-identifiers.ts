import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

import { IDENTIFIER_KINDS, normaliseIdentifier } from '../../user-account/user-identifier';
import { columnsFor } from '../migration-columns';

/**
 * "login identifiers are unique across fields", compared the same way on SQLite and
 * MariaDB: the table sys_user_identifier (one row per user name, mobile and e-mail, keyed by the
 * normalised value), filled from the existing users; and, on MariaDB, the identifier and role-code
 * columns compare bytes as SQLite does (the default collation folds case and accents).
 */
export class UserIdentifiers1764900000000 implements MigrationInterface {
  name = 'UserIdentifiers1764900000000';

  async up(q: QueryRunner): Promise<void> {
    const { sqlite, exact, str } = columnsFor(q);

    if (!sqlite) {
      const bin = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';
      await q.query(`ALTER TABLE sys_user MODIFY username VARCHAR(64) ${bin} NOT NULL,
        MODIFY mobile VARCHAR(32) ${bin} NULL, MODIFY email VARCHAR(128) ${bin} NULL`);
      await q.query(`ALTER TABLE sys_role MODIFY code VARCHAR(64) ${bin} NOT NULL`);
      await q.query(`ALTER TABLE sys_user_role MODIFY role_code VARCHAR(64) ${bin} NOT NULL`);
    }

    await q.createTable(
      new Table({
        name: 'sys_user_identifier',
        // 255: lower-casing can lengthen a 128-character e-mail (İ becomes two code points).
        columns: [{ ...exact('value', 255), isPrimary: true }, str('user_id', 36), str('kind', 16)],
      }),
    );
    await q.createIndex(
      'sys_user_identifier',
      new TableIndex({ name: 'idx_user_identifier_user', columnNames: ['user_id'] }),
    );

    // Existing users, oldest first, all user names before any mobile, mobiles before e-mails: the
    // order of the login lookup (user name, mobile, e-mail), so that a login that worked before finds the same account.
    // A value another user already holds stays with that user (before this rule, SQLite allowed
    // `Admin` beside `admin`, and a user name equal to another user's mobile).
    const users: { id: string; username: string; mobile: string | null; email: string | null }[] = await q.query(
      'SELECT id, username, mobile, email FROM sys_user ORDER BY create_time, id',
    );
    const taken = new Map<string, [string, string, string]>();
    for (const kind of IDENTIFIER_KINDS) {
      for (const user of users) {
        const raw = user[kind];
        if (raw === null || raw === undefined || raw === '') continue;
        const value = normaliseIdentifier(kind, raw);
        if (!taken.has(value)) taken.set(value, [value, user.id, kind]);
      }
    }
    const rows = [...taken.values()];
    const column = q.connection.driver.escape('value');
    for (let i = 0; i < rows.length; i += 100) {
      const chunk = rows.slice(i, i + 100);
      await q.query(
        `INSERT INTO sys_user_identifier (${column}, user_id, kind) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`,
        chunk.flat(),
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sys_user_identifier', true);
  }
}
