import { createCipheriv, createHash, randomBytes } from 'node:crypto';

import { STANDARD_SUITE } from './crypto-suite';
import { GM_SUITE } from './gm-suite';

describe('GM_SUITE', () => {
  const key = randomBytes(32);

  it('opens what it sealed, a fresh IV each time, under its own format', () => {
    const a = GM_SUITE.seal(key, 'JBSWY3DPEHPK3PXP 密钥');
    const b = GM_SUITE.seal(key, 'JBSWY3DPEHPK3PXP 密钥');
    expect(a).toMatch(/^g1\./);
    expect(a).not.toBe(b);
    expect(GM_SUITE.open(key, a)).toBe('JBSWY3DPEHPK3PXP 密钥');
    expect(GM_SUITE.owns(a)).toBe(true);
    expect(STANDARD_SUITE.owns(a)).toBe(false);
  });

  it('refuses a changed byte anywhere, another key, and a cut value', () => {
    const sealed = GM_SUITE.seal(key, 'secret');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    for (const at of [0, 20, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[at] ^= 1;
      expect(() => GM_SUITE.open(key, `g1.${changed.toString('base64')}`)).toThrow();
    }
    expect(() => GM_SUITE.open(randomBytes(32), sealed)).toThrow();
    expect(() => GM_SUITE.open(key, `g1.${raw.subarray(0, 48).toString('base64')}`)).toThrow();
  });

  it("refuses the standard suite's values, and the standard suite refuses its", () => {
    const standard = STANDARD_SUITE.seal(key, 'secret');
    expect(GM_SUITE.owns(standard)).toBe(false);
    expect(() => GM_SUITE.open(key, standard)).toThrow();
    expect(() => STANDARD_SUITE.open(key, GM_SUITE.seal(key, 'secret'))).toThrow();
  });

  it('MACs with HMAC-SM3, not with the standard HMAC', () => {
    expect(GM_SUITE.mac(key, 'a')).toMatch(/^[0-9a-f]{64}$/);
    expect(GM_SUITE.mac(key, 'a')).toBe(GM_SUITE.mac(key, Buffer.from('a')));
    expect(GM_SUITE.mac(key, 'a')).not.toBe(STANDARD_SUITE.mac(key, 'a'));
  });

  // GB/T 32905-2016 appendix A.1 and GB/T 32907-2016 appendix A.1: Node's OpenSSL is the real SM3 and SM4.
  it('rests on the standard SM3 and SM4 (known answers)', () => {
    expect(createHash('sm3').update('abc').digest('hex')).toBe(
      '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0',
    );
    const k = Buffer.from('0123456789abcdeffedcba9876543210', 'hex');
    const ecb = createCipheriv('sm4-ecb', k, null).setAutoPadding(false);
    expect(Buffer.concat([ecb.update(k), ecb.final()]).toString('hex')).toBe('681edf34d206965e86b3e94f536e4246');
  });
});
