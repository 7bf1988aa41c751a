import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  privateDecrypt,
} from 'node:crypto';

import { Injectable, OnModuleInit } from '@nestjs/common';

import { validationFailed } from '../common/app.exception';
import { AppConfig } from '../config/app-config';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key; existing databases keep theirs under this name.
const KEY_ROW = { group: 'sys_security', key: 'rsa_private_key' } as const;
const MAX_CIPHERTEXT_BASE64 = 1024;

/**
 * Password transport under RSA-OAEP/SHA-256. The key comes from
 * RSA_PRIVATE_KEY(_FILE) or, unset, is generated once and kept in the database
 * so that every instance decrypts what any instance's public key encrypted.
 */
@Injectable()
export class RsaKeyService implements OnModuleInit {
  private privateKey: KeyObject;
  private publicPem: string;
  private keyId: string;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: SettingsRepository,
  ) {}

  async onModuleInit() {
    const pem = this.config.rsaPrivateKeyPem ?? (await this.sharedKey());
    this.privateKey = createPrivateKey(pem);
    const spki = createPublicKey(this.privateKey).export({ type: 'spki', format: 'der' });
    this.publicPem = createPublicKey(this.privateKey).export({ type: 'spki', format: 'pem' }).toString();
    this.keyId = createHash('sha256').update(spki).digest('hex').slice(0, 16);
  }

  publicKey() {
    return { keyId: this.keyId, algorithm: 'RSA-OAEP-256', publicKey: this.publicPem };
  }

  /** The plain text of a password field; anything that does not decrypt is VALIDATION_FAILED naming the field. */
  decrypt(field: string, base64: string): string {
    try {
      if (base64.length > MAX_CIPHERTEXT_BASE64 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(base64)) throw new Error('format');
      return privateDecrypt(
        { key: this.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        Buffer.from(base64, 'base64'),
      ).toString('utf8');
    } catch {
      throw validationFailed('validation.undecryptable', field);
    }
  }

  private async sharedKey(): Promise<string> {
    const existing = await this.settings.get(KEY_ROW.group, KEY_ROW.key);
    if (existing !== null) return existing;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // Two instances starting together: the first insert wins, both then use the stored key.
    return this.settings.insertIfAbsent(KEY_ROW.group, KEY_ROW.key, pem);
  }
}
