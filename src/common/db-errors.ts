/** A primary-key or unique-key clash, on MySQL/MariaDB and SQLite alike. */
type DriverError = { code?: unknown; driverError?: { code?: unknown } } | null | undefined;

export function isUniqueViolation(err: unknown): boolean {
  const e = err as DriverError;
  const code = e?.code ?? e?.driverError?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** MySQL/MariaDB rolled the transaction back to break a lock cycle; running it again is safe. */
export function isDeadlock(err: unknown): boolean {
  const e = err as DriverError;
  return (e?.code ?? e?.driverError?.code) === 'ER_LOCK_DEADLOCK';
}
