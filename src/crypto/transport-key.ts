/** What `/sys/publicKey` answers (docs/api.md#password-encryption). */
export interface PublicKeyInfo {
  keyId: string;
  algorithm: string;
  publicKey: string;
}

/** The key pair of password transport under one suite. */
export interface TransportKey {
  readonly algorithm: string;
  publicKey(): PublicKeyInfo;
  /** The plain text, or a throw when the ciphertext is malformed or does not decrypt. */
  decrypt(ciphertext: string): string;
}
