import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';

import { encryptPassword } from './password';

describe('encryptPassword', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  // The service's own decryption: OAEP with SHA-256, which Node also takes for MGF1.
  const decrypt = (cipher: string) =>
    privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(cipher, 'base64'),
    ).toString('utf8');

  it.each([
    ['an SPKI PEM', pem],
    ['the base64 of the DER key', der],
    ["the PEM's body with its line breaks", pem.replace(/-----[A-Z ]+-----/g, '')],
  ])('takes %s and answers base64 the service decrypts', (_what, key) => {
    const cipher = encryptPassword(key, 'Pässwörd#1 密码');
    expect(cipher).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(decrypt(cipher)).toBe('Pässwörd#1 密码');
  });

  it('is randomised: the same password never gives the same ciphertext', () => {
    expect(encryptPassword(pem, 'same')).not.toBe(encryptPassword(pem, 'same'));
  });

  it('refuses a key that is neither', () => {
    expect(() => encryptPassword('not a key!', 'x')).toThrow(TypeError);
    expect(() => encryptPassword('bm90IGEga2V5', 'x')).toThrow();
  });
});
