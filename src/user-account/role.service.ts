import { Injectable, OnApplicationBootstrap } from '@nestjs/common';

import { actedBy, AuditLogService, changedFields } from '../audit/audit-log.service';
import { AccessDenied, AppException, fieldProblem, fieldsFailed, validationFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { isUniqueViolation } from '../common/db-errors';
import { ErrorCode } from '../common/error-code';
import { AdminSet } from '../common/permissions';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { AdminModeRules, SetViolation, THREE_ADMIN_ROLES, USER_GRANT } from './admin-mode';
import { SaveRoleDto } from './dto/user.dto';
import { ALL_PERMISSIONS, mayGrant } from './grants';
import { RoleEntity } from './role.entity';
import { RoleRepository } from './role.repository';
import { SelfProtection } from './self-protection';

export const ADMIN_ROLE = 'admin';

/** How many holders' user names a role of the list names (userCount counts them all). */
const MEMBERS_SHOWN = 50;

export interface RoleView extends RoleEntity {
  userCount: number;
  users: string[];
  /** The administrator sets (三员分立) the role's codes lie within; empty when none holds them all. */
  sets: AdminSet[];
  /** A role of the mode the service keeps: `admin` in single mode, the three administrators' in three. */
  builtIn: boolean;
}

@Injectable()
export class RoleService implements OnApplicationBootstrap {
  constructor(
    private readonly roles: RoleRepository,
    private readonly sessions: SessionService,
    private readonly mutex: KeyedMutex,
    private readonly protection: SelfProtection,
    private readonly audit: AuditLogService,
    private readonly mode: AdminModeRules,
  ) {}

  async onApplicationBootstrap() {
    if (!this.mode.three) {
      // The built-in role admin holds `*`. orIgnore: instances may start together.
      await this.roles.insertIfAbsent({ code: ADMIN_ROLE, name: '超级管理员', permissions: ['*'] });
      return;
    }
    // The three administrators' roles hold exactly their set's codes, also after the table gained a code.
    for (const role of THREE_ADMIN_ROLES) {
      await this.roles.insertIfAbsent(role);
      await this.mutex.run(Keys.roleSaveMutex, async () => {
        const [stored] = await this.roles.byCodes([role.code]);
        const same = [...stored.permissions].sort().join() === [...role.permissions].sort().join();
        if (!same || stored.name !== role.name) await this.write(role);
      });
    }
  }

  /** Every role with how many users hold it and (at most MEMBERS_SHOWN of) their user names; deleted users do not count. */
  async list(): Promise<RoleView[]> {
    const roles = await this.roles.all();
    const members = await this.roles.members(roles.map((r) => r.code));
    return roles.map((r) => {
      const names = members.filter((m) => m.roleCode === r.code).map((m) => m.username);
      return {
        ...r,
        userCount: names.length,
        users: names.slice(0, MEMBERS_SHOWN),
        sets: this.mode.setsOf(r.permissions),
        builtIn: this.mode.three ? this.mode.isThreeBuiltIn(r.code) : r.code === ADMIN_ROLE,
      };
    });
  }

  /**
   * /sys/role/delete: `admin` never (VALIDATION_FAILED, as a save taking its `*`), nor
   * a role a user holds (VALIDATION_FAILED naming how many: the administrator takes it from them
   * first, so nobody loses codes by surprise); an unknown code is NOT_FOUND. Only a
   * role whose codes the caller holds (FORBIDDEN), as for overwriting one. Under the role-save mutex,
   * so that no assignment or save slips in between the check and the delete. Audited as role.delete.
   */
  async delete(code: string, held: string[], actor: Actor): Promise<void> {
    if (code === ADMIN_ROLE && !this.mode.three) throw validationFailed('validation.adminRoleKept', 'code');
    this.mode.assertNotBuiltIn(code);
    await this.mutex.run(Keys.roleSaveMutex, async () => {
      const [role] = await this.roles.byCodes([code]);
      if (!role || role.code !== code) throw new AppException(ErrorCode.NOT_FOUND);
      // Three mode: the set rule, not the caller's codes (the security administrator keeps every set's roles).
      if (!this.mode.three && !mayGrant(held, role.permissions)) throw new AppException(ErrorCode.FORBIDDEN);
      const holders = await this.roles.memberIds(code);
      if (holders.length) {
        throw fieldsFailed([fieldProblem('validation.roleInUse', 'code', { code, count: holders.length })]);
      }
      await this.roles.delete(code);
      await this.audit.recordDone('role.delete', async () => ({
        ...actedBy(actor),
        targetId: role.code,
        targetName: role.name,
        detail: { permissions: role.permissions },
      }));
    });
  }

  /** Every role and user breaking three mode's set rule (AdminModeRules.violations). */
  async setViolations(): Promise<SetViolation[]> {
    const roles = await this.roles.all();
    return this.mode.violations(roles, await this.roles.members(roles.map((r) => r.code)));
  }

  /** The permission codes the roles `codes` give together. */
  async permissionsOfRoles(codes: string[]): Promise<string[]> {
    if (!codes.length) return [];
    return [...new Set((await this.roles.byCodes(codes)).flatMap((r) => r.permissions))].sort();
  }

  /**
   * Creates or updates the role `code`. Nobody grants more than they hold: the caller (holding `held`) may only put
   * codes it holds into a role, and may only overwrite a role whose current codes it holds too:
   * otherwise a narrow administrator could rename `admin` or strip codes from a role above it.
   * A case variant of an existing code is a duplicate (VALIDATION_FAILED), as for user names.
   * Audited as role.save with the role's permission codes before (null: created) and after, read
   * and written inside the role-save mutex, so that parallel saves each record their own values.
   */
  async save(dto: SaveRoleDto, held: string[], actor: Actor): Promise<RoleEntity> {
    // Three mode replaces "within the caller's codes" by the set rule: the security administrator
    // makes the roles of every set, none mixing two (docs/security.md#three-administrators).
    const three = this.mode.three;
    this.mode.assertNotBuiltIn(dto.code);
    this.mode.assertRoleInOneSet(dto.permissions);
    if (!three && !mayGrant(held, dto.permissions)) throw new AppException(ErrorCode.FORBIDDEN);
    // One save at a time across instances: the checks below read what the write replaces, and two
    // parallel saves of one new code would otherwise both insert (a unique violation).
    return this.mutex.run(Keys.roleSaveMutex, async () => {
      const same = await this.roles.byCodeIgnoringCase(dto.code);
      const current = same.find((r) => r.code === dto.code);
      if (!three && current && !mayGrant(held, current.permissions)) throw new AppException(ErrorCode.FORBIDDEN);
      if (!current && same.length) throw this.duplicateCode(same[0].code);
      if (!three && dto.code === ADMIN_ROLE && !dto.permissions.includes(ALL_PERMISSIONS)) {
        throw validationFailed('validation.adminKeepsAll', 'permissions');
      }
      if (three && current) await this.assertMembersStayInOneSet(dto.code, dto.permissions);
      // Taking `*` from a role must not leave the service without a usable holder of it.
      const strips = !!current?.permissions.includes(ALL_PERMISSIONS) && !dto.permissions.includes(ALL_PERMISSIONS);
      const write = () => this.write(dto);
      const role = await (strips ? this.protection.keepingSuperAdmin({ roleCode: dto.code }, write) : write());
      await this.audit.recordDone('role.save', async () => ({
        ...actedBy(actor),
        targetId: role.code,
        targetName: role.name,
        // Old → new per changed field (name, permissions); a new role: every field, old null.
        detail: {
          ...changedFields(current ? { name: current.name, permissions: current.permissions } : null, {
            name: role.name,
            permissions: role.permissions,
          }),
        },
      }));
      return role;
    });
  }

  /** The save itself, under the role-save mutex: the row, then the live sessions of its members. */
  private async write(dto: SaveRoleDto): Promise<RoleEntity> {
    let role: RoleEntity;
    try {
      role = await this.roles.save({ code: dto.code, name: dto.name, permissions: [...new Set(dto.permissions)] });
    } catch (err) {
      // Written past the mutex (the first start's admin role): still a duplicate, not a 500.
      if (isUniqueViolation(err)) throw this.duplicateCode(dto.code);
      throw err;
    }
    // Sessions of the role's members get the new permission codes now, not at their next login;
    // inside the mutex, so that the codes of the last save are the ones that stay.
    for (const userId of await this.roles.memberIds(dto.code)) await this.refreshSessionsOf(userId);
    return role;
  }

  /**
   * The user's codes as the rows grant them now, written into the user's live sessions. Under the
   * user's login mutex: a login in flight may have read the codes before the change, and it stores
   * its session before it lets the mutex go, so that session is among those refreshed here.
   */
  async refreshSessionsOf(userId: string): Promise<void> {
    await this.mutex.run(Keys.loginMutex(userId), async () =>
      this.sessions.refreshPermissions(userId, await this.permissionsOf(userId)),
    );
  }

  /**
   * Whether a caller holding `held` may give (or change to) the roles `codes`. Single mode: only roles whose
   * codes the caller holds (FORBIDDEN). Three mode: the caller needs sys:user:grant (FORBIDDEN) and the
   * roles together lie within one set (VALIDATION_FAILED). Unknown roles are VALIDATION_FAILED.
   */
  async assertMayAssign(held: string[], codes: string[]): Promise<void> {
    if (this.mode.three && !mayGrant(held, [USER_GRANT])) throw new AccessDenied([USER_GRANT]);
    const roles = await this.existing(codes);
    if (this.mode.three) return this.mode.assertUserInOneSet(roles);
    if (
      !mayGrant(
        held,
        roles.flatMap((r) => r.permissions),
      )
    )
      throw new AppException(ErrorCode.FORBIDDEN);
  }

  /**
   * The roles a new user is created with (/sys/user/create, each row of /sys/user/import): as
   * assertMayAssign, but a user created without roles is given none, which in three mode needs no
   * sys:user:grant (the system administrator creates, the security administrator grants).
   */
  async assertMayCreateWith(held: string[], codes: string[]): Promise<void> {
    if (codes.length || !this.mode.three) await this.assertMayAssign(held, codes);
  }

  /**
   * Three mode: a role's new codes must not make one of its holders hold two sets through its other
   * roles (VALIDATION_FAILED on `permissions`, naming how many), so that no save makes a violation.
   */
  private async assertMembersStayInOneSet(code: string, permissions: string[]): Promise<void> {
    const members = await this.roles.memberIds(code);
    if (!members.length) return;
    const held = await this.rolesOf(members);
    const others = [...new Set([...held.values()].flat())].filter((c) => c !== code);
    const codesOf = new Map(
      (others.length ? await this.roles.byCodes(others) : []).map((r) => [r.code, r.permissions]),
    );
    const mixing = members.filter((id) => {
      const codes = (held.get(id) ?? []).filter((c) => c !== code).flatMap((c) => codesOf.get(c) ?? []);
      return !this.mode.setsOf([...codes, ...permissions]).length;
    });
    if (mixing.length) {
      throw fieldsFailed([fieldProblem('validation.membersWouldMixSets', 'permissions', { count: mixing.length })]);
    }
  }

  /** The codes among `codes` that name no role. */
  async unknownCodes(codes: string[]): Promise<string[]> {
    if (!codes.length) return [];
    const found = new Set((await this.roles.byCodes(codes)).map((r) => r.code));
    return codes.filter((c) => !found.has(c));
  }

  /** The roles named by `codes`; VALIDATION_FAILED naming `roles` when one does not exist. */
  private async existing(codes: string[]): Promise<RoleEntity[]> {
    if (!codes.length) return [];
    const found = await this.roles.byCodes(codes);
    const missing = codes.filter((c) => !found.some((r) => r.code === c));
    if (missing.length) throw validationFailed('validation.unknownRoles', 'roles', { roles: missing.join(',') });
    return found;
  }

  /** Ids of the users (not deleted) whose roles grant `code` (or `*`). */
  async holdersOf(code: string): Promise<string[]> {
    const roles = (await this.roles.all()).filter((r) => r.permissions.includes(code) || r.permissions.includes('*'));
    const members = await this.roles.members(roles.map((r) => r.code));
    return [...new Set(members.map((m) => m.userId))];
  }

  async permissionsOf(userId: string): Promise<string[]> {
    const roles = await this.roles.heldBy(userId);
    return [...new Set(roles.flatMap((r) => r.permissions))].sort();
  }

  /** The permission codes of each of `userIds` (a user without roles: none), in two reads for all of them. */
  async permissionsOfEach(userIds: string[]): Promise<Map<string, string[]>> {
    const held = await this.rolesOf(userIds);
    const codes = [...new Set([...held.values()].flat())];
    const roles = codes.length ? await this.roles.byCodes(codes) : [];
    const codesOf = new Map(roles.map((r) => [r.code, r.permissions]));
    return new Map(
      userIds.map((id) => [id, [...new Set((held.get(id) ?? []).flatMap((role) => codesOf.get(role) ?? []))]]),
    );
  }

  async rolesOf(userIds: string[]): Promise<Map<string, string[]>> {
    const map = new Map<string, string[]>();
    if (!userIds.length) return map;
    for (const link of await this.roles.assignmentsOf(userIds)) {
      map.set(link.userId, [...(map.get(link.userId) ?? []), link.roleCode]);
    }
    return map;
  }

  private duplicateCode(existing: string) {
    return fieldsFailed([fieldProblem('validation.duplicateRole', 'code', { code: existing })]);
  }
}
