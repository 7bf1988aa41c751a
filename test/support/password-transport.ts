import { constants, publicEncrypt } from 'node:crypto';

/** RSA-OAEP/SHA-256 under the service's public key, base64, as a browser's WebCrypto does it. */
export function encryptPassword(publicKeyPem: string, plain: string): string {
  return publicEncrypt(
    { key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plain, 'utf8'),
  ).toString('base64');
}
