import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { RequirePermissions } from '../common/auth-context';
import { PERMISSION_REGISTRY, setsHolding } from '../common/permissions';
import { localeOf } from '../common/texts';
import { NoInputDto } from '../common/validation.pipe';
import { PermissionDto } from './dto/user.dto';

@ApiTags('roles')
@ApiSecurity('Admin-Token')
@Controller('sys/permission')
export class PermissionController {
  /**
   * Every permission code the service knows, from the one registry the routes are
   * gated by (common/permissions.ts), names in the caller's language, with the administrator sets
   * each belongs to (the console keeps a three-mode role within one); for building roles.
   */
  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:role:list')
  @ApiDoc('Every permission code the service knows, with its module and name (Accept-Language)', {
    data: PermissionDto,
    shape: 'array',
  })
  list(@Body() _body: NoInputDto, @Headers('accept-language') language?: string): PermissionDto[] {
    const locale = localeOf(language);
    return PERMISSION_REGISTRY.map(({ code, module, name }) => ({
      code,
      module,
      name: name[locale],
      sets: setsHolding([code]),
    }));
  }
}
