import {
  LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE,
  LOGIN_STRATEGY_WHEN_EXPIRE_FORCE,
  LOGIN_STRATEGY_WHEN_EXPIRE_TIP,
} from '../../strategy/strategy.types';
import { firstLoginStep, isUnusualIp, Outcome, passwordExpiryStep } from './login-steps';

const DAY = 86_400_000;
const created = new Date('2026-01-01T00:00:00Z');
const plain: Outcome = { temp: false, tip: null };
const settings = (passwordExpireDays: number, expireNotifyDays: number, loginStrategyWhenExpire: 1 | 2 | 3) => ({
  account: { passwordExpireDays, expireNotifyDays },
  login: { loginStrategyWhenExpire },
});
const at = (ms: number) => new Date(created.getTime() + ms);

describe('step 6: password expiry', () => {
  const changed = { passwordUpdateTime: created, createTime: new Date('2025-01-01T00:00:00Z') };

  it('is not expired at exactly last change + passwordExpireDays ("later than"), expired 1 ms after', () => {
    expect(
      passwordExpiryStep(changed, settings(90, 0, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), at(90 * DAY), plain),
    ).toEqual(plain);
    expect(
      passwordExpiryStep(changed, settings(90, 0, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), at(90 * DAY + 1), plain),
    ).toBe('refuse');
  });

  it('once expired: refuses, forces a temporary token, or only tells, by loginStrategyWhenExpire', () => {
    const later = at(91 * DAY);
    expect(passwordExpiryStep(changed, settings(90, 10, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), later, plain)).toBe(
      'refuse',
    );
    expect(passwordExpiryStep(changed, settings(90, 10, LOGIN_STRATEGY_WHEN_EXPIRE_FORCE), later, plain)).toEqual({
      temp: true,
      tip: 'PASSWORD_EXPIRED_FORCE',
    });
    expect(passwordExpiryStep(changed, settings(90, 10, LOGIN_STRATEGY_WHEN_EXPIRE_TIP), later, plain)).toEqual({
      temp: false,
      tip: 'PASSWORD_EXPIRED_TIP',
      tipParams: undefined,
    });
  });

  it('counts from creation while the password is the initial one', () => {
    const initial = { passwordUpdateTime: null, createTime: created };
    expect(
      passwordExpiryStep(initial, settings(30, 0, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), at(30 * DAY + 1), plain),
    ).toBe('refuse');
    expect(
      passwordExpiryStep(initial, settings(30, 0, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), at(30 * DAY), plain),
    ).toEqual(plain);
  });

  it('tells the days left within expireNotifyDays, rounded up, and nothing one ms before the window', () => {
    const s = settings(90, 10, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE);
    expect(passwordExpiryStep(changed, s, at(80 * DAY - 1), plain)).toEqual(plain);
    expect(passwordExpiryStep(changed, s, at(80 * DAY), plain)).toEqual({
      temp: false,
      tip: 'PASSWORD_EXPIRES_SOON',
      tipParams: { days: 10 },
    });
    expect(passwordExpiryStep(changed, s, at(89 * DAY + 1), plain)).toEqual({
      temp: false,
      tip: 'PASSWORD_EXPIRES_SOON',
      tipParams: { days: 1 },
    });
    expect(passwordExpiryStep(changed, s, at(90 * DAY), plain)).toEqual({
      temp: false,
      tip: 'PASSWORD_EXPIRES_SOON',
      tipParams: { days: 0 },
    });
  });

  it('never expires with passwordExpireDays = 0, and never tells with expireNotifyDays = 0', () => {
    expect(
      passwordExpiryStep(changed, settings(0, 10, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), at(5000 * DAY), plain),
    ).toEqual(plain);
    expect(
      passwordExpiryStep(changed, settings(90, 0, LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE), at(89 * DAY), plain),
    ).toEqual(plain);
  });
});

describe('step 7: first login (initial password)', () => {
  const initial = { passwordUpdateTime: null };

  it('forces a temporary token when forceUpdatePassword, else only tells', () => {
    expect(firstLoginStep(initial, { forceUpdatePassword: true }, plain)).toEqual({
      temp: true,
      tip: 'INITIAL_PASSWORD_FORCE',
    });
    expect(firstLoginStep(initial, { forceUpdatePassword: false }, plain)).toEqual({
      temp: false,
      tip: 'INITIAL_PASSWORD_TIP',
    });
  });

  it('replaces a softer expiry tip, but keeps the temporary token an expiry already demanded', () => {
    const soon: Outcome = { temp: false, tip: 'PASSWORD_EXPIRES_SOON', tipParams: { days: 3 } };
    expect(firstLoginStep(initial, { forceUpdatePassword: false }, soon)).toEqual({
      temp: false,
      tip: 'INITIAL_PASSWORD_TIP',
    });
    const forced: Outcome = { temp: true, tip: 'PASSWORD_EXPIRED_FORCE' };
    expect(firstLoginStep(initial, { forceUpdatePassword: false }, forced)).toBe(forced);
  });

  it('does nothing once the password has been changed', () => {
    expect(firstLoginStep({ passwordUpdateTime: created }, { forceUpdatePassword: true }, plain)).toBe(plain);
  });
});

describe('step 10: unusual IP', () => {
  it('needs 3 earlier successful logins, none from this IP', () => {
    expect(isUnusualIp(['1.1.1.1', '2.2.2.2', '3.3.3.3'], '4.4.4.4')).toBe(true);
    expect(isUnusualIp(['1.1.1.1', '2.2.2.2', '3.3.3.3'], '3.3.3.3')).toBe(false);
    expect(isUnusualIp(['1.1.1.1', '2.2.2.2'], '4.4.4.4')).toBe(false);
    expect(isUnusualIp([], '4.4.4.4')).toBe(false);
  });
});
