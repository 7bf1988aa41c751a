import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { LoginResultDto, MfaLoginDto } from '../auth/dto/login.dto';
import { ApiDoc } from '../common/api-docs';
import type { Actor, AuthContext } from '../common/auth-context';
import {
  AllowsTempToken,
  CurrentActor,
  CurrentAuth,
  Public,
  RequirePermissions,
  RequiresFreshProof,
} from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { ErrorCode } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { UserIdDto } from '../user-account/dto/user.dto';
import { MfaCodeDto, MfaSetupDto, RecoveryCodesDto, TotpCodeDto } from './dto/mfa.dto';
import { MfaCaller, MfaService } from './mfa.service';
import { MfaLoginService } from './mfa-login.service';

function callerOf(auth: AuthContext, request: FastifyRequest): MfaCaller {
  return {
    userId: auth.session.userId,
    tokenHash: auth.tokenHash,
    ip: clientIp(request),
    userAgent: userAgent(request),
  };
}

/**
 * The second step of the login, the caller's own second factor, the administrator's reset.
 * Changing one's own second factor needs a fresh proof, so a stolen token cannot
 * enrol its own authenticator or remove the owner's.
 */
@ApiTags('mfa')
@Controller('sys')
export class MfaController {
  constructor(
    private readonly logins: MfaLoginService,
    private readonly mfa: MfaService,
  ) {}

  @Post('login/mfa')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('Second login step: a TOTP or recovery code, or a passkey, for the mfaToken', {
    data: LoginResultDto,
    errors: [
      ErrorCode.ACCOUNT_LOCKED,
      ErrorCode.ACCOUNT_DISABLED,
      ErrorCode.MFA_CODE_INVALID,
      ErrorCode.MFA_TOKEN_INVALID,
      ErrorCode.ACCESS_DENIED,
    ],
  })
  login(@Body() dto: MfaLoginDto, @Req() request: FastifyRequest) {
    return this.logins.verify({
      mfaToken: dto.mfaToken,
      code: dto.code,
      answer: dto.passkey === undefined ? undefined : { method: 'passkey', value: dto.passkey },
      ip: clientIp(request),
      userAgent: userAgent(request),
    });
  }

  @Post('me/mfa/setup')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @AllowsTempToken()
  @RequiresFreshProof()
  @ApiDoc('Start TOTP enrolment: a pending secret and its otpauth URL', {
    data: MfaSetupDto,
    errors: [ErrorCode.MFA_ALREADY_ENABLED],
  })
  setup(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto) {
    return this.mfa.setup(auth.session.userId);
  }

  @Post('me/mfa/enable')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @AllowsTempToken()
  @RequiresFreshProof()
  @ApiDoc('Enable TOTP with a first code; answers the recovery codes once', {
    data: RecoveryCodesDto,
    errors: [ErrorCode.MFA_CODE_INVALID, ErrorCode.MFA_ALREADY_ENABLED],
  })
  enable(@CurrentAuth() auth: AuthContext, @Body() dto: TotpCodeDto, @Req() request: FastifyRequest) {
    return this.mfa.enable(callerOf(auth, request), dto.code);
  }

  @Post('me/mfa/disable')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @RequiresFreshProof()
  @ApiDoc("Disable the caller's own TOTP (refused while mfaMode = 2)", {
    data: null,
    errors: [ErrorCode.FORBIDDEN, ErrorCode.MFA_CODE_INVALID],
  })
  async disable(@CurrentAuth() auth: AuthContext, @Body() dto: MfaCodeDto, @Req() request: FastifyRequest) {
    await this.mfa.disable(callerOf(auth, request), dto.code);
  }

  @Post('me/mfa/recoveryCodes')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @RequiresFreshProof()
  @ApiDoc('A new set of recovery codes; the old set is void', {
    data: RecoveryCodesDto,
    errors: [ErrorCode.MFA_CODE_INVALID],
  })
  recoveryCodes(@CurrentAuth() auth: AuthContext, @Body() dto: MfaCodeDto, @Req() request: FastifyRequest) {
    return this.mfa.regenerateRecoveryCodes(callerOf(auth, request), dto.code);
  }

  @Post('user/mfa/reset')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @RequirePermissions('sys:user:mfaReset')
  @ApiDoc("Remove a user's TOTP, recovery codes and passkeys and end the user's sessions", {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description: "One's own account, or a user holding codes the caller does not, answers FORBIDDEN.",
  })
  async reset(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.mfa.reset(dto.id, actor);
  }
}
