import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { LoginResultDto } from '../auth/dto/login.dto';
import { ApiDoc } from '../common/api-docs';
import { Public } from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { ErrorCode, localeOf } from '../common/error-code';
import { PasswordTransport } from '../crypto/password-transport';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { ForgotPasswordDto, OtpLoginDto, OtpSendDto, OtpSendResultDto, PasswordResetDto } from './dto/otp.dto';
import { OtpLoginService } from './otp-login.service';
import { OtpSendService } from './otp-send.service';
import { PasswordResetService } from './password-reset.service';

/** One-time codes by SMS and e-mail: sending one, logging in with one, resetting a forgotten password with one. */
@ApiTags('otp')
@Controller('sys')
export class OtpController {
  constructor(
    private readonly sends: OtpSendService,
    private readonly logins: OtpLoginService,
    private readonly resets: PasswordResetService,
    private readonly rsa: PasswordTransport,
  ) {}

  @Post('otp/send')
  @HttpCode(200)
  @Public()
  @RateLimit('otp-send')
  @ApiDoc('Send a one-time code by SMS or e-mail', {
    data: OtpSendResultDto,
    errors: [ErrorCode.CAPTCHA_INVALID, ErrorCode.FORBIDDEN, ErrorCode.MFA_TOKEN_INVALID],
    description:
      'The same answer whether or not the account exists: sentTo masked, or null when nothing was sent. ' +
      'At most one send a minute and ten a day per account as typed and per recipient (RATE_LIMITED beyond). ' +
      'FORBIDDEN when otpLogin (purpose login), selfServiceReset (purpose reset) or mfaChannels (with mfaToken) does not allow it.',
  })
  send(@Body() dto: OtpSendDto) {
    if (dto.mfaToken !== undefined) return this.sends.sendForMfa({ mfaToken: dto.mfaToken, channel: dto.channel });
    return this.sends.sendForAccount({
      account: dto.account!,
      channel: dto.channel,
      purpose: dto.purpose!,
      imgId: dto.imgId,
      imgCode: dto.imgCode,
    });
  }

  @Post('login/otp')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('Log in with a one-time code sent for purpose login', {
    data: LoginResultDto,
    errors: [
      ErrorCode.FORBIDDEN,
      ErrorCode.MFA_CODE_INVALID,
      ErrorCode.ACCOUNT_LOCKED,
      ErrorCode.ACCOUNT_DISABLED,
      ErrorCode.ACCOUNT_EXPIRED,
      ErrorCode.ACCESS_DENIED,
    ],
    description: 'A wrong code, or an account nobody holds, is MFA_CODE_INVALID; wrong codes count toward the lock.',
  })
  login(@Body() dto: OtpLoginDto, @Req() request: FastifyRequest) {
    return this.logins.login({
      account: dto.account,
      code: dto.code,
      ip: clientIp(request),
      userAgent: userAgent(request),
      locale: localeOf(request.headers['accept-language']),
    });
  }

  @Post('password/forgot')
  @HttpCode(200)
  @Public()
  @RateLimit('otp-send')
  @ApiDoc('Send a code to reset a forgotten password (= /sys/otp/send with purpose reset)', {
    data: OtpSendResultDto,
    errors: [ErrorCode.CAPTCHA_INVALID, ErrorCode.FORBIDDEN],
  })
  forgot(@Body() dto: ForgotPasswordDto) {
    return this.sends.sendForAccount({ ...dto, purpose: 'reset' });
  }

  @Post('password/reset')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('Reset a forgotten password with a code sent for purpose reset', {
    data: null,
    errors: [
      ErrorCode.FORBIDDEN,
      ErrorCode.MFA_CODE_INVALID,
      ErrorCode.PASSWORD_TOO_SHORT,
      ErrorCode.PASSWORD_TOO_LONG,
      ErrorCode.PASSWORD_NEEDS_DIGIT,
      ErrorCode.PASSWORD_NEEDS_UPPER,
      ErrorCode.PASSWORD_NEEDS_LOWER,
      ErrorCode.PASSWORD_NEEDS_SYMBOL,
      ErrorCode.PASSWORD_CONTAINS_ACCOUNT,
      ErrorCode.PASSWORD_TOO_COMMON,
      ErrorCode.PASSWORD_REUSED,
    ],
    description:
      'A wrong code, a locked or disabled account, or one nobody holds, is MFA_CODE_INVALID; wrong codes count toward the lock. ' +
      'A refused new password leaves the code usable. Every session of the user ends.',
  })
  async reset(@Body() dto: PasswordResetDto, @Req() request: FastifyRequest) {
    await this.resets.reset({
      account: dto.account,
      code: dto.code,
      newPass: this.rsa.decrypt('newPass', dto.newPass),
      ip: clientIp(request),
      userAgent: userAgent(request),
    });
  }
}
