import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { RequirePermissions } from '../common/auth-context';
import { ADMIN_SETS, PERMISSION_REGISTRY } from '../common/permissions';
import { localeOf } from '../common/texts';
import { NoInputDto } from '../common/validation.pipe';
import { AdminSetDto, PermissionDto } from './dto/user.dto';

@ApiTags('roles')
@ApiSecurity('Admin-Token')
@Controller('sys/permission')
export class PermissionController {
  /**
   * Every permission code the service knows, from the one registry the routes are
   * gated by (common/permissions.ts), names in the caller's language; for building roles.
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
    return PERMISSION_REGISTRY.map(({ code, module, name }) => ({ code, module, name: name[locale] }));
  }

  /**
   * The three administrators' sets of ADMIN_MODE=three (三员分立), from the one table in the
   * registry: the console tags roles and keeps a role, and a user's roles, within one set.
   */
  @Post('sets')
  @HttpCode(200)
  @RequirePermissions('sys:role:list')
  @ApiDoc("The administrator sets (三员分立): each set's built-in role, name and permission codes", {
    data: AdminSetDto,
    shape: 'array',
  })
  sets(@Body() _body: NoInputDto, @Headers('accept-language') language?: string): AdminSetDto[] {
    const locale = localeOf(language);
    return ADMIN_SETS.map((s) => ({ set: s.set, role: s.role, name: s.name[locale], codes: [...s.codes] }));
  }
}
