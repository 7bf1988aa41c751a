import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { forbidden } from '../common/app.exception';
import { Clock } from '../common/clock';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { UserRoleEntity } from './role.entity';
import { RoleService } from './role.service';
import { UserEntity } from './user.entity';

export const SUPER_PERMISSION = '*';

/**
 * Contract §12 self-protection. An administrator cannot lock, disable or reset their own account
 * through the admin operations, and no admin operation may leave the service without an enabled,
 * unlocked account holding `*`: otherwise one click in the console shuts every administrator out
 * and only the server-side recovery command can undo it. Locks reached by wrong passwords are
 * not admin operations and are never refused here.
 */
@Injectable()
export class SelfProtection {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly roles: RoleService,
    private readonly mutex: KeyedMutex,
    private readonly clock: Clock,
  ) {}

  assertNotSelf(actorId: string, targetId: string): void {
    if (actorId === targetId) {
      throw forbidden('不能锁定、禁用或重置自己的账户', 'You cannot lock, disable or reset your own account');
    }
  }

  /**
   * Runs `change`, which makes `targetId` unusable (lock, disable), unless the target is the last
   * usable holder of `*`. Check and change run under one store-wide mutex, so that two
   * administrators disabling each other at the same moment cannot both succeed.
   */
  keepingSuperAdmin<T>(targetId: string, change: () => Promise<T>): Promise<T> {
    return this.mutex.run(Keys.superAdminGuardMutex, async () => {
      const holders = await this.usableSuperAdmins();
      if (holders.length === 1 && holders[0] === targetId) {
        throw forbidden('至少需要保留一个启用且未锁定的超级管理员账户', 'At least one enabled, unlocked account holding * must remain');
      }
      return change();
    });
  }

  /** Ids of the enabled, unlocked users holding `*` (a lock whose unlock time has passed counts as over, as at login). */
  async usableSuperAdmins(): Promise<string[]> {
    const codes = (await this.roles.list()).filter((r) => r.permissions.includes(SUPER_PERMISSION)).map((r) => r.code);
    if (!codes.length) return [];
    const holders = await this.users.createQueryBuilder('u')
      .innerJoin(UserRoleEntity, 'ur', 'ur.user_id = u.id')
      .where('ur.role_code IN (:...codes)', { codes })
      .getMany();
    const now = this.clock.nowMs();
    const usable = holders.filter((u) => !u.disabled && (!u.locked || (u.unlockTime !== null && u.unlockTime.getTime() < now)));
    return [...new Set(usable.map((u) => u.id))];
  }
}
