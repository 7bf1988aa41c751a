import { randomBytes } from 'node:crypto';

import { isoBase64URL } from '@simplewebauthn/server/helpers';

import { base64url } from './webauthn';

describe('base64url, without loading @simplewebauthn/server', () => {
  it('writes and reads bytes as the library does', () => {
    for (const size of [0, 1, 2, 3, 16, 32, 65, 255]) {
      const bytes = new Uint8Array(randomBytes(size));
      const text = base64url.fromBytes(bytes);
      expect(text).toBe(isoBase64URL.fromBuffer(bytes));
      expect(base64url.toBytes(text)).toEqual(isoBase64URL.toBuffer(text));
      expect(base64url.toBytes(text)).toEqual(bytes);
    }
    expect(base64url.fromUtf8('用户-42')).toBe(isoBase64URL.fromUTF8String('用户-42'));
  });

  it('accepts and refuses the same texts as the library', () => {
    for (const text of ['', 'AQID', 'AQID==', 'a-b_c', 'a+b/c', 'a b', 'AQ=ID', '\u00e9', 'AQID\n']) {
      expect([text, base64url.isValid(text)]).toEqual([text, isoBase64URL.isBase64URL(text)]);
    }
  });
});
