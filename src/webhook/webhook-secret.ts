import { randomBytes } from 'node:crypto';

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { MfaCrypto } from '../mfa/mfa-crypto';
import { WebhookRepository } from './webhook.repository';

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
export class WebhookSecrets implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhook');

  constructor(
    private readonly crypto: MfaCrypto,
    private readonly hooks: WebhookRepository,
  ) {}

  /** After a switch of CRYPTO_SUITE, re-encrypts the secrets the other suite sealed (docs/security.md#crypto-suites). */
  async onApplicationBootstrap() {
    let resealed = 0;
    for (const hook of await this.hooks.all()) {
      if (this.crypto.isCurrent(hook.secret)) continue;
      let plain: string;
      try {
        plain = this.open(hook.secret);
      } catch {
        this.logger.error(`the signing secret of webhook ${hook.id} does not decrypt: not re-encrypted`);
        continue;
      }
      if (await this.hooks.replaceSecret(hook.id, hook.secret, this.seal(plain))) resealed += 1;
    }
    if (resealed) this.logger.log(`re-encrypted ${resealed} webhook secrets under the ${this.crypto.suite.name} suite`);
  }

  seal(secret: string): string {
    return this.crypto.encrypt(secret);
  }

  /** Throws when the stored value was altered or encrypted under another key. */
  open(stored: string): string {
    return this.crypto.decrypt(stored);
  }
}
