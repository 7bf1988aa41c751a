import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { ipAddress } from '../common/client-info';
import { addFastLane } from '../common/fast-lane';
import { successEnvelope } from '../common/http-adapter';
import { SessionAuthenticator } from '../session/session-authenticator';
import { introspection } from './token-introspection';

export const INTROSPECT_CODE = 'sys:token:introspect';
const ROUTE = '/sys/token/introspect';
const REQUIREMENTS = { permissions: [INTROSPECT_CODE] } as const;

/**
 * A gateway asks about every request it lets through, so its question is answered in a fast lane
 * (common/fast-lane.ts), before Nest's router, guard and validation pipe. Only the case a gateway
 * sends takes this lane: an API key that holds the code and a body the route's DTO accepts as it
 * is. Anything else — a user's token, a body to refuse or to trim, a key refused — goes on to the
 * Nest route, which answers it as every route does (messages, FORBIDDEN audited); a key's checks
 * have no once-only answer, so asking twice changes nothing.
 */
@Injectable()
export class IntrospectionFastLane implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: SessionAuthenticator,
  ) {}

  onModuleInit() {
    addFastLane(this.adapterHost.httpAdapter?.getInstance<FastifyInstance>(), ROUTE, async (request, reply) => {
      const body = plainBody(request.body);
      return body !== undefined && this.answer(request, reply, body);
    });
  }

  private async answer(request: FastifyRequest, reply: FastifyReply, body: PlainBody): Promise<boolean> {
    let caller;
    try {
      caller = await this.authenticator.credentialOf(request, REQUIREMENTS);
    } catch {
      return false;
    }
    if (!caller) return false;
    request.auth = caller;
    const data = await introspection(this.authenticator, body.token, body.ip);
    await reply.send(successEnvelope(data, reply));
    return true;
  }
}

interface PlainBody {
  token: string;
  ip?: string;
}

/** The body when IntrospectTokenDto takes it unchanged (no other field, nothing to trim), else undefined. */
function plainBody(body: unknown): PlainBody | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { token, ip, ...rest } = body as Record<string, unknown>;
  if (typeof token !== 'string' || token.length < 1 || token.length > 256) return undefined;
  if (ip !== undefined && (typeof ip !== 'string' || ip.length > 64 || ipAddress(ip) === null)) return undefined;
  for (const _ in rest) return undefined;
  return { token, ip };
}
