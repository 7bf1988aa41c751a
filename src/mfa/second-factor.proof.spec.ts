import { codeOf } from '../../test/support/code-of';
import { FakeClock } from '../../test/support/fake-clock';
import { fakeChecks, proofUser } from '../../test/support/login-checks';
import { ErrorCode } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { MemoryKvStore } from '../store/memory-kv.store';
import { json, OneTimeStore } from '../store/one-time-store';
import { credentialStamp } from '../user-account/credential-stamp';
import type { WrongProof } from '../user-account/lockout.service';
import type { MfaProof } from './mfa.service';
import { PendingLogin, SecondFactorProof } from './second-factor.proof';

describe('SecondFactorProof (the second step of a password login, inside the tail)', () => {
  const user = proofUser();
  let clock: FakeClock;
  let store: MemoryKvStore;
  let pendingLogins: OneTimeStore<PendingLogin>;
  let token: string;
  let enabled: boolean;
  /** What the next code proves. */
  let answer: MfaProof | 'replay' | null;
  let failures: WrongProof[];
  let locks: boolean;
  let pending: PendingLogin;

  const proof = () =>
    new SecondFactorProof(
      pendingLogins,
      { enabled: async () => enabled, prove: async () => answer },
      {
        recordFailure: async (w: WrongProof) => {
          failures.push(w);
          return locks;
        },
      },
      { token, pending, code: '123456', ip: '10.0.0.1', userAgent: 'jest' },
    );
  const tokenAlive = async () => (await pendingLogins.peek(token)) !== null;

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    enabled = true;
    answer = 'totp';
    failures = [];
    locks = false;
    pending = {
      userId: user.id,
      loginType: LoginTypes.ACCOUNT,
      account: 'zhangsan',
      locale: 'en',
      stamp: credentialStamp(user.password),
      freshProof: true,
    };
    pendingLogins = new OneTimeStore(store, clock, {
      key: (id) => `AUTH_MFA:${id}`,
      ttlMs: 60_000,
      hashed: true,
      format: json<PendingLogin>(),
    });
    token = await pendingLogins.issue(pending);
  });

  afterEach(() => store.close());

  it('is named', () => {
    expect(proof().name).toBe('second-factor');
  });

  it('accepts a right code once: the token is consumed and the kind of code is told', async () => {
    const right = proof();
    await right.prove(fakeChecks(user));
    expect(right.used).toBe('totp');
    expect(await tokenAlive()).toBe(false);
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_TOKEN_INVALID);
  });

  it('tells a recovery code apart (its owner is told it was used)', async () => {
    answer = 'recovery';
    const right = proof();
    await right.prove(fakeChecks(user));
    expect(right.used).toBe('recovery');
  });

  it('logs and counts a wrong code as mfawrong and keeps the token for another try', async () => {
    answer = null;
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_CODE_INVALID);
    expect(failures).toEqual([
      expect.objectContaining({
        user,
        account: 'zhangsan',
        loginType: LoginTypes.ACCOUNT,
        ip: '10.0.0.1',
        status: LoginStatus.MFAWRONG,
        reason: ErrorCode.MFA_CODE_INVALID,
      }),
    ]);
    expect(await tokenAlive()).toBe(true);
  });

  it('kills the token with the wrong code that locks the account', async () => {
    answer = null;
    locks = true;
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_CODE_INVALID);
    expect(await tokenAlive()).toBe(false);
  });

  it('refuses a right code sent twice without logging or counting it, and keeps the token', async () => {
    answer = 'replay';
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_CODE_INVALID);
    expect(failures).toEqual([]);
    expect(await tokenAlive()).toBe(true);
  });

  it.each([
    ['locked', { locked: true }, ErrorCode.ACCOUNT_LOCKED],
    ['disabled', { disabled: true }, ErrorCode.ACCOUNT_DISABLED],
  ] as const)('refuses a %s account and kills the token, before the code is looked at', async (_case, over, code) => {
    const calls: string[] = [];
    expect(await codeOf(proof().prove(fakeChecks(proofUser(over), calls)))).toBe(code);
    expect(await tokenAlive()).toBe(false);
    expect(failures).toEqual([]);
  });

  it('refuses once the token was consumed by a parallel right code or has expired', async () => {
    await pendingLogins.revoke(token);
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_TOKEN_INVALID);
    token = await pendingLogins.issue(pending);
    clock.advance(61_000);
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_TOKEN_INVALID);
  });

  it('starts the login again when the password the first step proved was changed meanwhile', async () => {
    expect(await codeOf(proof().prove(fakeChecks(proofUser({ password: 'hash:New-pass1' }))))).toBe(
      ErrorCode.MFA_TOKEN_INVALID,
    );
    expect(await tokenAlive()).toBe(false);
    expect(failures).toEqual([]);
  });

  it('starts the login again when the second factor was removed meanwhile', async () => {
    enabled = false;
    expect(await codeOf(proof().prove(fakeChecks(user)))).toBe(ErrorCode.MFA_TOKEN_INVALID);
    expect(await tokenAlive()).toBe(false);
    expect(failures).toEqual([]);
  });
});
