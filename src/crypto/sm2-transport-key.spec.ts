import { sm2 as smCrypto } from 'sm-crypto';
import { sm2 } from 'sm-crypto-v2';

import { newSm2PrivateKeyHex, Sm2TransportKey } from './sm2-transport-key';

describe('Sm2TransportKey', () => {
  const key = new Sm2TransportKey(newSm2PrivateKeyHex());
  const { keyId, algorithm, publicKey } = key.publicKey();

  it('answers the uncompressed point, hex, 04…', () => {
    expect(algorithm).toBe('SM2');
    expect(publicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(keyId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('decrypts what sm-crypto produces in a browser (C1C3C2, hex), and what sm-crypto-v2 does', () => {
    expect(key.decrypt(smCrypto.doEncrypt('Passw0rd!密码', publicKey, 1))).toBe('Passw0rd!密码');
    expect(key.decrypt(sm2.doEncrypt('Passw0rd!x', publicKey, 1))).toBe('Passw0rd!x');
  });

  it('takes C1 with its 04 prefix and upper-case hex too', () => {
    const cipher = smCrypto.doEncrypt('Passw0rd!x', publicKey, 1);
    expect(key.decrypt(`04${cipher}`)).toBe('Passw0rd!x');
    expect(key.decrypt(cipher.toUpperCase())).toBe('Passw0rd!x');
  });

  it('refuses C1C2C3, a changed byte, another key, non-hex and oversized input', () => {
    const cipher = smCrypto.doEncrypt('Passw0rd!x', publicKey, 1);
    expect(() => key.decrypt(smCrypto.doEncrypt('Passw0rd!x', publicKey, 0))).toThrow();
    const last = cipher.slice(-2) === '00' ? '01' : '00';
    expect(() => key.decrypt(cipher.slice(0, -2) + last)).toThrow();
    const other = new Sm2TransportKey(newSm2PrivateKeyHex());
    expect(() => other.decrypt(cipher)).toThrow();
    expect(() => key.decrypt('zz' + cipher)).toThrow();
    expect(() => key.decrypt('ab'.repeat(2000))).toThrow();
    expect(() => key.decrypt('')).toThrow();
  });
});
