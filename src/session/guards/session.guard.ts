import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';

import {
  ACCEPTS_STREAM_TICKET,
  ALLOWS_TEMP_TOKEN,
  changesWithCodes,
  IS_PUBLIC,
  OR_PERMISSIONS,
  PERMISSIONS,
  REQUIRES_FRESH_PROOF,
} from '../../common/auth-context';
import { CallerRequirements, SessionAuthenticator } from '../session-authenticator';

/** What a route asks of its caller, from its decorators; read once per handler. */
interface RouteAccess extends CallerRequirements {
  public: boolean;
}

/**
 * Every route but the white-listed ones needs a caller (SessionAuthenticator: an API key, or a token, kick-out,
 * bindIp, temporary scope, the @RequirePermissions codes against the token's permission cache, then
 * the renewal below half the validity). One guard and plain awaits: each request pays for one guard call and
 * no rxjs chain.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  private readonly routes = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: SessionAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.accessOf(context);
    if (access.public) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.auth = await this.authenticator.callerOf(request, access);
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    let access = this.routes.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      const permissions = this.reflector.getAllAndOverride<string[]>(PERMISSIONS, targets) ?? [];
      access = {
        public: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
        acceptsTicket: this.reflector.getAllAndOverride<boolean>(ACCEPTS_STREAM_TICKET, targets) === true,
        allowsTemp: this.reflector.getAllAndOverride<boolean>(ALLOWS_TEMP_TOKEN, targets) === true,
        permissions,
        orPermissions: this.reflector.getAllAndOverride<string[]>(OR_PERMISSIONS, targets),
        freshProof:
          this.reflector.getAllAndOverride<boolean>(REQUIRES_FRESH_PROOF, targets) === true
            ? 'always'
            : changesWithCodes(permissions)
              ? 'reauthForAdmin'
              : undefined,
      };
      this.routes.set(handler, access);
    }
    return access;
  }
}
