import type { FastifyRequest } from 'fastify';

import type { ApiKeyAuth } from '../common/auth-context';
import { ExtensionPoint } from '../common/extension-point';
import type { CallerRequirements } from './session-authenticator';

/**
 * A credential other than a session token that a request may carry (an API key, src/api-key). It
 * is asked before the session: it answers the caller when the request carries its kind of
 * credential (refusing by throwing, as the session does), or undefined when it carries none, and
 * the session's token is read as usual.
 */
export interface CallerCredential {
  authenticate(request: FastifyRequest, requirements: CallerRequirements): Promise<ApiKeyAuth | undefined>;
}

/** Declared by the session module (empty); src/api-key adds the API key. At most one. */
export const CALLER_CREDENTIALS = new ExtensionPoint<CallerCredential>('CALLER_CREDENTIALS');
