import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../../common/app.exception';
import { clientIp } from '../../common/client-info';
import { ErrorCode } from '../../common/error-code';
import { StrategyService } from '../../strategy/strategy.service';
import { IS_PUBLIC } from '../auth.decorators';
import { SessionService } from '../session/session.service';

/** Reads the token from Admin-Token (or Authorization: Bearer). */
export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['admin-token'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct?.trim()) return direct.trim();
  const auth = request.headers.authorization;
  const match = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return match?.[1];
}

/** Spec 5.1 / 3.4: a live token, not kicked out, and from the login IP when bindIp is on. */
@Injectable()
export class TokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const token = tokenOf(request);
    if (!token || token.length > 256) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    const { tokenHash, session } = await this.sessions.resolve(token);
    if ((await this.strategy.loginStrategy()).bindIp && session.ip !== clientIp(request)) {
      throw new AppException(ErrorCode.IP_MISMATCH);
    }
    request.auth = { token, tokenHash, session };
    return true;
  }
}
