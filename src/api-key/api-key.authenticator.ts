import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { AccessDenied, AppException } from '../common/app.exception';
import { ApiKeyAuth, apiKeyReaches, missingCodes } from '../common/auth-context';
import { clientIp } from '../common/client-info';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import type { CallerCredential } from '../session/caller-credential';
import type { CallerRequirements } from '../session/session-authenticator';
import { allowsAddress, ApiKeyCache } from './api-key.cache';
import { apiKeyIn, hashApiKey } from './api-key-format';
import { ApiKeyUsage } from './api-key-usage';

/**
 * The API key branch of authentication (SessionAuthenticator asks it first): a request carrying a
 * key (`X-Api-Key`, or `Authorization: Bearer lps_…`) is the key's, checked from memory in this
 * order — known and not revoked, not expired, from one of its address ranges (each otherwise
 * NOT_LOGGED_IN, the answer of an unknown key) — then the route: only routes gated by permission
 * codes outside the refused paths (apiKeyReaches), and the route's codes against the key's, each
 * otherwise FORBIDDEN. A key has no session: no renewal, no temporary scope, no fresh proof.
 */
@Injectable()
export class ApiKeyAuthenticator implements CallerCredential {
  constructor(
    private readonly keys: ApiKeyCache,
    private readonly usage: ApiKeyUsage,
    private readonly clock: Clock,
  ) {}

  async authenticate(
    request: FastifyRequest,
    { permissions = [], orPermissions, freshProof }: CallerRequirements,
  ): Promise<ApiKeyAuth | undefined> {
    const key = apiKeyIn(request);
    if (key === undefined) return undefined;
    const record = key === null ? null : await this.keys.find(hashApiKey(key));
    if (
      !record ||
      (record.expireAt !== null && record.expireAt <= this.clock.nowMs()) ||
      !allowsAddress(record, clientIp(request))
    ) {
      throw new AppException(ErrorCode.NOT_LOGGED_IN);
    }
    this.usage.touch(record.id);
    const caller: ApiKeyAuth = { apiKey: { id: record.id, name: record.name }, permissions: record.permissions };
    if (!apiKeyReaches(routeOf(request), permissions, freshProof === 'always')) {
      // Attached although refused: the refusal is audited (access.denied) with the key as its actor.
      request.auth = caller;
      throw new AccessDenied();
    }
    const missing = missingCodes(record.permissions, permissions, orPermissions);
    if (missing.length) {
      request.auth = caller;
      throw new AccessDenied(missing);
    }
    return caller;
  }
}

/** The route's own path as registered (not the URL as sent), so that no spelling of a URL slips past. */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions?.url ?? request.url.split('?')[0];
}
