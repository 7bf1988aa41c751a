import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import type { Actor } from '../common/auth-context';
import { CurrentActor, RequirePermissions } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { RoleCodeDto, RoleDto, SaveRoleDto } from './dto/user.dto';
import { RoleService } from './role.service';

@ApiTags('roles')
@ApiSecurity('Admin-Token')
@Controller('sys/role')
export class RoleController {
  constructor(private readonly roles: RoleService) {}

  /** Within the caller's codes (a session's, or an API key's). */
  @Post('save')
  @HttpCode(200)
  @RequirePermissions('sys:role:save')
  @ApiDoc('Create or update a role by code (only codes the caller holds)', { data: RoleDto })
  async save(@Body() dto: SaveRoleDto, @CurrentActor() actor: Actor) {
    return this.roles.save(dto, [...actor.codes], actor);
  }

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:role:list')
  @ApiDoc('List roles with their permission codes', { data: RoleDto, shape: 'array' })
  list(@Body() _body: NoInputDto) {
    return this.roles.list();
  }

  /** Not `admin`, not while a user holds it; within the caller's codes. */
  @Post('delete')
  @HttpCode(200)
  @RequirePermissions('sys:role:delete')
  @ApiDoc('Delete a role by code (not `admin`, not while a user holds it, only codes the caller holds)', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      'A role still held by a user, or `admin`, answers VALIDATION_FAILED (data.errors on `code`); a role with codes the caller does not hold answers FORBIDDEN.',
  })
  async delete(@Body() dto: RoleCodeDto, @CurrentActor() actor: Actor) {
    await this.roles.delete(dto.code, [...actor.codes], actor);
  }
}
