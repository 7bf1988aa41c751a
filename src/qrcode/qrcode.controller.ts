import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { LoginResultDto } from '../auth/dto/login.dto';
import { ApiDoc } from '../common/api-docs';
import { AppException } from '../common/app.exception';
import type { AuthContext } from '../common/auth-context';
import { CurrentAuth, Public } from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { ErrorCode, localeOf } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { QrcodeGrantDto, VerifyQrcodeDto } from './dto/qrcode.dto';
import { QrcodeService } from './qrcode.service';

@ApiTags('qrcode')
@Controller('auth/qrcode')
export class QrcodeController {
  constructor(private readonly qrcodes: QrcodeService) {}

  @Post('generate')
  @HttpCode(200)
  @ApiSecurity('Admin-Token')
  @ApiDoc('Generate a QR login code for another device (valid 300 s)', {
    data: QrcodeGrantDto,
    errors: [ErrorCode.TEMP_TOKEN_FORBIDDEN],
  })
  generate(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto) {
    // A temporary token must change its password first, whatever TEMP_URIS says.
    if (auth.session.temp === 1) throw new AppException(ErrorCode.TEMP_TOKEN_FORBIDDEN);
    return this.qrcodes.generate(auth.session.userId, auth.tokenHash);
  }

  @Post('verify')
  @HttpCode(200)
  @Public()
  @RateLimit('qrcode-verify')
  @ApiDoc('Log in with a QR code', {
    data: LoginResultDto,
    errors: [
      ErrorCode.ACCOUNT_LOCKED,
      ErrorCode.ACCOUNT_DISABLED,
      ErrorCode.ACCOUNT_EXPIRED,
      ErrorCode.QRCODE_INVALID,
      ErrorCode.ACCESS_DENIED,
    ],
  })
  verify(@Body() dto: VerifyQrcodeDto, @Req() request: FastifyRequest) {
    return this.qrcodes.verify(
      dto.code,
      clientIp(request),
      userAgent(request),
      localeOf(request.headers['accept-language']),
    );
  }
}
