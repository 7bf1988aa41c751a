import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { validationFailed } from '../common/app.exception';
import { SessionService } from '../auth/session/session.service';
import { SaveRoleDto } from './dto/user.dto';
import { RoleEntity, UserRoleEntity } from './role.entity';

export const ADMIN_ROLE = 'admin';

@Injectable()
export class RoleService implements OnApplicationBootstrap {
  constructor(
    @InjectRepository(RoleEntity) private readonly roles: Repository<RoleEntity>,
    @InjectRepository(UserRoleEntity) private readonly userRoles: Repository<UserRoleEntity>,
    private readonly sessions: SessionService,
  ) {}

  async onApplicationBootstrap() {
    // Contract §4: the built-in role admin holds `*`. orIgnore: instances may start together.
    await this.roles.createQueryBuilder().insert()
      .values({ code: ADMIN_ROLE, name: '超级管理员', permissions: ['*'] }).orIgnore().execute();
  }

  list(): Promise<RoleEntity[]> {
    return this.roles.find({ order: { code: 'ASC' } });
  }

  async save(dto: SaveRoleDto): Promise<RoleEntity> {
    if (dto.code === ADMIN_ROLE && !dto.permissions.includes('*')) {
      throw validationFailed('内置角色admin必须保留权限*', 'The built-in role admin must keep permission *');
    }
    const role = await this.roles.save({ code: dto.code, name: dto.name, permissions: [...new Set(dto.permissions)] });
    // Sessions of the role's members get the new permission codes now, not at their next login.
    const members = await this.userRoles.find({ where: { roleCode: dto.code } });
    for (const { userId } of members) {
      await this.sessions.refreshPermissions(userId, await this.permissionsOf(userId));
    }
    return role;
  }

  async assertExist(codes: string[]): Promise<void> {
    if (!codes.length) return;
    const found = await this.roles.find({ where: { code: In(codes) } });
    const missing = codes.filter((c) => !found.some((r) => r.code === c));
    if (missing.length) throw validationFailed(`参数roles不合法: 角色不存在 ${missing.join(',')}`, `Invalid roles: unknown ${missing.join(',')}`);
  }

  async permissionsOf(userId: string): Promise<string[]> {
    const links = await this.userRoles.find({ where: { userId } });
    if (!links.length) return [];
    const roles = await this.roles.find({ where: { code: In(links.map((l) => l.roleCode)) } });
    return [...new Set(roles.flatMap((r) => r.permissions))].sort();
  }

  async rolesOf(userIds: string[]): Promise<Map<string, string[]>> {
    const map = new Map<string, string[]>();
    if (!userIds.length) return map;
    for (const link of await this.userRoles.find({ where: { userId: In(userIds) } })) {
      map.set(link.userId, [...(map.get(link.userId) ?? []), link.roleCode]);
    }
    return map;
  }
}
