import { EventEmitter2 } from '@nestjs/event-emitter';

import { FakeClock } from '../../test/support/fake-clock';
import { InMemoryLoginLogRepository } from '../../test/support/in-memory';
import { proofUser } from '../../test/support/login-checks';
import { unit } from '../../test/support/unit';
import { ErrorCode } from '../common/error-code';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { MemoryKvStore } from '../store/memory-kv.store';
import { LoginStrategy } from '../strategy/strategy.types';
import { LoginFailedEvent } from './account.events';
import { CompareSlot, CompareSlots } from './compare-slots';
import { LockoutService, WrongPassword } from './lockout.service';
import { UserEntity } from './user.entity';

describe('LockoutService (wrong passwords counted in the window, the lock, compare slots)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let slots: CompareSlots;
  let rows: InMemoryLoginLogRepository;
  let lockout: LockoutService;
  let user: UserEntity;
  let notices: LoginFailedEvent[];
  /** The accounts locked by failures, with the count that locked each. */
  let locked: { userId: string; failures: number }[];
  let policy: LoginStrategy;
  const held: CompareSlot[] = [];

  const wrong = (over: Partial<WrongPassword> = {}): WrongPassword => ({
    user,
    account: 'zhangsan',
    loginType: LoginTypes.ACCOUNT,
    ip: '10.0.0.1',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36',
    reason: ErrorCode.BAD_CREDENTIALS,
    ...over,
  });
  const lockUntil = () => new Date(clock.nowMs() + policy.lockMinutes * 60_000);

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    slots = new CompareSlots(store);
    rows = new InMemoryLoginLogRepository();
    user = proofUser();
    notices = [];
    locked = [];
    policy = Object.assign(new LoginStrategy(), { maxFailureTimes: 5, maxFailureInterval: 24, lockMinutes: 30 });
    const events = new EventEmitter2();
    events.on(LoginFailedEvent.NAME, (e: LoginFailedEvent) => notices.push(e));
    const { service: logs } = await unit(LoginLogService, {
      LoginLogRepository: rows,
      Clock: clock,
      EventEmitter2: new EventEmitter2(),
    });
    ({ service: lockout } = await unit(LockoutService, {
      LoginLogService: logs,
      AccountStateService: {
        lockAfterFailures: async (u: UserEntity, failures: number) => {
          locked.push({ userId: u.id, failures });
          return lockUntil();
        },
      },
      StrategyService: { loginStrategy: async () => policy },
      EventEmitter2: events,
      Clock: clock,
      CompareSlots: slots,
    }));
  });

  afterEach(async () => {
    await Promise.all(held.splice(0).map((s) => s.release()));
    await store.close();
  });

  it('logs a wrong password as passwrong with the answer the client got, and notifies the owner without a lock', async () => {
    expect(await lockout.recordWrongPassword(wrong())).toBe(false);
    expect(rows.rows).toMatchObject([
      { userId: 'u1', account: 'zhangsan', status: LoginStatus.PASSWRONG, failureCode: ErrorCode.BAD_CREDENTIALS },
    ]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ userId: 'u1', account: 'zhangsan', ip: '10.0.0.1', lockedUntil: undefined });
    expect(locked).toEqual([]);
  });

  it('locks at the fifth wrong password in the window, and that notice says until when', async () => {
    const outcomes: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push(await lockout.recordWrongPassword(wrong()));
      clock.advanceMinutes(1);
    }
    expect(outcomes).toEqual([false, false, false, false, true]);
    expect(locked).toEqual([{ userId: 'u1', failures: 5 }]);
    expect(notices.map((n) => n.lockedUntil?.toISOString())).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      new Date(Date.parse('2025-06-01T00:04:00Z') + 30 * 60_000).toISOString(),
    ]);
    // The failure that locked shows as the lock in the login log; the others keep their answer.
    expect(rows.rows.map((r) => r.failureCode)).toEqual([
      ErrorCode.BAD_CREDENTIALS,
      ErrorCode.BAD_CREDENTIALS,
      ErrorCode.BAD_CREDENTIALS,
      ErrorCode.BAD_CREDENTIALS,
      ErrorCode.ACCOUNT_LOCKED,
    ]);
  });

  it('does not lock when the earlier failures fell out of the window (maxFailureInterval hours)', async () => {
    for (let i = 0; i < 4; i++) await lockout.recordWrongPassword(wrong());
    clock.advance(24 * 3_600_000 + 1);
    expect(await lockout.recordWrongPassword(wrong())).toBe(false);
    expect(locked).toEqual([]);
  });

  it('counts only failures after the last failure reset (an unlock, a password reset)', async () => {
    for (let i = 0; i < 4; i++) await lockout.recordWrongPassword(wrong());
    clock.advanceMinutes(1);
    user = proofUser({ failureResetTime: clock.now() });
    expect(await lockout.recordWrongPassword(wrong())).toBe(false);
    expect(locked).toEqual([]);
  });

  it('counts a wrong second-factor code toward the same lock, and tells it as a wrong code', async () => {
    for (let i = 0; i < 4; i++) await lockout.recordWrongPassword(wrong());
    expect(await lockout.recordFailure({ ...wrong(), status: LoginStatus.MFAWRONG })).toBe(true);
    expect(rows.rows[4].status).toBe(LoginStatus.MFAWRONG);
    expect(notices[4].hint).not.toEqual(notices[0].hint);
    expect(notices[4].lockedUntil).toEqual(lockUntil());
  });

  it('follows a lowered maxFailureTimes at once', async () => {
    policy.maxFailureTimes = 2;
    expect(await lockout.recordWrongPassword(wrong())).toBe(false);
    expect(await lockout.recordWrongPassword(wrong())).toBe(true);
  });

  it('gives a compare slot while failures and compares in flight leave room, and none once they fill it', async () => {
    for (let i = 0; i < 3; i++) await lockout.recordWrongPassword(wrong());
    // Five allowed, three counted: two compares may run at once, a third waits.
    for (let inFlight = 0; inFlight < 2; inFlight++) {
      const slot = await lockout.reserveCompare(user, await slots.held('u1'));
      expect(slot).not.toBeNull();
      held.push(slot!);
    }
    expect(await lockout.reserveCompare(user, await slots.held('u1'))).toBeNull();
    await held.pop()!.release();
    const again = await lockout.reserveCompare(user, await slots.held('u1'));
    expect(again).not.toBeNull();
    held.push(again!);
  });

  it('gives no slot while maxFailureTimes compares are in flight, whatever the count', async () => {
    expect(await lockout.reserveCompare(user, 5)).toBeNull();
    expect(await slots.held('u1')).toBe(0);
  });

  it('lets one compare at a time run when the count reached the limit without a lock (the limit was lowered)', async () => {
    for (let i = 0; i < 3; i++) await lockout.recordWrongPassword(wrong());
    policy.maxFailureTimes = 2;
    const slot = await lockout.reserveCompare(user, 0);
    expect(slot).not.toBeNull();
    held.push(slot!);
    expect(await lockout.reserveCompare(user, 1)).toBeNull();
  });
});
