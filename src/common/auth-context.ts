import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { clientIp } from './client-info';
import type { PermissionCode } from './permissions';

/**
 * The authenticated caller, as every feature sees it: the stored session (AUTH_TOKEN) and the route
 * metadata the session kernel (src/session) enforces. Declarations only, so that a feature's
 * controller needs nothing from the kernel but these names.
 */

/** The session stored at AUTH_TOKEN:{sha256hex(token)} (temp / kickout). */
export interface Session {
  userId: string;
  temp: 0 | 1;
  kickout: 0 | 1;
  ip: string;
  /** epoch ms */
  loginTime: number;
  /**
   * epoch ms of the password login that started this session's chain of QR logins:
   * the absolute end of sessionMaxHours counts from it. Absent for a password login, whose chain
   * starts at its own loginTime.
   */
  originTime?: number;
  /** epoch ms */
  expireAt: number;
  /** Not one of the session's required fields; kept for the online-session list. */
  browser?: string | null;
  os?: string | null;
  renewedAt?: number | null;
  /**
   * The user name, so that an action's audit row names its actor without reading the account;
   * written at login and again when an administrator renames the user (/sys/user/update).
   */
  username: string;
  /**
   * The account's contact fields at login, so that /sys/me/info needs no SQL. Whatever
   * changes them must write them into the user's live sessions too (as a role change does with
   * AUTH_PERMS).
   */
  profile: SessionProfile;
  /**
   * When the user last proved who they are to this session (epoch ms): a password login
   * (at its second step, where there is one) or /sys/me/reauth; null or absent when never (a QR login).
   */
  provenAt?: number | null;
  /** 1 on the temporary token mfaMode 2 issues for enrolment after a password login. */
  mfaSetup?: 0 | 1;
}

export interface SessionProfile {
  name: string;
  mobile: string | null;
  email: string | null;
  /** TOTP enabled; written at issue time and into live sessions on enable, disable and reset. */
  mfaEnabled?: boolean;
}

/** What authentication attaches to a request: the session, its id (the token's SHA-256) and its permission codes. */
export interface AuthContext {
  tokenHash: string;
  session: Session;
  /** AUTH_PERMS of the session, read with it in one round trip. */
  permissions: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

export const IS_PUBLIC = 'auth:public';
export const PERMISSIONS = 'auth:permissions';
export const ACCEPTS_STREAM_TICKET = 'auth:stream-ticket';
export const ALLOWS_TEMP_TOKEN = 'auth:temp-token';
export const REQUIRES_FRESH_PROOF = 'auth:fresh-proof';
/** Set by @RateLimit (src/rate-limit); here so that the API docs (common/api-docs.ts) can read it. */
export const RATE_LIMITED_ROUTE = 'rate-limit:route';

/** White-listed: no token needed. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Permission codes the caller's roles must grant; `*` grants all. Only codes of the registry (permissions.ts). */
export const RequirePermissions = (...codes: PermissionCode[]) => SetMetadata(PERMISSIONS, codes);

/**
 * A temporary token reaches the route besides TEMP_URIS (enrolling the second factor
 * with the token mfaMode 2 hands out), without the operator editing TEMP_URIS.
 */
export const AllowsTempToken = () => SetMetadata(ALLOWS_TEMP_TOKEN, true);

/**
 * The route needs a fresh proof (a recent password login or /sys/me/reauth), so that a
 * stolen token cannot change how the owner proves who they are; REAUTH_REQUIRED otherwise.
 */
export const RequiresFreshProof = () => SetMetadata(REQUIRES_FRESH_PROOF, true);

/**
 * reauthForAdmin: a route whose permission codes include one that is not a `list` /
 * `info` one changes something, and then needs a fresh proof too while the login strategy says so.
 */
export const changesWithCodes = (codes: readonly string[]): boolean =>
  codes.some((code) => !/:(list|info)$/.test(code));

/**
 * Besides Admin-Token, the route takes `?ticket=` from POST /sys/message/streamTicket
 * (for EventSource, which cannot send headers). Nowhere else is a ticket worth anything.
 */
export const AcceptsStreamTicket = () => SetMetadata(ACCEPTS_STREAM_TICKET, true);

/** The caller SessionGuard authenticated (set on every route that is not @Public). */
export const authOf = (request: FastifyRequest): AuthContext => request.auth!;

/** The authenticated caller's session, as authentication attached it. */
export const CurrentAuth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext =>
  authOf(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

/** Who performs an administrative action, as its audit row records it (AuditLogService). */
export interface Actor {
  id: string;
  /** The user name the session carries. */
  name: string;
  ip: string;
  /**
   * The permission codes of the caller's session: an action on another user needs every code that
   * user holds.
   */
  codes: readonly string[];
}

/** The authenticated caller as the actor of what the handler does: the session's user and the client IP. */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const { session, permissions } = request.auth!;
  return { id: session.userId, name: session.username, ip: clientIp(request), codes: permissions };
});
