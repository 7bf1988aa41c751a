import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { LoginResultDto } from '../auth/dto/login.dto';
import { ApiDoc } from '../common/api-docs';
import type { AuthContext } from '../common/auth-context';
import { AllowsTempToken, CurrentAuth, Public, RequiresFreshProof } from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { ErrorCode, localeOf } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import {
  PasskeyCreatedDto,
  PasskeyIdDto,
  PasskeyLoginDto,
  PasskeyLoginOptionsDto,
  PasskeyMfaOptionsDto,
  PasskeyOptionsDto,
  PasskeyRegisterDto,
  PasskeyRenameDto,
  PasskeyRowDto,
} from './dto/passkey.dto';
import { PasskeyCaller, PasskeyService } from './passkey.service';
import { PasskeyLoginService } from './passkey-login.service';
import { RelyingParty } from './relying-party';

function callerOf(auth: AuthContext, request: FastifyRequest): PasskeyCaller {
  return {
    userId: auth.session.userId,
    tokenHash: auth.tokenHash,
    ip: clientIp(request),
    userAgent: userAgent(request),
  };
}

/**
 * Passkeys: the caller's own (registering, renaming and deleting one changes how the owner proves
 * who they are, and the list shows how the owner can prove it, so each needs a fresh proof; the
 * temporary token of mfaMode 2 may register one to enrol), the passwordless login and the
 * challenge of a second step answered with a passkey.
 */
@ApiTags('passkey')
@Controller('sys')
export class PasskeyController {
  constructor(
    private readonly passkeys: PasskeyService,
    private readonly logins: PasskeyLoginService,
    private readonly rp: RelyingParty,
  ) {}

  @Post('me/passkey/register/options')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @AllowsTempToken()
  @RequiresFreshProof()
  @ApiDoc('Start registering a passkey: PublicKeyCredentialCreationOptionsJSON (challenge valid 5 minutes)', {
    data: PasskeyOptionsDto,
  })
  registerOptions(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto, @Req() request: FastifyRequest) {
    return this.passkeys.registrationOptions(callerOf(auth, request), this.rp.of(request), this.rp.name);
  }

  @Post('me/passkey/register/verify')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @AllowsTempToken()
  @RequiresFreshProof()
  @ApiDoc("Finish registering a passkey with the authenticator's answer", { data: PasskeyCreatedDto })
  register(@CurrentAuth() auth: AuthContext, @Body() dto: PasskeyRegisterDto, @Req() request: FastifyRequest) {
    return this.passkeys.register(callerOf(auth, request), dto.response, dto.name);
  }

  @Post('me/passkey/list')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @AllowsTempToken()
  @RequiresFreshProof()
  @ApiDoc("The caller's passkeys", { data: PasskeyRowDto, shape: 'array' })
  list(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto) {
    return this.passkeys.list(auth.session.userId);
  }

  @Post('me/passkey/rename')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @RequiresFreshProof()
  @ApiDoc("Rename one of the caller's passkeys", { data: null, errors: [ErrorCode.NOT_FOUND] })
  async rename(@CurrentAuth() auth: AuthContext, @Body() dto: PasskeyRenameDto, @Req() request: FastifyRequest) {
    await this.passkeys.rename(callerOf(auth, request), dto.id, dto.name);
  }

  @Post('me/passkey/delete')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @RequiresFreshProof()
  @ApiDoc("Delete one of the caller's passkeys", {
    data: null,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.FORBIDDEN],
    description: 'FORBIDDEN while mfaMode = 2 when it is the last second factor.',
  })
  async delete(@CurrentAuth() auth: AuthContext, @Body() dto: PasskeyIdDto, @Req() request: FastifyRequest) {
    await this.passkeys.delete(callerOf(auth, request), dto.id);
  }

  @Post('login/passkey/options')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('Start a passkey login: PublicKeyCredentialRequestOptionsJSON plus challengeId', {
    data: PasskeyOptionsDto,
    errors: [ErrorCode.FORBIDDEN],
    description: 'Without `account`: a discoverable (usernameless) login. FORBIDDEN while passkeyLogin is off.',
  })
  loginOptions(@Body() dto: PasskeyLoginOptionsDto, @Req() request: FastifyRequest) {
    return this.logins.options(this.rp.of(request), dto.account);
  }

  @Post('login/passkey/verify')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('Log in with a passkey: the login result (both factors proven)', {
    data: LoginResultDto,
    errors: [
      ErrorCode.BAD_CREDENTIALS,
      ErrorCode.ACCOUNT_LOCKED,
      ErrorCode.ACCOUNT_DISABLED,
      ErrorCode.ACCOUNT_EXPIRED,
      ErrorCode.ACCESS_DENIED,
      ErrorCode.FORBIDDEN,
    ],
  })
  login(@Body() dto: PasskeyLoginDto, @Req() request: FastifyRequest) {
    return this.logins.verify({
      challengeId: dto.challengeId,
      response: dto.response,
      ip: clientIp(request),
      userAgent: userAgent(request),
      locale: localeOf(request.headers['accept-language']),
    });
  }

  @Post('login/mfa/passkey/options')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('A passkey challenge for the second login step; then /sys/login/mfa { mfaToken, passkey }', {
    data: PasskeyOptionsDto,
    errors: [ErrorCode.MFA_TOKEN_INVALID],
  })
  mfaOptions(@Body() dto: PasskeyMfaOptionsDto, @Req() request: FastifyRequest) {
    return this.logins.secondStepOptions(this.rp.of(request), dto.mfaToken);
  }
}
