import { createHmac, hkdfSync, randomBytes, randomInt } from 'node:crypto';

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { STANDARD_SUITE } from '../crypto/crypto-suite';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key when MFA_ENCRYPTION_KEY is unset.
const KEY_ROW = { group: 'sys_security', key: 'mfa_encryption_key' } as const;
/** AES-256-GCM (the standard suite's seal). */
export function encryptSecret(key: Buffer, plain: string): string {
  return STANDARD_SUITE.seal(key, plain);
}

/** The plain text, or a throw when the value was altered or encrypted under another key. */
export function decryptSecret(key: Buffer, stored: string): string {
  return STANDARD_SUITE.open(key, stored);
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
