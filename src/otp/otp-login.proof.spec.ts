import { fakeChecks, proofUser } from '../../test/support/login-checks';
import type { LoginWay } from '../auth/login/login.service';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import type { LockoutService, WrongProof } from '../user-account/lockout.service';
import type { CodeVerdict, OtpCodes } from './otp-codes';
import { OtpLoginProof } from './otp-login.proof';

/** The order of the code way in: the lock before the code, the code, then the disabled check. */
describe('OtpLoginProof', () => {
  const way = (): LoginWay => ({
    loginType: LoginTypes.SMSCODE,
    account: 'zhangsan',
    ip: '10.0.0.1',
    userAgent: 'ua',
    locale: 'zh',
    unusualIpCheck: true,
  });
  const codesAnswering = (verdict: CodeVerdict, calls: string[]) =>
    ({
      check: async () => {
        calls.push('check');
        return verdict;
      },
    }) as unknown as OtpCodes;
  const lockout = (failures: WrongProof[]) =>
    ({
      recordFailure: async (w: WrongProof) => {
        failures.push(w);
        return false;
      },
    }) as unknown as LockoutService;

  it('a locked account is refused before its code is looked at', async () => {
    const calls: string[] = [];
    const proof = new OtpLoginProof(
      codesAnswering({ right: true, channel: 'sms' }, calls),
      lockout([]),
      way(),
      '123456',
    );
    await expect(proof.prove(fakeChecks(proofUser({ locked: true }), calls))).rejects.toMatchObject({
      code: 'ACCOUNT_LOCKED',
    });
    expect(calls).toEqual(['checkLock']);
  });

  it('a wrong code is counted as passwrong with the channel’s login type; a disabled account is not told apart', async () => {
    const calls: string[] = [];
    const failures: WrongProof[] = [];
    const w = way();
    const proof = new OtpLoginProof(
      codesAnswering({ right: false, channel: 'email' }, calls),
      lockout(failures),
      w,
      '123456',
    );
    await expect(proof.prove(fakeChecks(proofUser({ disabled: true }), calls))).rejects.toMatchObject({
      code: 'MFA_CODE_INVALID',
    });
    expect(calls).toEqual(['checkLock', 'check']);
    expect(failures).toEqual([
      expect.objectContaining({ status: LoginStatus.PASSWRONG, loginType: LoginTypes.EMAILCODE }),
    ]);
  });

  it('a right code, then the disabled check', async () => {
    const calls: string[] = [];
    const w = way();
    const proof = new OtpLoginProof(codesAnswering({ right: true, channel: 'email' }, calls), lockout([]), w, '123456');
    await expect(proof.prove(fakeChecks(proofUser({ disabled: true }), calls))).rejects.toMatchObject({
      code: 'ACCOUNT_DISABLED',
    });
    expect(calls).toEqual(['checkLock', 'check', 'checkDisabled']);
    expect(w.loginType).toBe(LoginTypes.EMAILCODE);
  });
});
