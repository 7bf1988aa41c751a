import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { RequirePermissions } from '../common/auth-context';
import { SessionAuthenticator } from '../session/session-authenticator';
import { INTROSPECTION_RESPONSE, IntrospectionDto, IntrospectTokenDto } from './dto/introspect.dto';
import { INTROSPECT_CODE } from './introspection-fast-lane';
import { introspection } from './token-introspection';

/**
 * For a gateway in front of other services: the state of a user's token, by the very checks a
 * request with it meets (SessionAuthenticator), renewal included. The caller authenticates as on any
 * route; its own refusals stay errors, the token's are `active: false` answers. A read: not audited.
 * A gateway's API key with a plain body is answered before this route (introspection-fast-lane.ts).
 */
@ApiTags('tokens')
@ApiSecurity('Admin-Token')
@Controller('sys/token')
export class TokenIntrospectionController {
  constructor(private readonly authenticator: SessionAuthenticator) {}

  @Post('introspect')
  @HttpCode(200)
  @RequirePermissions(INTROSPECT_CODE)
  @ApiDoc("The state of a user's token, as a request with it would find it", {
    data: IntrospectionDto,
    description:
      'Runs the checks of a request with that token (expiry, kick-out answered once, bindIp when `ip` is given) ' +
      'and renews it when due. An inactive token is `OK` with `{ active: false, reason }`.',
  })
  @RouteSchema({ response: INTROSPECTION_RESPONSE })
  introspect(@Body() dto: IntrospectTokenDto): Promise<IntrospectionDto> {
    return introspection(this.authenticator, dto.token, dto.ip);
  }
}
