import { randomBytes } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { MfaCrypto } from '../mfa/mfa-crypto';

/** A new signing secret as Standard Webhooks write it: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The signing secrets at rest: a secret is shared with the receiver (it signs, it is not a password
 * to compare), so it is kept encrypted rather than hashed — under the key of the TOTP secrets
 * (MFA_ENCRYPTION_KEY, or the one generated and kept in the database), which every instance reads.
 */
@Injectable()
export class WebhookSecrets {
  constructor(private readonly crypto: MfaCrypto) {}

  seal(secret: string): string {
    return this.crypto.encrypt(secret);
  }

  /** Throws when the stored value was altered or encrypted under another key. */
  open(stored: string): string {
    return this.crypto.decrypt(stored);
  }
}
