import { Injectable } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { ALL_PERMISSIONS } from './grants';
import { unlockDue } from './lock-policy';
import { RoleRepository } from './role.repository';
import { UserRepository } from './user.repository';

/**
 * What a change takes away from the holders of `*`: users (lock, disable, delete, their roles
 * changed) or a role's `*` (role save).
 */
export type SuperAdminLoss = { userId: string } | { userIds: string[] } | { roleCode: string };

/**
 * Self-protection. An administrator cannot lock, disable or reset their own account
 * through the admin operations, and no admin operation may leave the service without an enabled,
 * unlocked account holding `*`: otherwise one click in the console shuts every administrator out
 * and only the server-side recovery command can undo it. Locks reached by wrong passwords are
 * not admin operations and are never refused here.
 */
@Injectable()
export class SelfProtection {
  constructor(
    private readonly users: UserRepository,
    // The role rows themselves, not RoleService: RoleService asks this guard before a save.
    private readonly roles: RoleRepository,
    private readonly mutex: KeyedMutex,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  assertNotSelf(actorId: string, targetId: string): void {
    if (actorId === targetId) {
      // Fixes FORBIDDEN's message (没有权限); the console does not offer these actions on one's own row.
      throw new AppException(ErrorCode.FORBIDDEN);
    }
  }

  /**
   * Runs `change` unless it would leave no usable holder of `*` where there was one: a lock or
   * disable of the last one, or a role save taking `*` from the only roles that give it to usable
   * accounts. Check and change run under one store-wide mutex, so that two administrators
   * disabling each other (or a disable and a role save) at the same moment cannot both succeed.
   */
  keepingSuperAdmin<T>(loss: SuperAdminLoss, change: () => Promise<T>): Promise<T> {
    // Three mode has no `*` to keep: taking it away is how an installation switched to it is put right.
    if (this.config.ADMIN_MODE === 'three') return change();
    return this.mutex.run(Keys.superAdminGuardMutex, async () => {
      const before = await this.usableSuperAdmins();
      const lost = 'userId' in loss ? [loss.userId] : 'userIds' in loss ? loss.userIds : null;
      const after = lost
        ? before.filter((id) => !lost.includes(id))
        : await this.usableSuperAdmins((loss as { roleCode: string }).roleCode);
      if (before.length && !after.length) {
        throw new AppException(ErrorCode.FORBIDDEN);
      }
      return change();
    });
  }

  /**
   * Ids of the enabled, unlocked users holding `*` (a lock whose unlock time has passed counts as
   * over, as at login), leaving out the role `withoutRole` when given.
   */
  async usableSuperAdmins(withoutRole?: string): Promise<string[]> {
    const codes = (await this.roles.all())
      .filter((r) => r.permissions.includes(ALL_PERMISSIONS) && r.code !== withoutRole)
      .map((r) => r.code);
    if (!codes.length) return [];
    const holders = await this.users.holdingRoles(codes);
    const now = this.clock.now();
    const usable = holders.filter(
      (u) => !u.disabled && (!u.locked || unlockDue({ locked: true, unlockTime: u.unlockTime }, now)),
    );
    return [...new Set(usable.map((u) => u.id))];
  }
}
