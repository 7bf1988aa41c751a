import { FakeClock } from '../../test/support/fake-clock';
import { STANDARD_SUITE } from '../crypto/crypto-suite';
import type { MfaCrypto } from '../mfa/mfa-crypto';
import { MemoryKvStore } from '../store/memory-kv.store';
import { maskEmail, maskMobile } from './mask';
import { OtpCodes } from './otp-codes';

/** The code's rules alone: one live code per user and purpose, 5 minutes, 5 wrong tries, single use. */
describe('OtpCodes', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let codes: OtpCodes;

  beforeEach(() => {
    clock = new FakeClock();
    store = new MemoryKvStore(clock);
    const crypto = {
      derivedKey: () => Buffer.alloc(32, 7),
      mac: (key: Buffer, data: string) => STANDARD_SUITE.mac(key, data),
    } as unknown as MfaCrypto;
    codes = new OtpCodes(store, clock, crypto);
    codes.onModuleInit();
  });
  afterEach(() => store.close());

  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('hands out six digits kept only as a keyed hash; a right code is spent once', async () => {
    const code = await codes.issue('login', 'u1', 'sms');
    expect(code).toMatch(/^\d{6}$/);
    expect(await store.get('OTP_CODE:login:u1')).not.toContain(code);
    expect(await codes.check('login', 'u1', code)).toEqual({ right: true, channel: 'sms' });
    expect(await codes.check('login', 'u1', code)).toEqual({ right: false, channel: null });
  });

  it('a code of one purpose or user serves no other', async () => {
    const code = await codes.issue('reset', 'u1', 'email');
    expect((await codes.check('login', 'u1', code)).right).toBe(false);
    expect((await codes.check('reset', 'u2', code)).right).toBe(false);
    expect((await codes.check('reset', 'u1', code)).right).toBe(true);
  });

  it('the 5th wrong try ends the code; 4 leave it usable', async () => {
    const code = await codes.issue('login', 'u1', 'sms');
    for (let i = 0; i < 4; i++)
      expect(await codes.check('login', 'u1', wrong(code))).toEqual({ right: false, channel: 'sms' });
    expect((await codes.check('login', 'u1', code)).right).toBe(true);
    const next = await codes.issue('login', 'u1', 'sms');
    for (let i = 0; i < 5; i++) await codes.check('login', 'u1', wrong(next));
    expect(await codes.check('login', 'u1', next)).toEqual({ right: false, channel: null });
  });

  it('parallel wrong tries are each counted once', async () => {
    const code = await codes.issue('login', 'u1', 'sms');
    await Promise.all([1, 2, 3].map(() => codes.check('login', 'u1', wrong(code))));
    expect(JSON.parse((await store.get('OTP_CODE:login:u1'))!).tries).toBe(3);
  });

  it('check without consuming leaves a right code for consume(), which takes it once', async () => {
    const code = await codes.issue('reset', 'u1', 'sms');
    expect((await codes.check('reset', 'u1', code, false)).right).toBe(true);
    expect(await codes.consume('reset', 'u1', code)).toBe(true);
    expect(await codes.consume('reset', 'u1', code)).toBe(false);
  });

  it('a new send replaces the code; a code lives 5 minutes by the service clock', async () => {
    const first = await codes.issue('login', 'u1', 'sms');
    const second = await codes.issue('login', 'u1', 'sms');
    if (first !== second) expect((await codes.check('login', 'u1', first)).right).toBe(false);
    clock.advance(5 * 60_000);
    expect((await codes.check('login', 'u1', second)).right).toBe(false);
  });
});

describe('masking', () => {
  it('shows the first three and last four digits, and the first letter and domain', () => {
    expect(maskMobile('13812345678')).toBe('138****5678');
    expect(maskEmail('alice@example.com')).toBe('a***@example.com');
  });
});
