import { createHash } from 'node:crypto';

import type { sm2 as Sm2 } from 'sm-crypto-v2';

import { atFirstUse } from '../common/at-first-use';
import type { TransportKey } from './transport-key';

// C1 (64 bytes) + C3 (32 bytes) + C2 (the password's UTF-8 bytes): a password of a few hundred bytes at most.
const MAX_CIPHERTEXT_HEX = 2048;
// sm-crypto's cipherMode 1: C1C3C2, the order of GB/T 32918.4-2016.
const C1C3C2 = 1;

/** sm-crypto-v2's SM2, loaded only where the gm suite is in force: the standard suite never needs it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sm2 = atFirstUse(() => (require('sm-crypto-v2') as { sm2: typeof Sm2 }).sm2);

/** A new SM2 private key, hex of 32 bytes: what the first instance keeps in the settings store. */
export function newSm2PrivateKeyHex(): string {
  return sm2().generateKeyPairHex().privateKey;
}

/**
 * Password transport of the gm suite: SM2 public-key encryption, C1C3C2, hex, as `sm-crypto`
 * (and `sm-crypto-v2`) produce it in the browser: C1 without the `04` of an uncompressed point.
 * A C1 with its `04` is taken too (other SM2 libraries write it).
 */
export class Sm2TransportKey implements TransportKey {
  readonly algorithm = 'SM2';
  private readonly publicHex: string;
  private readonly keyId: string;

  constructor(private readonly privateHex: string) {
    this.publicHex = sm2().getPublicKeyFromPrivateKey(privateHex);
    this.keyId = createHash('sm3').update(Buffer.from(this.publicHex, 'hex')).digest('hex').slice(0, 16);
  }

  publicKey() {
    return { keyId: this.keyId, algorithm: this.algorithm, publicKey: this.publicHex };
  }

  decrypt(hex: string): string {
    if (hex.length > MAX_CIPHERTEXT_HEX || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex))
      throw new Error('format');
    const bytes = this.open(hex.toLowerCase());
    // sm-crypto answers an empty array when C3 does not match: altered, or under another key.
    if (!bytes.length) throw new Error('does not decrypt');
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  }

  private open(hex: string): Uint8Array {
    try {
      return sm2().doDecrypt(hex, this.privateHex, C1C3C2, { output: 'array' });
    } catch (err) {
      if (!hex.startsWith('04')) throw err;
      return sm2().doDecrypt(hex.slice(2), this.privateHex, C1C3C2, { output: 'array' });
    }
  }
}
