import { codeOf } from '../../test/support/code-of';
import { fakeChecks, proofUser } from '../../test/support/login-checks';
import type { LoginWay } from '../auth/login/login.service';
import { ErrorCode } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import type { WrongProof } from '../user-account/lockout.service';
import type { PasskeyEntity } from './passkey.entity';
import type { AssertionOutcome } from './passkey-assertions';
import type { PasskeyChallenge } from './passkey-challenges';
import { PasskeyLoginProof } from './passkey-login.proof';

describe('PasskeyLoginProof (the passkey way in, inside the tail)', () => {
  const way: LoginWay = {
    loginType: LoginTypes.PASSKEY,
    account: 'zhangsan',
    ip: '10.0.0.1',
    userAgent: 'test',
    locale: 'zh',
    unusualIpCheck: true,
  };
  const challenge: PasskeyChallenge = {
    challenge: 'c',
    rpId: 'login.example.com',
    origins: ['https://login.example.com'],
    userId: 'u1',
    account: 'zhangsan',
  };
  const passkey = { id: 'p1', userId: 'u1' } as PasskeyEntity;

  function proofWith(outcome: AssertionOutcome, calls: string[], failures: WrongProof[] = []) {
    return new PasskeyLoginProof(
      {
        check: async () => {
          calls.push(`check:${outcome}`);
          return outcome;
        },
      },
      {
        recordFailure: async (w) => {
          failures.push(w);
          return false;
        },
      },
      passkey,
      {},
      challenge,
      way,
    );
  }

  it('checks the lock first, then the assertion, then that the account is enabled', async () => {
    const calls: string[] = [];
    await proofWith('right', calls).prove(fakeChecks(proofUser(), calls));
    expect(calls).toEqual(['checkLock', 'check:right', 'checkDisabled']);
  });

  it('refuses a locked account without looking at the assertion', async () => {
    const calls: string[] = [];
    const refused = proofWith('right', calls).prove(fakeChecks(proofUser({ locked: true }), calls));
    expect(await codeOf(refused)).toBe(ErrorCode.ACCOUNT_LOCKED);
    expect(calls).toEqual(['checkLock']);
  });

  it('a wrong assertion is BAD_CREDENTIALS, recorded as passwrong with the way it came', async () => {
    const calls: string[] = [];
    const failures: WrongProof[] = [];
    const refused = proofWith('wrong', calls, failures).prove(fakeChecks(proofUser(), calls));
    expect(await codeOf(refused)).toBe(ErrorCode.BAD_CREDENTIALS);
    expect(failures).toEqual([
      expect.objectContaining({
        status: LoginStatus.PASSWRONG,
        loginType: LoginTypes.PASSKEY,
        account: 'zhangsan',
        reason: ErrorCode.BAD_CREDENTIALS,
      }),
    ]);
    expect(calls).not.toContain('checkDisabled');
  });

  it('refuses a disabled account once the assertion is right', async () => {
    const calls: string[] = [];
    const refused = proofWith('right', calls).prove(fakeChecks(proofUser({ disabled: true }), calls));
    expect(await codeOf(refused)).toBe(ErrorCode.ACCOUNT_DISABLED);
  });
});
