import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Audited } from '../audit/audited.decorator';
import { CurrentAuth, RequirePermissions } from '../auth/auth.decorators';
import { RsaKeyService } from '../auth/crypto/rsa-key.service';
import type { AuthContext } from '../auth/session/session.types';
import { SessionService } from '../auth/session/session.service';
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
    private readonly sessions: SessionService,
  ) {}

  /** Contract §11: the roles given must lie within the codes of the caller's session. */
  @Post('create') @HttpCode(200) @RequirePermissions('sys:user:create')
  @ApiEnvelope(CreatedUserDto)
  @Audited('user.create')
  async create(@Body() dto: CreateUserDto, @CurrentAuth() auth: AuthContext) {
    return this.accounts.create({
      ...dto,
      password: dto.password === undefined ? undefined : this.rsa.decrypt('password', dto.password),
    }, await this.sessions.permissions(auth.tokenHash));
  }

  @Post('list') @HttpCode(200) @RequirePermissions('sys:user:list')

  @ApiEnvelope(UserRowDto, 'page')
  list(@Body() dto: ListUsersDto) {
    return this.accounts.list(dto);
  }

  @Post('lock') @HttpCode(200) @RequirePermissions('sys:user:lock')
  @Audited('user.lock')
  async lock(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext) {
    await this.accounts.lock(dto.id, auth.session.userId);
  }

  @Post('unlock') @HttpCode(200) @RequirePermissions('sys:user:unlock')
  @Audited('user.unlock')
  async unlock(@Body() dto: UserIdDto) {
    await this.accounts.unlock(dto.id);
  }

  @Post('disable') @HttpCode(200) @RequirePermissions('sys:user:disable')
  @Audited('user.disable')
  async disable(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext) {
    await this.accounts.disable(dto.id, auth.session.userId);
  }

  @Post('enable') @HttpCode(200) @RequirePermissions('sys:user:enable')
  @Audited('user.enable')
  async enable(@Body() dto: UserIdDto) {
    await this.accounts.enable(dto.id);
  }

  @Post('resetPass') @HttpCode(200) @RequirePermissions('sys:user:resetPass')

  @ApiEnvelope(ResetPasswordResultDto, 'object', 'data is null unless the service generated the password')
  @Audited('user.resetPass')
  async resetPass(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext) {
    return this.accounts.resetPassword(dto.id, auth.session.userId, await this.sessions.permissions(auth.tokenHash));
  }
}
