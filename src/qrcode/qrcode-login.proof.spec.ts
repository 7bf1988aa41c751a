import { codeOf } from '../../test/support/code-of';
import { fakeChecks, proofUser } from '../../test/support/login-checks';
import type { LoginWay } from '../auth/login/login.service';
import type { Session } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { LoginTypes } from '../login-log/login-log.entity';
import { credentialStamp } from '../user-account/credential-stamp';
import { GrantOrigin, QrcodeLoginProof } from './qrcode-login.proof';

describe('QrcodeLoginProof (the QR way in, inside the tail)', () => {
  const user = proofUser();
  const origin: GrantOrigin = {
    tokenHash: 'th-origin',
    credentialStamp: credentialStamp(user.password),
    username: user.username,
  };
  const session = (over: Partial<Session> = {}): Session =>
    ({ userId: 'u1', temp: 0, kickout: 0, ip: '10.0.0.1', loginTime: 1_000, expireAt: 9_999_999, ...over }) as Session;
  const wayOf = (): LoginWay => ({
    loginType: LoginTypes.QRCODE,
    account: 'zhangsan',
    ip: '10.0.0.2',
    userAgent: 'jest',
    locale: 'en',
    unusualIpCheck: false,
  });
  const proofWith = (found: Session | null, way = wayOf()) =>
    new QrcodeLoginProof(
      { byTokenId: async (hash: string) => (hash === origin.tokenHash ? found : null) },
      origin,
      way,
    );

  it('is named', () => {
    expect(proofWith(session()).name).toBe('qrcode');
  });

  it('accepts a code whose generating session is alive, continues its chain, then checks disabled and locked in that order', async () => {
    const calls: string[] = [];
    const way = wayOf();
    await proofWith(session({ originTime: 500 }), way).prove(fakeChecks(user, calls));
    expect(way.originTime).toBe(500);
    expect(calls).toEqual(['checkDisabled', 'checkLock']);
  });

  it("counts the chain from the generating session's own login when it began none", async () => {
    const way = wayOf();
    await proofWith(session(), way).prove(fakeChecks(user));
    expect(way.originTime).toBe(1_000);
  });

  it.each([
    ['the generating session has ended', null],
    ['it was kicked out', session({ kickout: 1 })],
    ['it belongs to another user', session({ userId: 'u2' })],
  ])('refuses the code as invalid when %s, before any account check', async (_case, found) => {
    const calls: string[] = [];
    expect(await codeOf(proofWith(found).prove(fakeChecks(user, calls)))).toBe(ErrorCode.QRCODE_INVALID);
    expect(calls).toEqual([]);
  });

  it('refuses the code as invalid when the password changed since it was made', async () => {
    const calls: string[] = [];
    expect(await codeOf(proofWith(session()).prove(fakeChecks(proofUser({ password: 'hash:New-pass1' }), calls)))).toBe(
      ErrorCode.QRCODE_INVALID,
    );
    expect(calls).toEqual([]);
  });

  it('answers a disabled account before a locked one', async () => {
    expect(await codeOf(proofWith(session()).prove(fakeChecks(proofUser({ disabled: true, locked: true }))))).toBe(
      ErrorCode.ACCOUNT_DISABLED,
    );
    expect(await codeOf(proofWith(session()).prove(fakeChecks(proofUser({ locked: true }))))).toBe(
      ErrorCode.ACCOUNT_LOCKED,
    );
  });
});
