import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt } from 'node:crypto';

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key when MFA_ENCRYPTION_KEY is unset.
const KEY_ROW = { group: 'sys_security', key: 'mfa_encryption_key' } as const;
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM: `v1.` + base64(iv | tag | ciphertext). */
export function encryptSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** The plain text, or a throw when the value was altered or encrypted under another key. */
export function decryptSecret(key: Buffer, stored: string): string {
  const [version, payload] = stored.split('.');
  if (version !== VERSION || !payload) throw new Error('unknown secret format');
  const raw = Buffer.from(payload, 'base64');
  if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('secret too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** The key of the recovery-code hashes, derived from the encryption key (HKDF-SHA256), never stored. */
export function recoveryHashKey(key: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'sys_user_recovery_code', 32));
}

/** Recovery codes compare without their hyphen and whatever their case. */
export function normaliseRecoveryCode(code: string): string {
  return code.replace(/-/g, '').toLowerCase();
}

/** HMAC-SHA256 under the derived key: a stolen table alone cannot be brute-forced. */
export function hashRecoveryCode(hashKey: Buffer, code: string): string {
  return createHmac('sha256', hashKey).update(normaliseRecoveryCode(code)).digest('hex');
}

// No 0/o, 1/l/i: read off a printout. 31 symbols, 8 per code: about 40 bits each.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_COUNT = 10;

/** 10 codes `xxxx-xxxx`. */
export function newRecoveryCodes(): string[] {
  const one = () => Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) {
    const c = one();
    codes.add(`${c.slice(0, 4)}-${c.slice(4)}`);
  }
  return [...codes];
}

/**
 * The key of the TOTP secrets: MFA_ENCRYPTION_KEY or, unset, one generated on first start and kept in
 * the settings store (as the RSA key is), so that every instance reads what any instance wrote.
 */
@Injectable()
export class MfaCrypto implements OnModuleInit {
  private readonly logger = new Logger('Mfa');
  private key: Buffer;
  private hashKey: Buffer;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: SettingsRepository,
  ) {}

  async onModuleInit() {
    const configured = this.config.MFA_ENCRYPTION_KEY;
    const base64 = configured ?? (await this.sharedKey());
    if (!configured) {
      this.logger.warn(
        'MFA_ENCRYPTION_KEY is not set: the TOTP secrets are encrypted under a key kept in the database; ' +
          'set MFA_ENCRYPTION_KEY (openssl rand -base64 32) so that a copy of the database alone cannot read them',
      );
    }
    this.key = Buffer.from(base64, 'base64');
    this.hashKey = recoveryHashKey(this.key);
  }

  encrypt(plain: string): string {
    return encryptSecret(this.key, plain);
  }

  decrypt(stored: string): string {
    return decryptSecret(this.key, stored);
  }

  hashRecoveryCode(code: string): string {
    return hashRecoveryCode(this.hashKey, code);
  }

  /** A key of its own for another use (`info` names it), derived from this one: one secret to keep, none shared between uses. */
  derivedKey(info: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), info, 32));
  }

  private async sharedKey(): Promise<string> {
    const existing = await this.settings.get(KEY_ROW.group, KEY_ROW.key);
    if (existing !== null) return existing;
    // Two instances starting together: the first insert wins, both then use the stored key.
    return this.settings.insertIfAbsent(KEY_ROW.group, KEY_ROW.key, randomBytes(32).toString('base64'));
  }
}
