import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { LoginResultDto, MfaLoginDto } from '../auth/dto/login.dto';
import { ApiEnvelope } from '../common/api-envelope';
import { AllowsTempToken, CurrentActor, CurrentAuth, Public, RequirePermissions } from '../common/auth-context';
import type { Actor, AuthContext } from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { NoInputDto } from '../common/validation.pipe';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { UserIdDto } from '../user-account/dto/user.dto';
import { MfaCodeDto, MfaSetupDto, RecoveryCodesDto, TotpCodeDto } from './dto/mfa.dto';
import { MfaLoginService } from './mfa-login.service';
import { MfaCaller, MfaService } from './mfa.service';

function callerOf(auth: AuthContext, request: FastifyRequest): MfaCaller {
  return { userId: auth.session.userId, tokenHash: auth.tokenHash, ip: clientIp(request), userAgent: userAgent(request) };
}

/** Contract §8: the second step of the login, the caller's own second factor, the administrator's reset. */
@ApiTags('mfa')
@Controller('sys')
export class MfaController {
  constructor(private readonly logins: MfaLoginService, private readonly mfa: MfaService) {}

  @Post('login/mfa') @HttpCode(200) @Public()
  @RateLimit('login')
  @ApiEnvelope(LoginResultDto)
  login(@Body() dto: MfaLoginDto, @Req() request: FastifyRequest) {
    return this.logins.verify({ mfaToken: dto.mfaToken, code: dto.code, ip: clientIp(request), userAgent: userAgent(request) });
  }

  @Post('me/mfa/setup') @HttpCode(200) @ApiSecurity('Admin-Token') @AllowsTempToken()
  @ApiEnvelope(MfaSetupDto)
  setup(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto) {
    return this.mfa.setup(auth.session.userId);
  }

  @Post('me/mfa/enable') @HttpCode(200) @ApiSecurity('Admin-Token') @AllowsTempToken()
  @ApiEnvelope(RecoveryCodesDto)
  enable(@CurrentAuth() auth: AuthContext, @Body() dto: TotpCodeDto, @Req() request: FastifyRequest) {
    return this.mfa.enable(callerOf(auth, request), dto.code);
  }

  @Post('me/mfa/disable') @HttpCode(200) @ApiSecurity('Admin-Token')
  async disable(@CurrentAuth() auth: AuthContext, @Body() dto: MfaCodeDto, @Req() request: FastifyRequest) {
    await this.mfa.disable(callerOf(auth, request), dto.code);
  }

  @Post('me/mfa/recoveryCodes') @HttpCode(200) @ApiSecurity('Admin-Token')
  @ApiEnvelope(RecoveryCodesDto)
  recoveryCodes(@CurrentAuth() auth: AuthContext, @Body() dto: MfaCodeDto, @Req() request: FastifyRequest) {
    return this.mfa.regenerateRecoveryCodes(callerOf(auth, request), dto.code);
  }

  @Post('user/mfa/reset') @HttpCode(200) @ApiSecurity('Admin-Token') @RequirePermissions('sys:user:mfaReset')
  async reset(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.mfa.reset(dto.id, actor);
  }
}
