import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentAuth, RequirePermissions } from '../common/auth-context';
import { RsaKeyService } from '../crypto/rsa-key.service';
import type { Actor, AuthContext } from '../common/auth-context';
import { ApiEnvelope } from '../common/api-envelope';
import { CreatedUserDto, CreateUserDto, ListUsersDto, ResetPasswordResultDto, UserIdDto, UserRowDto } from './dto/user.dto';
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

  @Post('lock') @HttpCode(200) @RequirePermissions('sys:user:lock')
  async lock(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.lock(dto.id, actor);
  }

  @Post('unlock') @HttpCode(200) @RequirePermissions('sys:user:unlock')
  async unlock(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.unlock(dto.id, actor);
  }

  @Post('disable') @HttpCode(200) @RequirePermissions('sys:user:disable')
  async disable(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.disable(dto.id, actor);
  }

  @Post('enable') @HttpCode(200) @RequirePermissions('sys:user:enable')
  async enable(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.enable(dto.id, actor);
  }

  @Post('resetPass') @HttpCode(200) @RequirePermissions('sys:user:resetPass')
  @ApiEnvelope(ResetPasswordResultDto, 'object', 'data is null unless the service generated the password')
  async resetPass(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    return this.accounts.resetPassword(dto.id, actor, auth.permissions);
  }
}
