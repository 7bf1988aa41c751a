import type { AdminSetRow, Role } from '@/api/user';

/** An administrator set of ADMIN_MODE=three (三员分立), as the service names it. */
export type AdminSet = AdminSetRow['set'];
const ALL_SETS: readonly AdminSet[] = ['system', 'security', 'audit'];

/**
 * The sets that hold every one of `codes`, from /sys/permission/sets (the service's one table; none
 * is kept here). Empty: the codes mix two sets, or one is in none.
 */
export function setsOfCodes(codes: readonly string[], sets: readonly AdminSetRow[]): AdminSet[] {
  return sets.filter((s) => codes.every((code) => s.codes.includes(code))).map((s) => s.set);
}

/** The sets that hold every role of `codes` (each role's own sets come from /sys/role/list). */
export function setsOfRoles(codes: readonly string[], roles: readonly Role[]): AdminSet[] {
  const setsOf = new Map(roles.map((r) => [r.code, r.sets]));
  return ALL_SETS.filter((set) => codes.every((code) => setsOf.get(code)?.includes(set)));
}
