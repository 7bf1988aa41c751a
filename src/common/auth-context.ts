import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { AppException } from './app.exception';
import { clientIp } from './client-info';
import { ErrorCode } from './error-code';
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
  /**
   * 1 when the login that made this session proved a second factor, or was a QR login authorised
   * by such a session (token introspection's `mfa`, docs/api.md#token-introspection).
   */
  mfa?: 0 | 1;
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

/**
 * An API key as the caller (src/api-key): a service, not a person. It has no session and no user,
 * only the key's own permission codes, so it reaches only routes gated by permission codes
 * (apiKeyReaches); whatever it does is audited with the actor `apikey:<name>`.
 */
export interface ApiKeyAuth {
  apiKey: { id: string; name: string };
  permissions: readonly string[];
}

/** Whoever a request authenticated as: a session (AuthContext) or an API key. */
export type Caller = AuthContext | ApiKeyAuth;

export const isApiKey = (caller: Caller): caller is ApiKeyAuth => 'apiKey' in caller;

/** The audit actor name of an API key: never a user name, which cannot hold a colon. */
export const apiKeyActorName = (name: string) => `apikey:${name}`;

/**
 * Paths no API key reaches whatever its codes: the caller's own account and sessions (a key has
 * none), the keys themselves (a key never makes or ends keys) and the token operations, except
 * introspection, which gateways call with a key.
 */
const API_KEY_REFUSED = /^\/sys\/(me|apiKey|token)(\/|$)/;
const API_KEY_ALLOWED = new Set(['/sys/token/introspect']);

/**
 * Whether an API key may call a route at all (before its codes are compared): only a route gated
 * by permission codes (a route without codes serves a person: logout, messages, QR codes), never
 * one needing a fresh proof of a person, and none of the refused paths. `path` is the route's path.
 */
export function apiKeyReaches(path: string, permissions: readonly string[], freshProofAlways: boolean): boolean {
  if (!permissions.length || freshProofAlways) return false;
  return API_KEY_ALLOWED.has(path) || !API_KEY_REFUSED.test(path);
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: Caller;
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

export const OR_PERMISSIONS = 'auth:permissions-or';

/**
 * Codes that admit a caller to the route too, in place of @RequirePermissions' (every one of them);
 * the handler then limits what such a caller may do there (/sys/user/update: the roles alone, for
 * a holder of sys:user:grant, who in three mode cannot hold sys:user:update).
 */
export const OrPermissions = (...codes: PermissionCode[]) => SetMetadata(OR_PERMISSIONS, codes);

/** The route's codes a caller holding `held` lacks; none when it holds `*`, all of them, or all of `or`. */
export function missingCodes(
  held: readonly string[],
  permissions: readonly string[],
  or: readonly string[] = [],
): string[] {
  if (held.includes('*')) return [];
  const missing = permissions.filter((code) => !held.includes(code));
  return missing.length && or.length && or.every((code) => held.includes(code)) ? [] : missing;
}

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
 * `info` one needs a fresh proof too while the login strategy says so — introspection by a
 * session included; a gateway calls it with an API key, which has no session and needs none
 * (docs/security.md#token-introspection).
 */
export const changesWithCodes = (codes: readonly string[]): boolean =>
  codes.some((code) => !/:(list|info)$/.test(code));

/**
 * Besides Admin-Token, the route takes `?ticket=` from POST /sys/message/streamTicket
 * (for EventSource, which cannot send headers). Nowhere else is a ticket worth anything.
 */
export const AcceptsStreamTicket = () => SetMetadata(ACCEPTS_STREAM_TICKET, true);

/**
 * The session SessionGuard authenticated (set on every route that is not @Public). An API key never
 * reaches a route that reads it (apiKeyReaches); should one, it is refused rather than crash.
 */
export const authOf = (request: FastifyRequest): AuthContext => {
  const caller = request.auth!;
  if (isApiKey(caller)) throw new AppException(ErrorCode.FORBIDDEN);
  return caller;
};

/** The authenticated caller's session, as authentication attached it. */
export const CurrentAuth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext =>
  authOf(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

/** Who performs an administrative action, as its audit row records it (AuditLogService). */
export interface Actor {
  /** The user's id; for an API key, the key's id (never a user's). */
  id: string;
  /** The user name the session carries; `apikey:<name>` for an API key. */
  name: string;
  ip: string;
  /**
   * The permission codes of the caller's session: an action on another user needs every code that
   * user holds.
   */
  codes: readonly string[];
}

/** The caller of a request as the actor of what its handler does. */
export function actorOf(request: FastifyRequest): Actor {
  const caller = request.auth!;
  const ip = clientIp(request);
  if (isApiKey(caller)) {
    return { id: caller.apiKey.id, name: apiKeyActorName(caller.apiKey.name), ip, codes: caller.permissions };
  }
  return { id: caller.session.userId, name: caller.session.username, ip, codes: caller.permissions };
}

/**
 * The authenticated caller as the actor of what the handler does: the session's user (or the API
 * key, as `apikey:<name>`), its codes and the client IP.
 */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor =>
  actorOf(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

/**
 * The caller's session token hash (its tokenId), or null for an API key, which has no session: for
 * a route a key reaches that marks the caller's own session (the online list).
 */
export const CurrentTokenHash = createParamDecorator((_data: unknown, ctx: ExecutionContext): string | null => {
  const caller = ctx.switchToHttp().getRequest<FastifyRequest>().auth!;
  return isApiKey(caller) ? null : caller.tokenHash;
});
