import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { AppConfig } from '../config/app-config';

/** Where a ceremony happens: the RP ID the passkey is bound to and the origins the browser may report. */
export interface RelyingPartyOf {
  rpId: string;
  origins: string[];
}

/**
 * RP_ID and RP_ORIGINS (validated at start), or, unset, the request's own host: fine for a
 * service reached directly; behind a proxy the operator names them (README, "Passkeys").
 */
@Injectable()
export class RelyingParty {
  constructor(private readonly config: AppConfig) {}

  get name(): string {
    return this.config.MFA_ISSUER;
  }

  of(request: FastifyRequest): RelyingPartyOf {
    const rpId = this.config.RP_ID ?? request.hostname.toLowerCase();
    const origins = this.config.RP_ORIGINS ?? [`https://${request.host}`, `http://${request.host}`];
    return { rpId, origins };
  }
}
