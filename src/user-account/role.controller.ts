import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Audited } from '../audit/audited.decorator';
import { RequirePermissions } from '../auth/auth.decorators';
import { NoInputDto } from '../common/validation.pipe';
import { SaveRoleDto } from './dto/user.dto';
import { RoleService } from './role.service';

@ApiTags('roles')
@ApiSecurity('Admin-Token')
@Controller('sys/role')
export class RoleController {
  constructor(private readonly roles: RoleService) {}

  @Post('save') @HttpCode(200) @RequirePermissions('sys:role:save')
  @Audited('role.save')
  save(@Body() dto: SaveRoleDto) {
    return this.roles.save(dto);
  }

  @Post('list') @HttpCode(200) @RequirePermissions('sys:role:list')
  list(@Body() _body: NoInputDto) {
    return this.roles.list();
  }
}
