import { Injectable } from '@nestjs/common';

import { validationFailed } from '../common/app.exception';
import { ADMIN_SETS, AdminSet, setsHolding } from '../common/permissions';
import { AppConfig } from '../config/app-config';
import type { RoleEntity } from './role.entity';

/** The code that gives or changes a user's roles; in three mode it replaces "within the caller's codes". */
export const USER_GRANT = 'sys:user:grant';

/** The built-in roles of three mode, one per set, with the set's codes (ADMIN_SETS). */
export const THREE_ADMIN_ROLES: readonly RoleEntity[] = ADMIN_SETS.map((s) => ({
  code: s.role,
  name: s.name.zh,
  permissions: [...s.codes],
}));

/** A role or user that breaks the set rule: what the start log names. */
export interface SetViolation {
  kind: 'role' | 'user';
  name: string;
  /** The roles of a user; the role itself for a role. */
  roles: string[];
}

/**
 * The rules of ADMIN_MODE=three (三员分立, docs/security.md#three-administrators), from the one
 * table of sets in the permission registry: every role's codes, and a user's roles together, within
 * one set. The services ask here; in single mode every check passes.
 */
@Injectable()
export class AdminModeRules {
  constructor(private readonly config: AppConfig) {}

  get three(): boolean {
    return this.config.ADMIN_MODE === 'three';
  }

  /** A built-in role of three mode (not `admin`, which single mode's rules keep). */
  isThreeBuiltIn(code: string): boolean {
    return this.three && THREE_ADMIN_ROLES.some((r) => r.code === code);
  }

  /** VALIDATION_FAILED on `code`: the built-in roles of three mode are neither changed nor deleted. */
  assertNotBuiltIn(code: string): void {
    if (this.isThreeBuiltIn(code)) throw validationFailed('validation.builtInRoleKept', 'code', { code });
  }

  /** A role's codes lie within one set (`*` lies in none); VALIDATION_FAILED on `permissions` otherwise. */
  assertRoleInOneSet(permissions: readonly string[]): void {
    if (this.three && !setsHolding(permissions).length)
      throw validationFailed('validation.roleMixesSets', 'permissions');
  }

  /** A user's roles together lie within one set; VALIDATION_FAILED on `roles` otherwise. */
  assertUserInOneSet(roles: readonly RoleEntity[]): void {
    if (this.three && !setsHolding(roles.flatMap((r) => r.permissions)).length) {
      throw validationFailed('validation.userRolesMixSets', 'roles');
    }
  }

  /** The sets a role (or a user, by the codes of all its roles) lies within. */
  setsOf(permissions: readonly string[]): AdminSet[] {
    return setsHolding(permissions);
  }

  /**
   * Every role whose codes, and every user whose roles, lie in no one set: on an installation
   * switched from single mode, what the start log names. `members`: the holders of the roles.
   */
  violations(roles: readonly RoleEntity[], members: readonly { roleCode: string; username: string }[]): SetViolation[] {
    const found: SetViolation[] = roles
      .filter((r) => !setsHolding(r.permissions).length)
      .map((r) => ({ kind: 'role', name: r.code, roles: [r.code] }));
    const codesOf = new Map(roles.map((r) => [r.code, r.permissions]));
    const rolesOf = new Map<string, string[]>();
    for (const m of members) rolesOf.set(m.username, [...(rolesOf.get(m.username) ?? []), m.roleCode]);
    for (const [username, held] of rolesOf) {
      if (!setsHolding(held.flatMap((code) => codesOf.get(code) ?? [])).length) {
        found.push({ kind: 'user', name: username, roles: held.sort() });
      }
    }
    return found;
  }
}
