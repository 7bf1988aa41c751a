import type { ActiveToken, LoginPolicyClient } from './client';
import { GUARD_REFUSALS, type GuardRefusal, languageOf } from './texts';

/** What the guard reads of a request: Fastify's, Express's and Node's requests all have it. */
export interface GuardRequest {
  headers: Record<string, string | string[] | undefined>;
  /** Fastify's `request.ip` and Express's `req.ip` (both follow their trust-proxy settings). */
  ip?: string;
  socket?: { remoteAddress?: string };
}

/** Fastify's reply, as far as the guard uses it. */
export interface FastifyReplyLike {
  code(statusCode: number): unknown;
  header(name: string, value: string): unknown;
  send(payload: string): unknown;
}

/** Express's (and Node's) response, as far as the guard uses it. */
export interface ServerResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/** Nest's ExecutionContext, as far as the guard uses it. */
export interface ExecutionContextLike {
  switchToHttp(): { getRequest(): unknown };
}

export interface GuardOptions {
  /**
   * The caller's IP, passed to the service (it matters where sessions are bound to the login's IP).
   * Default: `request.ip`, else the socket's address. Answer undefined to pass none.
   */
  ip?: (request: GuardRequest) => string | undefined;
  /** Called with the failure when the service could not be asked (the guard answers 503). */
  onError?: (error: unknown) => void;
}

/** The service's envelope of a refusal: what the guard answers. */
export interface RefusalEnvelope {
  success: false;
  code: GuardRefusal;
  message: string;
  data: null;
}

export type GuardDecision =
  { allowed: true; caller: ActiveToken } | { allowed: false; status: number; body: RefusalEnvelope };

const callers = new WeakMap<object, ActiveToken>();

/**
 * Who the guard let through on this request (the introspection answer: `userId`, `username`,
 * `permissions`, …), for the handler; undefined on a request no guard passed.
 */
export function callerOf(request: object): ActiveToken | undefined {
  return callers.get(request);
}

/** The caller's token, as the service reads it: `Admin-Token`, else `Authorization: Bearer`. */
export function tokenOf(headers: GuardRequest['headers']): string | undefined {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.trim();
  const adminToken = first(headers['admin-token']);
  if (adminToken) return adminToken;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(first(headers.authorization) ?? '');
  return bearer?.[1];
}

/** What one route needs: an active, non-temporary token holding one permission code. */
export class PermissionGuard {
  constructor(
    private readonly client: LoginPolicyClient,
    readonly code: string,
    private readonly options: GuardOptions = {},
  ) {}

  /** The decision for a request, for frameworks the three adapters below do not cover. */
  async decide(request: GuardRequest): Promise<GuardDecision> {
    const refuse = (code: GuardRefusal): GuardDecision => {
      const { status, [languageOf(request.headers['accept-language'])]: message } = GUARD_REFUSALS[code];
      return { allowed: false, status, body: { success: false, code, message, data: null } };
    };
    const token = tokenOf(request.headers);
    if (!token) return refuse('NOT_LOGGED_IN');
    let answer;
    try {
      answer = await this.client.introspect(token, { ip: this.ipOf(request) });
    } catch (error) {
      this.options.onError?.(error);
      return refuse('SERVICE_UNAVAILABLE');
    }
    if (!answer.active) return refuse(answer.reason in GUARD_REFUSALS ? answer.reason : 'NOT_LOGGED_IN');
    if (answer.tempUser) return refuse('TEMP_TOKEN_FORBIDDEN');
    if (!answer.permissions.includes('*') && !answer.permissions.includes(this.code)) return refuse('FORBIDDEN');
    callers.set(request, answer);
    return { allowed: true, caller: answer };
  }

  /** Fastify: `{ preHandler: guard.fastify }` on a route, or `app.addHook('preHandler', guard.fastify)`. */
  readonly fastify = async (request: GuardRequest, reply: FastifyReplyLike): Promise<unknown> => {
    const decision = await this.decide(request);
    if (decision.allowed) return undefined;
    reply.code(decision.status);
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header('cache-control', 'no-store');
    reply.send(JSON.stringify(decision.body));
    // Fastify stops the request when an async hook answers and returns the reply.
    return reply;
  };

  /** Express (or Node's http, connect): `app.use(guard.express)` or per route. */
  readonly express = (request: GuardRequest, response: ServerResponseLike, next: (error?: unknown) => void): void => {
    this.decide(request).then((decision) => {
      if (decision.allowed) return next();
      response.statusCode = decision.status;
      response.setHeader('content-type', 'application/json; charset=utf-8');
      response.setHeader('cache-control', 'no-store');
      response.end(JSON.stringify(decision.body));
    }, next);
  };

  /**
   * Nest: `@UseGuards(guard.nest)` on a controller or handler. A refusal is thrown as Nest's
   * HttpException whose response is the envelope, so Nest's exception filter answers it as is.
   */
  readonly nest = {
    canActivate: async (context: ExecutionContextLike): Promise<boolean> => {
      const decision = await this.decide(context.switchToHttp().getRequest() as GuardRequest);
      if (decision.allowed) return true;
      // Loaded here, not at the top: only Nest services have (and need) @nestjs/common.
      const { HttpException } = await import('@nestjs/common');
      throw new HttpException(decision.body, decision.status);
    },
  };

  /** The client drops a value that is not an IP address rather than send it. */
  private ipOf(request: GuardRequest): string | undefined {
    return this.options.ip ? this.options.ip(request) : (request.ip ?? request.socket?.remoteAddress);
  }
}
