import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { ApiDoc } from '../common/api-docs';
import type { AuthContext } from '../common/auth-context';
import { CurrentAuth, Public } from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { localeOf } from '../common/error-code';
import { ErrorCode } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { PasswordTransport } from '../crypto/password-transport';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { SessionService } from '../session/session.service';
import { CaptchaService } from './captcha/captcha.service';
import { CaptchaResultDto, LoginDto, LoginResultDto, PublicKeyDto } from './dto/login.dto';
import { LoginService } from './login/login.service';

@ApiTags('auth')
@Controller('sys')
export class LoginController {
  constructor(
    private readonly logins: LoginService,
    private readonly sessions: SessionService,
    private readonly rsa: PasswordTransport,
    private readonly captcha: CaptchaService,
  ) {}

  @Post('login')
  @HttpCode(200)
  @Public()
  @RateLimit('login')
  @ApiDoc('Log in with account and password', {
    data: LoginResultDto,
    errors: [
      ErrorCode.CAPTCHA_INVALID,
      ErrorCode.BAD_CREDENTIALS,
      ErrorCode.ACCOUNT_LOCKED,
      ErrorCode.ACCOUNT_DISABLED,
      ErrorCode.ACCOUNT_EXPIRED,
      ErrorCode.ACCESS_DENIED,
      ErrorCode.SERVICE_UNAVAILABLE,
    ],
  })
  async login(@Body() dto: LoginDto, @Req() request: FastifyRequest) {
    await this.logins.admit(dto.account, clientIp(request));
    return this.logins.login({
      account: dto.account,
      password: this.rsa.decrypt('password', dto.password),
      imgId: dto.imgId,
      imgCode: dto.imgCode,
      ip: clientIp(request),
      userAgent: userAgent(request),
      locale: localeOf(request.headers['accept-language']),
    });
  }

  @Post('logout')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @ApiDoc('Log out: end the calling session', { data: null })
  async logout(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto) {
    await this.sessions.end(auth.tokenHash, auth.session.userId, { reason: 'logout', session: auth.session });
  }

  @Post('publicKey')
  @HttpCode(200)
  @Public()
  @ApiDoc('RSA public key for the password fields', { data: PublicKeyDto })
  publicKey(@Body() _body: NoInputDto) {
    return this.rsa.publicKey();
  }

  @Post('captcha')
  @HttpCode(200)
  @Public()
  @RateLimit('captcha')
  @ApiDoc('A new captcha image (imgId and img null while the captcha is off)', { data: CaptchaResultDto })
  createCaptcha(@Body() _body: NoInputDto) {
    return this.captcha.create();
  }
}
