import type { TipKey } from '../../common/error-code';
import {
  LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE,
  LOGIN_STRATEGY_WHEN_EXPIRE_FORCE,
  LoginStrategy,
  UserStrategy,
} from '../../strategy/strategy.types';
import { DAY_MS, passwordExpiresAt } from '../../user-account/password-expiry';
import type { UserEntity } from '../../user-account/user.entity';

/**
 * The rules of login steps 6, 7 and 10 (numbered as in LoginService) as pure functions: what the
 * step decides from what the login tail read. No I/O, so each is specified alone
 * (login-steps.spec.ts); LoginService reads, writes and runs them in their order.
 */

/** What the token will be and what the client is told: steps 6 and 7 shape it, step 9 issues it. */
export interface Outcome {
  temp: boolean;
  tip: TipKey | null;
  tipParams?: Record<string, number>;
}

export const UNUSUAL_IP_SAMPLE = 3;

/**
 * Step 6: expired when now is later than (last change or creation) + passwordExpireDays;
 * then refused, forced to change (temporary token) or told, by loginStrategyWhenExpire. Not yet
 * expired but within expireNotifyDays: told how many days are left.
 */
export function passwordExpiryStep(
  user: Pick<UserEntity, 'passwordUpdateTime' | 'createTime'>,
  settings: {
    account: Pick<UserStrategy, 'passwordExpireDays' | 'expireNotifyDays'>;
    login: Pick<LoginStrategy, 'loginStrategyWhenExpire'>;
  },
  now: Date,
  outcome: Outcome,
): 'refuse' | Outcome {
  const expiry = passwordExpiresAt(user, settings.account.passwordExpireDays);
  if (!expiry) return outcome;
  const left = expiry.getTime() - now.getTime();
  if (left < 0) {
    switch (settings.login.loginStrategyWhenExpire) {
      case LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE:
        return 'refuse';
      case LOGIN_STRATEGY_WHEN_EXPIRE_FORCE:
        return { temp: true, tip: 'PASSWORD_EXPIRED_FORCE' };
      default:
        return { ...outcome, tip: 'PASSWORD_EXPIRED_TIP', tipParams: undefined };
    }
  }
  const notifyDays = settings.account.expireNotifyDays;
  if (notifyDays > 0 && left <= notifyDays * DAY_MS) {
    return { ...outcome, tip: 'PASSWORD_EXPIRES_SOON', tipParams: { days: Math.ceil(left / DAY_MS) } };
  }
  return outcome;
}

/**
 * Step 7: an initial password (password_update_time empty) is forced to change (temporary token)
 * or only told; a temporary token already demanded by expiry keeps its stronger tip.
 */
export function firstLoginStep(
  user: Pick<UserEntity, 'passwordUpdateTime'>,
  account: Pick<UserStrategy, 'forceUpdatePassword'>,
  outcome: Outcome,
): Outcome {
  if (user.passwordUpdateTime !== null) return outcome;
  if (account.forceUpdatePassword) return { temp: true, tip: 'INITIAL_PASSWORD_FORCE' };
  if (outcome.temp) return outcome;
  return { temp: false, tip: 'INITIAL_PASSWORD_TIP' };
}

/** Step 10: at least 3 earlier successful logins (the latest 3 given) and none of them from this IP. */
export function isUnusualIp(latestSuccessIps: string[], ip: string): boolean {
  return latestSuccessIps.length >= UNUSUAL_IP_SAMPLE && !latestSuccessIps.includes(ip);
}
