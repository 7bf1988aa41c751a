import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

import { CryptoSuiteName } from '../config/app-config';

/** The Nest token of the suite in force (CryptoModule provides it from AppConfig.CRYPTO_SUITE). */
export const CRYPTO_SUITE = Symbol('CRYPTO_SUITE');

/**
 * The symmetric algorithms one suite stands for. Every key is 32 random bytes whatever the suite,
 * so that switching suites needs no new key to be set; a suite that wants less derives it.
 */
export interface CryptoSuite {
  readonly name: CryptoSuiteName;
  /** Authenticated encryption: a printable value that names its own format, so that `open` can refuse another. */
  seal(key: Buffer, plain: string): string;
  /** The plain text, or a throw when the value was altered, sealed under another key or by another suite. */
  open(key: Buffer, stored: string): string;
  /** Whether `stored` was sealed by this suite (a value of the other suite needs re-encrypting). */
  owns(stored: string): boolean;
  /** A keyed hash, lower-case hex: look-ups, uniqueness and seals. */
  mac(key: Buffer, data: string | Buffer): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
// The prefix the TOTP secrets have carried since they were first encrypted: kept, so no row changes.
const STANDARD_FORMAT = 'v1';

/** AES-256-GCM: `v1.` + base64(iv | tag | ciphertext); HMAC-SHA256. */
export const STANDARD_SUITE: CryptoSuite = {
  name: 'standard',
  seal(key, plain) {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${STANDARD_FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  },
  open(key, stored) {
    const [format, payload] = stored.split('.');
    if (format !== STANDARD_FORMAT || !payload) throw new Error('unknown secret format');
    const raw = Buffer.from(payload, 'base64');
    if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('secret too short');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  },
  owns(stored) {
    return stored.startsWith(`${STANDARD_FORMAT}.`);
  },
  mac(key, data) {
    return createHmac('sha256', key).update(data).digest('hex');
  },
};
