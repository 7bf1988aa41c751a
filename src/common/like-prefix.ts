/**
 * Prefix filters as `column LIKE :value ESCAPE '!'` (the log filters match a prefix).
 *
 * A pattern with a constant prefix lets both databases read an index range instead of every row
 * (MariaDB: a range scan on the column's index; SQLite: the LIKE optimisation, which needs an index
 * with COLLATE NOCASE, see migration LogSearch1765410000000). The input's own wildcards are escaped
 * so that `a%` means the three characters, not "everything starting with a". The escape character
 * is `!`, not `\`: a backslash inside an SQL literal is itself an escape in MariaDB and not in
 * SQLite, so `ESCAPE '\'` cannot be written the same way for both; with an explicit ESCAPE, `\` is an
 * ordinary character to LIKE on both.
 */
export const LIKE_ESCAPE_CLAUSE = "ESCAPE '!'";

/** The LIKE pattern matching every value that starts with `prefix`, literally. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
