import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../../common/app.exception';
import { ACCEPTS_STREAM_TICKET, ALLOWS_TEMP_TOKEN, IS_PUBLIC, PERMISSIONS } from '../../common/auth-context';
import { ErrorCode } from '../../common/error-code';
import { SessionAuthenticator } from '../session-authenticator';
import { SessionService } from '../session.service';

/** What a route asks of its caller, from its decorators; read once per handler. */
interface RouteAccess {
  public: boolean;
  acceptsTicket: boolean;
  /** @AllowsTempToken: a temporary token reaches the route besides TEMP_URIS (contract §8). */
  allowsTemp: boolean;
  permissions: string[];
}

/**
 * Every route but the white-listed ones needs a caller, in this order: the caller (spec 5.1, 5.4:
 * token, kick-out, bindIp, temporary scope — SessionAuthenticator), the permission codes of
 * @RequirePermissions against the token's permission cache (spec 5.3; `*` grants all), then the
 * renewal of spec 3.4 for a request that passed. One guard and plain awaits: each request pays
 * for one guard call and no rxjs chain (issue 13.2).
 */
@Injectable()
export class SessionGuard implements CanActivate {
  private readonly routes = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: SessionAuthenticator,
    private readonly sessions: SessionService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.accessOf(context);
    if (access.public) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = await this.authenticator.authenticate(request, { acceptsTicket: access.acceptsTicket, allowsTemp: access.allowsTemp });
    if (access.permissions.length && !auth.permissions.includes('*')
      && !access.permissions.every((code) => auth.permissions.includes(code))) {
      throw new AppException(ErrorCode.FORBIDDEN);
    }
    auth.session = await this.sessions.renewIfDue(auth.tokenHash, auth.session);
    request.auth = auth;
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    let access = this.routes.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        public: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
        acceptsTicket: this.reflector.getAllAndOverride<boolean>(ACCEPTS_STREAM_TICKET, targets) === true,
        allowsTemp: this.reflector.getAllAndOverride<boolean>(ALLOWS_TEMP_TOKEN, targets) === true,
        permissions: this.reflector.getAllAndOverride<string[]>(PERMISSIONS, targets) ?? [],
      };
      this.routes.set(handler, access);
    }
    return access;
  }
}
