import { hkdfSync, randomBytes, randomInt } from 'node:crypto';

import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { CRYPTO_SUITE, CryptoSuite, STANDARD_SUITE } from '../crypto/crypto-suite';
import { suiteOwning, suitesFrom } from '../crypto/suites';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key when MFA_ENCRYPTION_KEY is unset.
const KEY_ROW = { group: 'sys_security', key: 'mfa_encryption_key' } as const;
/** The seal of `suite` (AES-256-GCM under the standard suite, SM4 under gm). */
export function encryptSecret(key: Buffer, plain: string, suite: CryptoSuite = STANDARD_SUITE): string {
  return suite.seal(key, plain);
}

/**
 * The plain text, or a throw when the value was altered or encrypted under another key. Opened by
 * the suite that sealed it, so that values written before a switch of CRYPTO_SUITE still read
 * until MfaSecretReseal has re-encrypted them.
 */
export function decryptSecret(key: Buffer, stored: string): string {
  const suite = suiteOwning(stored);
  if (!suite) throw new Error('unknown secret format');
  return suite.open(key, stored);
}

/** The key of the recovery-code hashes, derived from the encryption key (HKDF-SHA256), never stored. */
export function recoveryHashKey(key: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'sys_user_recovery_code', 32));
}

/** Recovery codes compare without their hyphen and whatever their case. */
export function normaliseRecoveryCode(code: string): string {
  return code.replace(/-/g, '').toLowerCase();
}

/** The suite's MAC (HMAC-SHA256, HMAC-SM3) under the derived key: a stolen table alone cannot be brute-forced. */
export function hashRecoveryCode(hashKey: Buffer, code: string, suite: CryptoSuite = STANDARD_SUITE): string {
  return suite.mac(hashKey, normaliseRecoveryCode(code));
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
    @Inject(CRYPTO_SUITE) readonly suite: CryptoSuite,
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
    return encryptSecret(this.key, plain, this.suite);
  }

  /** Opens a value of either suite (one sealed before a switch of CRYPTO_SUITE too). */
  decrypt(stored: string): string {
    return decryptSecret(this.key, stored);
  }

  /** Whether `stored` was sealed by the suite in force (else MfaSecretReseal re-encrypts it). */
  isCurrent(stored: string): boolean {
    return this.suite.owns(stored);
  }

  /** The hash new recovery codes are kept as. */
  hashRecoveryCode(code: string): string {
    return hashRecoveryCode(this.hashKey, code, this.suite);
  }

  /**
   * The hashes a code may be kept as, the suite in force first: codes given out before a switch of
   * CRYPTO_SUITE were hashed by the other suite, and a hash cannot be re-encrypted.
   */
  recoveryCodeHashes(code: string): string[] {
    return suitesFrom(this.suite).map((suite) => hashRecoveryCode(this.hashKey, code, suite));
  }

  /** The suite's MAC under `key`. */
  mac(key: Buffer, data: string): string {
    return this.suite.mac(key, data);
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
