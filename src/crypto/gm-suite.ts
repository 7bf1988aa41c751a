import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

import type { CryptoSuite } from './crypto-suite';

const IV_BYTES = 16;
const TAG_BYTES = 32;
// Not `v1`: `owns` must tell a value of this suite from one of the standard suite.
const GM_FORMAT = 'g1';

interface SealKeys {
  cipher: Buffer;
  mac: Buffer;
}

// Node's OpenSSL has no SM4-GCM, so the seal is SM4-CTR then HMAC-SM3 over the format, IV and
// ciphertext (encrypt-then-MAC), each under a key of its own derived from the one 32-byte key.
const derived = new WeakMap<Buffer, SealKeys>();

function sealKeys(key: Buffer): SealKeys {
  let keys = derived.get(key);
  if (!keys) {
    const hkdf = (info: string, bytes: number) => Buffer.from(hkdfSync('sm3', key, Buffer.alloc(0), info, bytes));
    keys = { cipher: hkdf('lps gm seal sm4-ctr', 16), mac: hkdf('lps gm seal hmac-sm3', 32) };
    derived.set(key, keys);
  }
  return keys;
}

function tagOf(macKey: Buffer, iv: Buffer, body: Buffer): Buffer {
  return createHmac('sm3', macKey).update(`${GM_FORMAT}.`).update(iv).update(body).digest();
}

/** SM4-CTR with an HMAC-SM3 tag: `g1.` + base64(iv | tag | ciphertext); HMAC-SM3 (docs/security.md#crypto-suites). */
export const GM_SUITE: CryptoSuite = {
  name: 'gm',
  seal(key, plain) {
    const keys = sealKeys(key);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('sm4-ctr', keys.cipher, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${GM_FORMAT}.${Buffer.concat([iv, tagOf(keys.mac, iv, body), body]).toString('base64')}`;
  },
  open(key, stored) {
    const [format, payload, extra] = stored.split('.');
    if (format !== GM_FORMAT || !payload || extra !== undefined) throw new Error('unknown secret format');
    const raw = Buffer.from(payload, 'base64');
    if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('secret too short');
    const keys = sealKeys(key);
    const iv = raw.subarray(0, IV_BYTES);
    const body = raw.subarray(IV_BYTES + TAG_BYTES);
    if (!timingSafeEqual(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES), tagOf(keys.mac, iv, body)))
      throw new Error('secret altered or sealed under another key');
    const decipher = createDecipheriv('sm4-ctr', keys.cipher, iv);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  },
  owns(stored) {
    return stored.startsWith(`${GM_FORMAT}.`);
  },
  mac(key, data) {
    return createHmac('sm3', key).update(data).digest('hex');
  },
};
