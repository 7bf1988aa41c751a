import type { LoginStrategy, UserStrategy } from '../strategy/strategy.types';

/**
 * The recommended strategy values for GB/T 22239-2019 (等保 2.0) level 3: the one place they live.
 * The baseline dialog of the strategy page reads them (POST /sys/compliance/controls), the dashboard
 * lists the fields whose saved value differs. Fields not named keep their value (maxPasswordLength,
 * tempSessionExpireMinutes, notification channels, bindIp, multiOnline, maxSessionsPerUser,
 * loginStrategyWhenExpire).
 */
export const MLPS3_BASELINE: { login: Partial<LoginStrategy>; user: Partial<UserStrategy> } = {
  login: {
    // 30-minute sessions (renewed while in use) and a 12-hour absolute lifetime however often renewed.
    sessionExpireMinutes: 30,
    sessionMaxHours: 12,
    // 5 wrong passwords within 24 hours lock the account for 30 minutes.
    maxFailureTimes: 5,
    maxFailureInterval: 24,
    lockMinutes: 30,
    // A second factor for everyone (users not enrolled yet enrol at their next login).
    mfaMode: 2,
    // Administrative changes need the password again when the last proof is older than reauthMinutes.
    reauthForAdmin: true,
    // A captcha for every login while failed logins across the service reach attackFailuresPerMinute.
    captchaUnderAttack: true,
  },
  user: {
    minPasswordLength: 8,
    // Three character classes: the strategy can only require each class, not "three of four", so the
    // baseline requires exactly three, the default trio (digit, lower case, special character).
    includeNumber: true,
    includeLowerCase: true,
    includeSymbol: true,
    includeUpperCase: false,
    // Expiry after 90 days, reminded 7 days before.
    passwordExpireDays: 90,
    expireNotifyDays: 7,
    // The last 5 passwords, the common list and the account name are refused on change.
    passwordHistoryCount: 5,
    // Initial passwords (created, imported, reset, the first start's) are changed at their first login.
    forceUpdatePassword: true,
    rejectCommonPasswords: true,
    rejectAccountInPassword: true,
    // Accounts idle for 90 days are disabled.
    dormantDays: 90,
  },
};

/** The baseline's fields whose value in `current` differs, in the baseline's order. */
export function baselineGaps(
  group: keyof typeof MLPS3_BASELINE,
  current: object,
): { field: string; expected: unknown; actual: unknown }[] {
  return Object.entries(MLPS3_BASELINE[group])
    .filter(([field, expected]) => (current as Record<string, unknown>)[field] !== expected)
    .map(([field, expected]) => ({ field, expected, actual: (current as Record<string, unknown>)[field] ?? null }));
}
