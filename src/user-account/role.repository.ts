import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';

import { PreparedSelect } from '../common/prepared-select';
import { RoleEntity, UserRoleEntity } from './role.entity';
import { UserEntity } from './user.entity';

/** `sys_role` and `sys_user_role`: the only place that queries them. */
@Injectable()
export class RoleRepository {
  /** Read by every login; its SQL written once. */
  private readonly rolesOf: PreparedSelect<RoleEntity>;

  constructor(
    @InjectRepository(RoleEntity) private readonly roles: Repository<RoleEntity>,
    @InjectRepository(UserRoleEntity) private readonly userRoles: Repository<UserRoleEntity>,
  ) {
    this.rolesOf = new PreparedSelect(
      roles
        .createQueryBuilder('r')
        .innerJoin(UserRoleEntity, 'ur', 'ur.role_code = r.code')
        .where('ur.user_id = :userId'),
    );
  }

  /** Writes `role` unless a role with its code exists; never fails on that (instances may start together). */
  async insertIfAbsent(role: RoleEntity): Promise<void> {
    await this.roles.createQueryBuilder().insert().values(role).orIgnore().execute();
  }

  /** Every role, by code. */
  all(): Promise<RoleEntity[]> {
    return this.roles.find({ order: { code: 'ASC' } });
  }

  /** The roles whose code equals `code` ignoring case (the role itself and its case variants). */
  byCodeIgnoringCase(code: string): Promise<RoleEntity[]> {
    return this.roles.createQueryBuilder('r').where('LOWER(r.code) = :code', { code: code.toLowerCase() }).getMany();
  }

  /** The roles among `codes` that exist. */
  byCodes(codes: string[]): Promise<RoleEntity[]> {
    return this.roles.find({ where: { code: In(codes) } });
  }

  /** Creates or overwrites the role of `role.code`; a clash of keys comes out as the driver's unique violation. */
  save(role: RoleEntity): Promise<RoleEntity> {
    return this.roles.save(role);
  }

  /** Ids of the users (not deleted) holding the role `code`. */
  async memberIds(code: string): Promise<string[]> {
    return (await this.members([code])).map((m) => m.userId);
  }

  /** The holders (not deleted: a deleted user holds nothing) of the roles `codes`, by user name. */
  members(codes: string[]): Promise<{ roleCode: string; userId: string; username: string }[]> {
    if (!codes.length) return Promise.resolve([]);
    return this.userRoles
      .createQueryBuilder('ur')
      .innerJoin(UserEntity, 'u', 'u.id = ur.user_id AND u.delete_time IS NULL')
      .select('ur.role_code', 'roleCode')
      .addSelect('ur.user_id', 'userId')
      .addSelect('u.username', 'username')
      .where('ur.role_code IN (:...codes)', { codes })
      .orderBy('u.username', 'ASC')
      .getRawMany();
  }

  /**
   * /sys/role/delete: the role and its links (those of deleted users, who keep theirs
   * otherwise) in one transaction.
   */
  async delete(code: string): Promise<void> {
    await this.roles.manager.transaction(async (tx) => {
      await tx.delete(UserRoleEntity, { roleCode: code });
      await tx.delete(RoleEntity, { code });
    });
  }

  /** The roles the user holds, in one statement (every login reads them). */
  heldBy(userId: string): Promise<RoleEntity[]> {
    return this.rolesOf.many({ userId });
  }

  /** The role links of the users `userIds`. */
  assignmentsOf(userIds: string[]): Promise<UserRoleEntity[]> {
    return this.userRoles.find({ where: { userId: In(userIds) } });
  }
}
