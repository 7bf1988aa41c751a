import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { AppException } from '../common/app.exception';
import { RequirePermissions } from '../common/auth-context';
import { ipAddress } from '../common/client-info';
import { SessionAuthenticator } from '../session/session-authenticator';
import {
  INACTIVE_REASONS,
  InactiveReason,
  INTROSPECTION_RESPONSE,
  IntrospectionDto,
  IntrospectTokenDto,
} from './dto/introspect.dto';

const isInactiveReason = (code: string): code is InactiveReason =>
  (INACTIVE_REASONS as readonly string[]).includes(code);

/**
 * For a gateway in front of other services: the state of a user's token, by the very checks a
 * request with it meets (SessionAuthenticator), renewal included. The caller authenticates as on any
 * route; its own refusals stay errors, the token's are `active: false` answers. A read: not audited.
 */
@ApiTags('tokens')
@ApiSecurity('Admin-Token')
@Controller('sys/token')
export class TokenIntrospectionController {
  constructor(private readonly authenticator: SessionAuthenticator) {}

  @Post('introspect')
  @HttpCode(200)
  @RequirePermissions('sys:token:introspect')
  @ApiDoc("The state of a user's token, as a request with it would find it", {
    data: IntrospectionDto,
    description:
      'Runs the checks of a request with that token (expiry, kick-out answered once, bindIp when `ip` is given) ' +
      'and renews it when due. An inactive token is `OK` with `{ active: false, reason }`.',
  })
  @RouteSchema({ response: INTROSPECTION_RESPONSE })
  async introspect(@Body() dto: IntrospectTokenDto): Promise<IntrospectionDto> {
    try {
      const ip = dto.ip === undefined ? undefined : ipAddress(dto.ip)!;
      const { session, permissions } = await this.authenticator.introspect(dto.token, ip);
      return {
        active: true,
        userId: session.userId,
        username: session.username,
        permissions,
        tempUser: session.temp === 1,
        loginTime: session.loginTime,
        expireAt: session.expireAt,
        mfa: session.mfa === 1,
      };
    } catch (err) {
      if (err instanceof AppException && isInactiveReason(err.code)) return { active: false, reason: err.code };
      throw err;
    }
  }
}
