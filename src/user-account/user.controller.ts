import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentAuth, RequirePermissions } from '../common/auth-context';
import { RsaKeyService } from '../crypto/rsa-key.service';
import type { Actor, AuthContext } from '../common/auth-context';
import { ApiEnvelope } from '../common/api-envelope';
import { validationFailed } from '../common/app.exception';
import {
  CreatedUserDto, CreateUserDto, ListUsersDto, ResetPasswordResultDto, UpdateUserDto, UserIdDto, UserIdsDto, UserRowDto,
} from './dto/user.dto';
import { UserAccountService } from './user-account.service';

@ApiTags('users')
@ApiSecurity('Admin-Token')
@Controller('sys/user')
export class UserController {
  constructor(
    private readonly accounts: UserAccountService,
    private readonly rsa: RsaKeyService,
  ) {}

  /** Contract §11: the roles given must lie within the codes of the caller's session. */
  @Post('create') @HttpCode(200) @RequirePermissions('sys:user:create')
  @ApiEnvelope(CreatedUserDto)
  async create(@Body() dto: CreateUserDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    return this.accounts.create({
      ...dto,
      password: dto.password === undefined ? undefined : this.rsa.decrypt('password', dto.password),
    }, auth.permissions, actor);
  }

  @Post('list') @HttpCode(200) @RequirePermissions('sys:user:list')
  @ApiEnvelope(UserRowDto, 'page')
  list(@Body() dto: ListUsersDto) {
    return this.accounts.list(dto);
  }

  /** Contract §12: name, mobile, e-mail, roles (within the caller's codes, §11); live sessions follow. */
  @Post('update') @HttpCode(200) @RequirePermissions('sys:user:update')
  async update(@Body() dto: UpdateUserDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    await this.accounts.update(dto, auth.permissions, actor);
  }

  /** Contract §12: a soft delete; not oneself, not the last usable holder of `*`. */
  @Post('delete') @HttpCode(200) @RequirePermissions('sys:user:delete')
  async delete(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    await this.accounts.remove(dto.id, actor, auth.permissions);
  }

  @Post('lock') @HttpCode(200) @RequirePermissions('sys:user:lock')
  async lock(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.accounts.lockAll(idsOf(dto), actor);
  }

  @Post('unlock') @HttpCode(200) @RequirePermissions('sys:user:unlock')
  async unlock(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.accounts.unlockAll(idsOf(dto), actor);
  }

  @Post('disable') @HttpCode(200) @RequirePermissions('sys:user:disable')
  async disable(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.accounts.disableAll(idsOf(dto), actor);
  }

  @Post('enable') @HttpCode(200) @RequirePermissions('sys:user:enable')
  async enable(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.accounts.enableAll(idsOf(dto), actor);
  }

  @Post('resetPass') @HttpCode(200) @RequirePermissions('sys:user:resetPass')
  @ApiEnvelope(ResetPasswordResultDto, 'object', 'data is null unless the service generated the password')
  async resetPass(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    return this.accounts.resetPassword(dto.id, actor, auth.permissions);
  }
}

/** Contract §12: `{ id }` or `{ ids }`, not both (the DTO has checked each). */
function idsOf(dto: UserIdsDto): string[] {
  if (dto.id !== undefined && dto.ids !== undefined) throw validationFailed('validation.idOrIds', 'ids');
  return dto.ids ?? [dto.id!];
}
