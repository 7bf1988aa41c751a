import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../common/app.exception';
import type { AuthContext } from '../common/auth-context';
import { clientIp } from '../common/client-info';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { StrategyService } from '../strategy/strategy.service';
import { SessionService } from './session.service';
import { StreamTicketService } from './stream-ticket.service';

/** Reads the token from Admin-Token (or Authorization: Bearer). */
export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['admin-token'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct?.trim()) return direct.trim();
  const auth = request.headers.authorization;
  const match = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return match?.[1];
}

/**
 * The one place a request becomes a caller (spec 5.1, 5.4, 3.4): a live session found through
 * Admin-Token / Bearer (or, where the route accepts one, a stream ticket), not kicked out, from the
 * login IP when bindIp is on, and a temporary token only on TEMP_URIS and routes marked
 * @AllowsTempToken — checked in that order.
 */
@Injectable()
export class SessionAuthenticator {
  private readonly tempUris: Set<string>;

  constructor(
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly tickets: StreamTicketService,
    config: AppConfig,
  ) {
    this.tempUris = new Set(config.TEMP_URIS);
  }

  async authenticate(request: FastifyRequest, { acceptsTicket = false, allowsTemp = false } = {}): Promise<AuthContext> {
    const auth = await this.sessionOf(request, acceptsTicket);
    const { session } = auth;
    if ((await this.strategy.loginStrategy()).bindIp && session.ip !== clientIp(request)) {
      throw new AppException(ErrorCode.IP_MISMATCH);
    }
    if (session.temp === 1 && !allowsTemp && !this.tempUris.has(pathOf(request))) {
      throw new AppException(ErrorCode.TEMP_TOKEN_FORBIDDEN);
    }
    return auth;
  }

  /** A `?ticket=` is spent here, whatever follows; the session that asked for it must still be live. */
  private async sessionOf(request: FastifyRequest, acceptsTicket: boolean): Promise<AuthContext> {
    const ticket = acceptsTicket ? ((request.query ?? {}) as Record<string, unknown>).ticket : undefined;
    if (ticket !== undefined) {
      const tokenHash = typeof ticket === 'string' ? await this.tickets.redeem(ticket) : null;
      if (!tokenHash) throw new AppException(ErrorCode.NOT_LOGGED_IN);
      return this.sessions.resolveHash(tokenHash);
    }
    const token = tokenOf(request);
    if (!token || token.length > 256) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    return this.sessions.resolve(token);
  }
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0].replace(/\/+$/, '') || '/';
}
