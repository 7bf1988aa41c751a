import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ACCEPTS_STREAM_TICKET, ALLOWS_TEMP_TOKEN, IS_PUBLIC } from '../../common/auth-context';
import { SessionAuthenticator } from '../session-authenticator';

/** Spec 5.1 / 5.4: every route but the white-listed ones needs a caller (see SessionAuthenticator). */
@Injectable()
export class TokenGuard implements CanActivate {
  constructor(private readonly reflector: Reflector, private readonly authenticator: SessionAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const acceptsTicket = this.reflector.getAllAndOverride<boolean>(ACCEPTS_STREAM_TICKET, targets) === true;
    const allowsTemp = this.reflector.getAllAndOverride<boolean>(ALLOWS_TEMP_TOKEN, targets) === true;
    request.auth = await this.authenticator.authenticate(request, { acceptsTicket, allowsTemp });
    return true;
  }
}
