import { Logger } from '@nestjs/common';

import { codeOf } from '../../test/support/code-of';
import { FakeClock } from '../../test/support/fake-clock';
import { proofUser } from '../../test/support/login-checks';
import { unit } from '../../test/support/unit';
import type { AuditEntry } from '../audit/audit-log.service';
import type { LoginResult, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { LoginTypes } from '../login-log/login-log.entity';
import { hashToken } from '../session/session.service';
import { MemoryKvStore } from '../store/memory-kv.store';
import type { UserEntity } from '../user-account/user.entity';
import { QRCODE_TTL_MS, QrcodeService } from './qrcode.service';

describe('QrcodeService (a logged-in device authorises a login elsewhere with a one-time code)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let qrcode: QrcodeService;
  let user: UserEntity | null;
  /** The logins the tail completed, by the way in they came. */
  let logins: LoginWay[];
  let audited: AuditEntry[];
  let auditFails: boolean;

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    user = proofUser();
    logins = [];
    audited = [];
    auditFails = false;
    const account = async () => {
      if (!user) throw new AppException(ErrorCode.NOT_FOUND);
      return { ...user };
    };
    ({ service: qrcode } = await unit(QrcodeService, {
      KvStore: store,
      Clock: clock,
      UserLookup: { get: account, withPassword: account },
      LoginService: {
        complete: async (_u: UserEntity, way: LoginWay) => {
          logins.push(way);
          return { accessToken: `token-${logins.length}` } as LoginResult;
        },
      },
      AuditLogService: {
        record: async (e: AuditEntry) => {
          if (auditFails) throw Object.assign(new Error('db gone'), { code: 'ECONNRESET' });
          audited.push(e);
        },
      },
    }));
  });

  afterEach(() => store.close());

  it('logs in once with a code the device generated, and audits which session authorised which', async () => {
    const { code, expiresIn } = await qrcode.generate('u1', 'session-of-phone');
    expect(expiresIn).toBe(300);
    const result = await qrcode.verify(code, '10.0.0.2', 'desktop', 'zh');
    expect(result.accessToken).toBe('token-1');
    // The authorising device passed the second factor; the new place is not an unusual IP to warn of.
    expect(logins).toEqual([
      expect.objectContaining({
        loginType: LoginTypes.QRCODE,
        account: 'zhangsan',
        ip: '10.0.0.2',
        secondFactorProven: true,
        unusualIpCheck: false,
      }),
    ]);
    expect(audited).toEqual([
      {
        action: 'qrcode.authorize',
        actorId: 'u1',
        actorName: 'zhangsan',
        targetId: 'u1',
        targetName: 'zhangsan',
        ip: '10.0.0.2',
        detail: { authorizedBy: 'session-of-phone', session: hashToken('token-1') },
      },
    ]);
  });

  it('refuses a code used once already', async () => {
    const { code } = await qrcode.generate('u1', 'session-of-phone');
    await qrcode.verify(code, '10.0.0.2', 'desktop', 'zh');
    expect(await codeOf(qrcode.verify(code, '10.0.0.3', 'desktop', 'zh'))).toBe(ErrorCode.QRCODE_INVALID);
    expect(logins).toHaveLength(1);
  });

  it('lets only one of two verifies of the same code at once log in', async () => {
    const { code } = await qrcode.generate('u1', 'session-of-phone');
    const outcomes = await Promise.all([1, 2].map(() => codeOf(qrcode.verify(code, '10.0.0.2', 'desktop', 'zh'))));
    expect(outcomes.sort()).toEqual([ErrorCode.QRCODE_INVALID, 'ok'].sort());
    expect(logins).toHaveLength(1);
  });

  it('refuses a code after five minutes, and a code never generated', async () => {
    const { code } = await qrcode.generate('u1', 'session-of-phone');
    clock.advance(QRCODE_TTL_MS);
    expect(await codeOf(qrcode.verify(code, '10.0.0.2', 'desktop', 'zh'))).toBe(ErrorCode.QRCODE_INVALID);
    expect(await codeOf(qrcode.verify('not-a-code', '10.0.0.2', 'desktop', 'zh'))).toBe(ErrorCode.QRCODE_INVALID);
    expect(logins).toEqual([]);
  });

  it('refuses the code of a user deleted since it was generated', async () => {
    const { code } = await qrcode.generate('u1', 'session-of-phone');
    user = null;
    expect(await codeOf(qrcode.verify(code, '10.0.0.2', 'desktop', 'zh'))).toBe(ErrorCode.QRCODE_INVALID);
  });

  it('still logs in when the audit row cannot be written: the session exists already', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { code } = await qrcode.generate('u1', 'session-of-phone');
    auditFails = true;
    expect((await qrcode.verify(code, '10.0.0.2', 'desktop', 'zh')).accessToken).toBe('token-1');
    expect(logged).toHaveBeenCalledWith('could not audit the QR authorisation of user u1: ECONNRESET');
    logged.mockRestore();
  });
});
