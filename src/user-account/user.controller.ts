import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentAuth, RequirePermissions } from '../common/auth-context';
import { RsaKeyService } from '../crypto/rsa-key.service';
import type { Actor, AuthContext } from '../common/auth-context';
import { CreatedUserDto, CreateUserDto, ListUsersDto, ResetPasswordResultDto, UserIdDto, UserRowDto } from './dto/user.dto';
import { UserAccountService } from './user-account.service';
import { ApiDoc } from '../common/api-docs';
import { ErrorCode } from '../common/error-code';

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
  @ApiDoc("Create a user (roles only within the caller's codes)", { data: CreatedUserDto, errors: [ErrorCode.PASSWORD_TOO_SHORT, ErrorCode.PASSWORD_TOO_LONG, ErrorCode.PASSWORD_NEEDS_DIGIT, ErrorCode.PASSWORD_NEEDS_UPPER, ErrorCode.PASSWORD_NEEDS_LOWER, ErrorCode.PASSWORD_NEEDS_SYMBOL] })
  async create(@Body() dto: CreateUserDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    return this.accounts.create({
      ...dto,
      password: dto.password === undefined ? undefined : this.rsa.decrypt('password', dto.password),
    }, auth.permissions, actor);
  }

  @Post('list') @HttpCode(200) @RequirePermissions('sys:user:list')
  @ApiDoc('List users (without any hash)', { data: UserRowDto, shape: 'page' })
  list(@Body() dto: ListUsersDto) {
    return this.accounts.list(dto);
  }

  @Post('lock') @HttpCode(200) @RequirePermissions('sys:user:lock')
  @ApiDoc("Lock a user and end the user's sessions", { data: null, errors: [ErrorCode.NOT_FOUND] })
  async lock(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.lock(dto.id, actor);
  }

  @Post('unlock') @HttpCode(200) @RequirePermissions('sys:user:unlock')
  @ApiDoc('Unlock a user', { data: null, errors: [ErrorCode.NOT_FOUND] })
  async unlock(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.unlock(dto.id, actor);
  }

  @Post('disable') @HttpCode(200) @RequirePermissions('sys:user:disable')
  @ApiDoc("Disable a user and end the user's sessions", { data: null, errors: [ErrorCode.NOT_FOUND] })
  async disable(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.disable(dto.id, actor);
  }

  @Post('enable') @HttpCode(200) @RequirePermissions('sys:user:enable')
  @ApiDoc('Enable a user', { data: null, errors: [ErrorCode.NOT_FOUND] })
  async enable(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.enable(dto.id, actor);
  }

  @Post('resetPass') @HttpCode(200) @RequirePermissions('sys:user:resetPass')
  @ApiDoc("Reset a user's password (generated and answered once when DEFAULT_PASSWORD is unset)", { data: ResetPasswordResultDto, errors: [ErrorCode.NOT_FOUND] })
  async resetPass(@Body() dto: UserIdDto, @CurrentAuth() auth: AuthContext, @CurrentActor() actor: Actor) {
    return this.accounts.resetPassword(dto.id, actor, auth.permissions);
  }
}
