import { post } from './request';
import type { components } from './schema';

/**
 * Password transport: every password field is encrypted under the key from /sys/publicKey, by the
 * algorithm it names: the base64 of RSA-OAEP/SHA-256 ciphertext under an SPKI PEM key, or under
 * CRYPTO_SUITE=gm SM2 ciphertext (C1C3C2, hex) under an uncompressed point (docs/api.md).
 */
type PublicKeyInfo = components['schemas']['PublicKeyDto'];

type Encrypt = (plain: string) => Promise<string>;

let cached: Promise<Encrypt> | null = null;

async function loadKey(): Promise<Encrypt> {
  const info = await post<PublicKeyInfo>('/sys/publicKey');
  if (info.algorithm === 'SM2') {
    // Loaded only under gm; it needs crypto.getRandomValues alone, which insecure contexts have too.
    const { sm2 } = await import('sm-crypto-v2');
    return async (plain) => sm2.doEncrypt(plain, info.publicKey, 1);
  }
  return rsaKey(info);
}

async function rsaKey(info: PublicKeyInfo): Promise<Encrypt> {
  const base64 = info.publicKey.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  const spki = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  // WebCrypto exists only in secure contexts (https, or http on localhost); elsewhere the same
  // algorithm runs in script, with node-forge (loaded only then).
  if (!globalThis.crypto?.subtle) {
    const { default: forge } = await import('node-forge');
    const key = forge.pki.publicKeyFromPem(info.publicKey);
    return async (plain) => {
      const options = { md: forge.md.sha256.create(), mgf1: { md: forge.md.sha256.create() } };
      const binary = key.encrypt(forge.util.binary.raw.encode(utf8(plain)), 'RSA-OAEP', options);
      return toBase64(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    };
  }
  const key = await crypto.subtle.importKey('spki', spki, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  return async (plain) => toBase64(new Uint8Array(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, utf8(plain))));
}

const utf8 = (plain: string) => new TextEncoder().encode(plain);

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export async function encryptPassword(plain: string): Promise<string> {
  cached ??= loadKey().catch((error: unknown) => {
    cached = null;
    throw error;
  });
  const encrypt = await cached;
  return encrypt(plain);
}
