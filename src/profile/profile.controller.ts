import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { ApiDoc } from '../common/api-docs';
import type { AuthContext } from '../common/auth-context';
import { CurrentAuth, RequiresFreshProof } from '../common/auth-context';
import { clientIp } from '../common/client-info';
import { ErrorCode } from '../common/error-code';
import { PagingDto } from '../common/paging.dto';
import { LoginLogRowDto } from '../login-log/dto/list-login-log.dto';
import { LoginLogService } from '../login-log/login-log.service';
import { ConfirmProfileDto, ProfileDto, ProfileUpdateResultDto, UpdateProfileDto } from './dto/profile.dto';
import { ProfileService } from './profile.service';

/** The caller's own profile and login history; no permission code: every user has one. */
@ApiTags('me')
@ApiSecurity('Admin-Token')
@Controller('sys/me')
export class ProfileController {
  constructor(
    private readonly profiles: ProfileService,
    private readonly logs: LoginLogService,
  ) {}

  /** A fresh proof: a stolen token must not move the account's codes and notices to another address. */
  @Post('profile/update')
  @HttpCode(200)
  @RequiresFreshProof()
  @ApiDoc(
    "Change the caller's own name, mobile or e-mail; a new mobile or e-mail gets a code and replaces the old one at /sys/me/profile/confirm",
    {
      data: ProfileUpdateResultDto,
      errors: [ErrorCode.REAUTH_REQUIRED, ErrorCode.RATE_LIMITED],
      description:
        'The name (and a mobile or e-mail set to null) is saved at once; a new mobile or e-mail is checked for uniqueness (VALIDATION_FAILED) and sent a one-time code (one a minute, ten a day per recipient). Audited as `me.profile.update`.',
    },
  )
  update(@CurrentAuth() auth: AuthContext, @Body() dto: UpdateProfileDto, @Req() request: FastifyRequest) {
    return this.profiles.update({ userId: auth.session.userId, ip: clientIp(request) }, dto);
  }

  @Post('profile/confirm')
  @HttpCode(200)
  @ApiDoc('Confirm a new mobile (channel sms) or e-mail (channel email) with the code sent to it', {
    data: ProfileDto,
    errors: [ErrorCode.MFA_CODE_INVALID],
    description:
      'A right code replaces the old value (VALIDATION_FAILED when another user took it meanwhile); a wrong one answers MFA_CODE_INVALID, and the fifth ends the code.',
  })
  confirm(@CurrentAuth() auth: AuthContext, @Body() dto: ConfirmProfileDto, @Req() request: FastifyRequest) {
    return this.profiles.confirm({ userId: auth.session.userId, ip: clientIp(request) }, dto);
  }

  @Post('loginLog')
  @HttpCode(200)
  @ApiDoc("The caller's own login history, newest first", { data: LoginLogRowDto, shape: 'page' })
  loginLog(@CurrentAuth() auth: AuthContext, @Body() dto: PagingDto) {
    return this.logs.listOwn(auth.session.userId, dto);
  }
}
