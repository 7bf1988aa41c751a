/** DATETIME(3) everywhere: the failure window and the log order need milliseconds (STACK.md). */
export const DATETIME = { type: 'datetime' as const, precision: 3 };
