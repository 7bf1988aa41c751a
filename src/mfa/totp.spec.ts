import { randomBytes } from 'node:crypto';

import { isBase64Of32Bytes } from '../config/app-config';
import { decryptSecret, encryptSecret, hashRecoveryCode, newRecoveryCodes, recoveryHashKey } from './mfa-crypto';
import { acceptedStep, isReplay, newTotpSecret, stepAt, totpCode } from './totp';

describe('TOTP window and replay rule', () => {
  const secret = newTotpSecret();
  const now = 1_700_000_000_000;
  const step = stepAt(now);

  it('RFC 6238 SHA-1 test vector', () => {
    // RFC 6238 appendix B, T = 59 s, secret "12345678901234567890": 94287082 → last 6 digits.
    expect(totpCode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', stepAt(59_000))).toBe('287082');
  });

  it('accepts the current step and one either side, refuses two away', () => {
    expect(acceptedStep(secret, totpCode(secret, step), now, null)).toBe(step);
    expect(acceptedStep(secret, totpCode(secret, step - 1), now, null)).toBe(step - 1);
    expect(acceptedStep(secret, totpCode(secret, step + 1), now, null)).toBe(step + 1);
    expect(acceptedStep(secret, totpCode(secret, step - 2), now, null)).toBeNull();
    expect(acceptedStep(secret, totpCode(secret, step + 2), now, null)).toBeNull();
  });

  it('refuses a step at or before the last used one', () => {
    expect(acceptedStep(secret, totpCode(secret, step), now, step)).toBeNull();
    expect(acceptedStep(secret, totpCode(secret, step - 1), now, step - 1)).toBeNull();
    expect(acceptedStep(secret, totpCode(secret, step + 1), now, step)).toBe(step + 1);
  });

  it('a replay is a code of the window at or before the last used step, nothing else', () => {
    expect(isReplay(secret, totpCode(secret, step), now, step)).toBe(true);
    expect(isReplay(secret, totpCode(secret, step - 1), now, step + 1)).toBe(true);
    expect(isReplay(secret, totpCode(secret, step + 1), now, step + 1)).toBe(true);
    // Not used yet, or out of the window: a guess like any other.
    expect(isReplay(secret, totpCode(secret, step + 1), now, step)).toBe(false);
    expect(isReplay(secret, totpCode(secret, step), now, null)).toBe(false);
    expect(isReplay(secret, totpCode(secret, step - 2), now, step)).toBe(false);
  });

  it('refuses what is not 6 digits', () => {
    expect(acceptedStep(secret, 'abcdef', now, null)).toBeNull();
    expect(acceptedStep(secret, totpCode(secret, step).slice(1), now, null)).toBeNull();
  });
});

describe('secrets at rest and recovery codes', () => {
  const key = randomBytes(32);

  it('round trip; another key or an altered byte is refused', () => {
    const stored = encryptSecret(key, 'JBSWY3DPEHPK3PXP');
    expect(stored).not.toContain('JBSWY3DPEHPK3PXP');
    expect(decryptSecret(key, stored)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => decryptSecret(randomBytes(32), stored)).toThrow();
    const raw = Buffer.from(stored.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => decryptSecret(key, `v1.${raw.toString('base64')}`)).toThrow();
  });

  it('10 distinct codes xxxx-xxxx; the hash is keyed and ignores case and hyphen', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}$/);
    const hk = recoveryHashKey(key);
    expect(hashRecoveryCode(hk, 'abcd-efgh')).toBe(hashRecoveryCode(hk, 'ABCDEFGH'));
    expect(hashRecoveryCode(hk, 'abcd-efgh')).not.toBe(hashRecoveryCode(recoveryHashKey(randomBytes(32)), 'abcd-efgh'));
  });

  it('MFA_ENCRYPTION_KEY must be the base64 of 32 bytes', () => {
    expect(isBase64Of32Bytes(randomBytes(32).toString('base64'))).toBe(true);
    expect(isBase64Of32Bytes(randomBytes(16).toString('base64'))).toBe(false);
    expect(isBase64Of32Bytes('not base64 at all')).toBe(false);
  });
});
