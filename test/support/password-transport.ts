import { constants, publicEncrypt } from 'node:crypto';

import { sm2 } from 'sm-crypto';

/** What /sys/publicKey answers. */
export interface PublicKeyInfo {
  keyId?: string;
  algorithm?: string;
  publicKey: string;
}

/**
 * A password field as a browser makes it under the key of /sys/publicKey: RSA-OAEP/SHA-256, base64
 * (WebCrypto), or under CRYPTO_SUITE=gm SM2 C1C3C2, hex (what `sm-crypto` produces). A bare PEM is RSA.
 */
export function encryptPassword(key: string | PublicKeyInfo, plain: string): string {
  const info = typeof key === 'string' ? { publicKey: key } : key;
  if (info.algorithm === 'SM2') return sm2.doEncrypt(plain, info.publicKey, 1);
  return publicEncrypt(
    { key: info.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plain, 'utf8'),
  ).toString('base64');
}
