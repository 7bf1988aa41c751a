import { Injectable, OnModuleInit } from '@nestjs/common';

import { validationFailed } from '../common/app.exception';
import { AppConfig } from '../config/app-config';
import { SettingsRepository } from '../strategy/settings.repository';
import { newRsaPrivateKeyPem, RsaTransportKey } from './rsa-transport-key';
import { newSm2PrivateKeyHex, Sm2TransportKey } from './sm2-transport-key';
import type { TransportKey } from './transport-key';

// The settings rows that hold the generated keys; existing databases keep their RSA key under this name.
const RSA_KEY_ROW = { group: 'sys_security', key: 'rsa_private_key' } as const;
const SM2_KEY_ROW = { group: 'sys_security', key: 'sm2_private_key' } as const;

/**
 * Password transport (docs/api.md#password-encryption): RSA-OAEP/SHA-256 under CRYPTO_SUITE=standard, SM2 under
 * gm. The key comes from RSA_PRIVATE_KEY(_FILE) or SM2_PRIVATE_KEY or, unset, is generated once and
 * kept in the database so that every instance decrypts what any instance's public key encrypted.
 */
@Injectable()
export class PasswordTransport implements OnModuleInit {
  private key: TransportKey;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: SettingsRepository,
  ) {}

  async onModuleInit() {
    this.key =
      this.config.CRYPTO_SUITE === 'gm'
        ? new Sm2TransportKey(this.config.SM2_PRIVATE_KEY ?? (await this.sharedKey(SM2_KEY_ROW, newSm2PrivateKeyHex)))
        : new RsaTransportKey(this.config.rsaPrivateKeyPem ?? (await this.sharedKey(RSA_KEY_ROW, newRsaPrivateKeyPem)));
  }

  /** What `/sys/publicKey` answers: `{ keyId, algorithm, publicKey }`. */
  publicKey() {
    return this.key.publicKey();
  }

  /** The plain text of a password field; anything that does not decrypt is VALIDATION_FAILED naming the field. */
  decrypt(field: string, ciphertext: string): string {
    try {
      return this.key.decrypt(ciphertext);
    } catch {
      throw validationFailed('validation.undecryptable', field, { field, algorithm: this.key.algorithm });
    }
  }

  private async sharedKey(row: { group: string; key: string }, generate: () => string): Promise<string> {
    const existing = await this.settings.get(row.group, row.key);
    if (existing !== null) return existing;
    // Two instances starting together: the first insert wins, both then use the stored key.
    return this.settings.insertIfAbsent(row.group, row.key, generate());
  }
}
