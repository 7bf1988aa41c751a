/**
 * DATETIME(3) everywhere: MySQL/MariaDB's plain DATETIME drops milliseconds, and the failure window
 * and the log order need them (two attempts within one second must keep their order).
 */
export const DATETIME = { type: 'datetime' as const, precision: 3 };
