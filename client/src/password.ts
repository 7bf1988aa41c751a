import { constants, createPublicKey, type KeyObject, publicEncrypt } from 'node:crypto';

/**
 * Encrypts a password for any password field of the service (`password` of `/sys/login` and
 * `/sys/me/reauth`, `oldPass` and `newPass`), as docs/api.md#password-encryption describes it:
 * RSAES-OAEP with SHA-256 as the hash AND SHA-256 as MGF1's hash, empty label, over the password's
 * UTF-8 bytes, answered as standard base64.
 *
 * MGF1 is named on purpose: Java's `RSA/ECB/OAEPWithSHA-256AndMGF1Padding` without a parameter spec
 * takes MGF1 with SHA-1, and the service refuses such a ciphertext (`VALIDATION_FAILED` naming the
 * field). Node's `oaepHash` sets both hashes.
 *
 * @param publicKey the `publicKey` of `POST /sys/publicKey` (SPKI PEM), or the base64 of the same
 *   key's DER form (the PEM's body, with or without line breaks)
 * @param password the password in clear
 */
export function encryptPassword(publicKey: string, password: string): string {
  return publicEncrypt(
    { key: readPublicKey(publicKey), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(password, 'utf8'),
  ).toString('base64');
}

function readPublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  const base64 = trimmed.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(base64)) {
    throw new TypeError('publicKey is neither an SPKI PEM nor the base64 of an SPKI key');
  }
  return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
}
