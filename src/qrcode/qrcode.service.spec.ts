import { AppException } from '../common/app.exception';
import { FakeClock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { SessionService } from '../auth/session/session.service';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginAttempt, LoginLogService } from '../login-log/login-log.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { MemoryKvStore } from '../store/memory-kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { RoleService } from '../user-account/role.service';
import { UserAccountService } from '../user-account/user-account.service';
import { UserEntity } from '../user-account/user.entity';
import { QrcodeService } from './qrcode.service';

const USER_ID = '00000000-0000-4000-8000-000000000001';
const ticks = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** The account as the database holds it; get() returns a copy, as a repository would. */
class FakeAccounts {
  row: Partial<UserEntity> = { id: USER_ID, username: 'qr-user', name: 'QR User', disabled: false, locked: false, unlockTime: null };
  failGet: unknown = null;
  async get(id: string) {
    if (this.failGet) throw this.failGet;
    if (id !== this.row.id) throw new AppException(ErrorCode.NOT_FOUND);
    return { ...this.row } as UserEntity;
  }
  async stillLocked(user: UserEntity) {
    return Boolean(user.locked);
  }
}

describe('QrcodeService.verify (spec 4.4, contract §5)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let mutex: KeyedMutex;
  let accounts: FakeAccounts;
  let logRows: LoginAttempt[];
  let failLog: boolean;
  let sessions: SessionService;
  let service: QrcodeService;

  beforeEach(() => {
    clock = new FakeClock(new Date('2025-01-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    mutex = new KeyedMutex(store);
    accounts = new FakeAccounts();
    logRows = [];
    failLog = false;
    const strategy = { loginStrategy: async () => ({ multiOnline: true, sessionExpireMinutes: 30, tempSessionExpireMinutes: 5 }) };
    sessions = new SessionService(store, clock, strategy as unknown as StrategyService);
    const logs = {
      record: async (a: LoginAttempt) => {
        if (failLog) throw Object.assign(new Error('connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
        logRows.push(a);
      },
    };
    const roles = { permissionsOf: async () => [] };
    service = new QrcodeService(
      store, accounts as unknown as UserAccountService, roles as unknown as RoleService, sessions,
      strategy as unknown as StrategyService, logs as unknown as LoginLogService, mutex,
    );
  });

  afterEach(() => store.close());

  it('an administrator lock that holds the account\'s login mutex is seen: no token for a locked user', async () => {
    const { code } = await service.generate(USER_ID);
    let verifying!: Promise<unknown>;
    // The administrator's lock runs under the login mutex (UserAccountService.lock); a verify that
    // arrives meanwhile must wait for it rather than check the account just before it changes.
    await mutex.run(Keys.loginMutex(USER_ID), async () => {
      verifying = service.verify(code, '10.0.0.1', 'jest').catch((e: unknown) => e);
      await ticks();
      accounts.row.locked = true;
      accounts.row.unlockTime = new Date(clock.nowMs() + 60_000);
      await sessions.endAll(USER_ID);
    });
    const outcome = await verifying;
    expect(outcome).toBeInstanceOf(AppException);
    expect((outcome as AppException).code).toBe(ErrorCode.ACCOUNT_LOCKED);
    expect(await store.sMembers(Keys.userTokens(USER_ID))).toEqual([]);
    expect(logRows.map((r) => [r.loginType, r.status])).toEqual([[LoginTypes.QRCODE, LoginStatus.LOCKED]]);
  });

  it('a token whose success row cannot be written is ended, not left live', async () => {
    const { code } = await service.generate(USER_ID);
    failLog = true;
    await expect(service.verify(code, '10.0.0.1', 'jest')).rejects.toMatchObject({ code: 'PROTOCOL_CONNECTION_LOST' });
    expect(await store.sMembers(Keys.userTokens(USER_ID))).toEqual([]);
    expect(await sessions.sessionsOf(USER_ID)).toEqual([]);
  });

  it('a database that is away stays an outage (503), not QRCODE_INVALID; a deleted user is QRCODE_INVALID', async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    accounts.failGet = outage;
    const first = await service.generate(USER_ID);
    await expect(service.verify(first.code, '10.0.0.1', 'jest')).rejects.toBe(outage);

    accounts.failGet = null;
    accounts.row.id = 'someone-else';
    const second = await service.generate(USER_ID);
    await expect(service.verify(second.code, '10.0.0.1', 'jest')).rejects.toMatchObject({ code: ErrorCode.QRCODE_INVALID });
  });

  it('a success is logged with login type qrcode after the token is stored', async () => {
    const { code } = await service.generate(USER_ID);
    const result = await service.verify(code, '10.0.0.1', 'jest');
    expect(result).toMatchObject({ accessToken: expect.any(String), tempUser: false, forceUpdatePassword: false, tip: '' });
    expect((await sessions.resolve(result.accessToken)).session.userId).toBe(USER_ID);
    expect(logRows).toEqual([expect.objectContaining({ userId: USER_ID, loginType: LoginTypes.QRCODE, status: LoginStatus.SUCCESS })]);
    await expect(service.verify(code, '10.0.0.1', 'jest')).rejects.toMatchObject({ code: ErrorCode.QRCODE_INVALID });
  });
});
