import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';

import { AccessDenied, AppException } from '../common/app.exception';
import { type AuthContext, type Caller, missingCodes } from '../common/auth-context';
import { clientIp } from '../common/client-info';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { StrategyService } from '../strategy/strategy.service';
import type { LoginStrategy } from '../strategy/strategy.types';
import { CALLER_CREDENTIALS, CallerCredential } from './caller-credential';
import { freshUntil, SessionService } from './session.service';
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

/** What a route asks of its caller, from its decorators (SessionGuard reads them once per handler). */
export interface CallerRequirements {
  /** The route accepts a one-time `?ticket=` in place of the token (the message stream). */
  acceptsTicket?: boolean;
  /** @AllowsTempToken: a temporary token reaches the route besides TEMP_URIS. */
  allowsTemp?: boolean;
  /** @RequirePermissions: every code needed, `*` grants all. */
  permissions?: readonly string[];
  /** @OrPermissions: every one of these admits the caller too. */
  orPermissions?: readonly string[];
  /**
   * A fresh proof is needed always (@RequiresFreshProof) or while the login strategy's
   * reauthForAdmin is on (a route whose codes change something, changesWithCodes).
   */
  freshProof?: 'always' | 'reauthForAdmin';
}

/**
 * The one place a request becomes a caller (5.4, 5.3, 3.4): a live session found through
 * Admin-Token / Bearer (or, where the route accepts one, a stream ticket), not kicked out, from the
 * login IP when bindIp is on, a temporary token only on TEMP_URIS and routes marked
 * @AllowsTempToken, the route's permission codes, the fresh proof it needs — checked
 * in that order — and then the renewal of a request that passed. The login strategy is read once for all of it.
 */
@Injectable()
export class SessionAuthenticator implements OnModuleInit {
  private readonly tempUris: Set<string>;
  private credential?: CallerCredential;

  constructor(
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly tickets: StreamTicketService,
    private readonly clock: Clock,
    config: AppConfig,
    private readonly modules: ModuleRef,
  ) {
    this.tempUris = new Set(config.TEMP_URIS);
  }

  onModuleInit() {
    this.credential = CALLER_CREDENTIALS.collectOne(this.modules);
  }

  /**
   * The caller of a request: an API key when the request carries one (its own checks, see
   * src/api-key), otherwise the session of its token (authenticate).
   */
  async callerOf(request: FastifyRequest, requirements: CallerRequirements = {}): Promise<Caller> {
    return (await this.credential?.authenticate(request, requirements)) ?? this.authenticate(request, requirements);
  }

  /** The caller when the request carries a credential other than a session token (an API key), else undefined. */
  async credentialOf(request: FastifyRequest, requirements: CallerRequirements): Promise<Caller | undefined> {
    return this.credential?.authenticate(request, requirements);
  }

  async authenticate(request: FastifyRequest, requirements: CallerRequirements = {}): Promise<AuthContext> {
    const login = await this.strategy.loginStrategy();
    return this.checkToken(
      this.sessionOf(request, requirements.acceptsTicket === true, login),
      () => clientIp(request),
      login,
      (auth) => this.admit(request, auth, requirements, login),
    );
  }

  /**
   * POST /sys/token/introspect: what a request with `token` (from `ip`, when given) would meet
   * before its route's own checks, renewal included, so that a user active through a gateway stays
   * logged in. Throws NOT_LOGGED_IN, KICKED_OUT or IP_MISMATCH exactly as that request would.
   */
  async introspect(token: string, ip: string | undefined): Promise<AuthContext> {
    const login = await this.strategy.loginStrategy();
    return this.checkToken(this.sessions.resolve(token, login), ip === undefined ? undefined : () => ip, login);
  }

  /**
   * The token's own checks, the same for a request and for an introspection: a live session
   * (unknown or expired NOT_LOGGED_IN, a kick-out KICKED_OUT once), then bindIp against `ipOf`
   * (read only while bindIp is on; introspection without an ip skips it), then `admit` (a request's
   * route checks), then the renewal of a token that passed them all.
   */
  private async checkToken(
    found: Promise<AuthContext>,
    ipOf: (() => string) | undefined,
    login: LoginStrategy,
    admit?: (auth: AuthContext) => void,
  ): Promise<AuthContext> {
    const auth = await found;
    if (login.bindIp && ipOf !== undefined && auth.session.ip !== ipOf()) {
      throw new AppException(ErrorCode.IP_MISMATCH);
    }
    admit?.(auth);
    auth.session = await this.sessions.renewIfDue(auth.tokenHash, auth.session, login);
    return auth;
  }

  /** A route's own checks of a caller: the temporary token's scope, the permission codes, the fresh proof. */
  private admit(
    request: FastifyRequest,
    auth: AuthContext,
    { allowsTemp = false, permissions = [], orPermissions, freshProof }: CallerRequirements,
    login: LoginStrategy,
  ): void {
    const { session } = auth;
    if (session.temp === 1 && !allowsTemp && !this.tempUris.has(pathOf(request))) {
      throw new AppException(ErrorCode.TEMP_TOKEN_FORBIDDEN);
    }
    const missing = permissions.length ? missingCodes(auth.permissions, permissions, orPermissions) : [];
    if (missing.length) {
      // Attached although refused: the refusal of a logged-in caller is audited (access.denied).
      request.auth = auth;
      throw new AccessDenied(missing);
    }
    if (
      (freshProof === 'always' || (freshProof === 'reauthForAdmin' && login.reauthForAdmin)) &&
      freshUntil(session, login) <= this.clock.nowMs()
    ) {
      throw new AppException(ErrorCode.REAUTH_REQUIRED);
    }
  }

  /** A `?ticket=` is spent here, whatever follows; the session that asked for it must still be live. */
  private async sessionOf(request: FastifyRequest, acceptsTicket: boolean, login: LoginStrategy): Promise<AuthContext> {
    const ticket = acceptsTicket ? ((request.query ?? {}) as Record<string, unknown>).ticket : undefined;
    if (ticket !== undefined) {
      const tokenHash = typeof ticket === 'string' ? await this.tickets.redeem(ticket) : null;
      if (!tokenHash) throw new AppException(ErrorCode.NOT_LOGGED_IN);
      return this.sessions.resolveHash(tokenHash, login);
    }
    const token = tokenOf(request);
    if (!token || token.length > 256) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    return this.sessions.resolve(token, login);
  }
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0].replace(/\/+$/, '') || '/';
}
