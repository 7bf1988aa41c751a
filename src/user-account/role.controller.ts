import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentAuth, RequirePermissions } from '../common/auth-context';
import type { Actor, AuthContext } from '../common/auth-context';
import { ApiEnvelope } from '../common/api-envelope';
import { NoInputDto } from '../common/validation.pipe';
import { RoleCodeDto, RoleDto, SaveRoleDto } from './dto/user.dto';
import { RoleService } from './role.service';

@ApiTags('roles')
@ApiSecurity('Admin-Token')
@Controller('sys/role')
export class RoleController {
  constructor(private readonly roles: RoleService) {}

  /** Contract §11: within the codes of the caller's session. */
  @Post('save') @HttpCode(200) @RequirePermissions('sys:role:save')
  async save(@Body() dto: SaveRoleDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    return this.roles.save(dto, auth.permissions, actor);
  }

  @Post('list') @HttpCode(200) @RequirePermissions('sys:role:list')
  @ApiEnvelope(RoleDto, 'array')
  list(@Body() _body: NoInputDto) {
    return this.roles.list();
  }

  /** Contract §12: not `admin`, not while a user holds it; within the caller's codes (§11). */
  @Post('delete') @HttpCode(200) @RequirePermissions('sys:role:delete')
  async delete(@Body() dto: RoleCodeDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    await this.roles.delete(dto.code, auth.permissions, actor);
  }
}
