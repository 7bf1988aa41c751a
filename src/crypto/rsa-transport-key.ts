import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  privateDecrypt,
} from 'node:crypto';

import type { TransportKey } from './transport-key';

const MAX_CIPHERTEXT_BASE64 = 1024;

/** A new 2048-bit key, PKCS#8 PEM: what the first instance keeps in the settings store. */
export function newRsaPrivateKeyPem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Password transport of the standard suite: RSA-OAEP/SHA-256, base64, what browsers' WebCrypto produces. */
export class RsaTransportKey implements TransportKey {
  readonly algorithm = 'RSA-OAEP-256';
  private readonly privateKey: KeyObject;
  private readonly publicPem: string;
  private readonly keyId: string;

  constructor(pem: string) {
    this.privateKey = createPrivateKey(pem);
    const spki = createPublicKey(this.privateKey).export({ type: 'spki', format: 'der' });
    this.publicPem = createPublicKey(this.privateKey).export({ type: 'spki', format: 'pem' }).toString();
    this.keyId = createHash('sha256').update(spki).digest('hex').slice(0, 16);
  }

  publicKey() {
    return { keyId: this.keyId, algorithm: this.algorithm, publicKey: this.publicPem };
  }

  decrypt(base64: string): string {
    if (base64.length > MAX_CIPHERTEXT_BASE64 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(base64)) throw new Error('format');
    return privateDecrypt(
      { key: this.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(base64, 'base64'),
    ).toString('utf8');
  }
}
