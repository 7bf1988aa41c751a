/** A primary-key or unique-key clash, on MySQL/MariaDB and SQLite alike. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as any;
  const code = e?.code ?? e?.driverError?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
