import { QueryRunner, TableColumnOptions } from 'typeorm';

/** Column shapes that read the same on SQLite and MySQL/MariaDB, for the migrations. */
export function columnsFor(q: QueryRunner) {
  const sqlite = q.connection.driver.options.type.includes('sqlite');
  return {
    sqlite,
    bool: (name: string): TableColumnOptions => ({
      name,
      type: sqlite ? 'boolean' : 'tinyint',
      isNullable: true,
      default: 0,
    }),
    // DATETIME(3) on MariaDB: the failure window and the log order need milliseconds.
    time: (name: string, isNullable = true): TableColumnOptions => ({
      name,
      type: 'datetime',
      precision: sqlite ? undefined : 3,
      isNullable,
    }),
    str: (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
    }),
    // Compared byte for byte on both databases: SQLite's default, utf8mb4_bin on MariaDB (whose
    // default collation would fold case and accents in its own way).
    exact: (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
      ...(sqlite ? {} : { charset: 'utf8mb4', collation: 'utf8mb4_bin' }),
    }),
  };
}
