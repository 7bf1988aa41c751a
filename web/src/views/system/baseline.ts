import type { LoginStrategy, UserStrategy } from '@/api/strategy';

import { type FieldDef, LOGIN_FIELDS, USER_FIELDS } from './strategy-fields';

/**
 * The recommended values for GB/T 22239-2019 (等保 2.0) level 3, mapped onto the strategy fields
 * (login, account, second factor, password screen). The one place these values live: the baseline button of the
 * strategy page reads them, and so does its browser test.
 *
 * Fields the baseline does not name keep their value (maxPasswordLength, tempSessionExpireMinutes,
 * notification channels, bindIp, multiOnline, maxSessionsPerUser, loginStrategyWhenExpire,
 * forceUpdatePassword).
 */
export const MLPS3_BASELINE: { login: Partial<LoginStrategy>; user: Partial<UserStrategy> } = {
  login: {
    // 30-minute sessions: the token's validity (renewed while in use) …
    sessionExpireMinutes: 30,
    // … and a 12-hour absolute lifetime however often it is renewed.
    sessionMaxHours: 12,
    // 5 wrong passwords within 24 hours lock the account for 30 minutes.
    maxFailureTimes: 5,
    maxFailureInterval: 24,
    lockMinutes: 30,
    // A second factor for everyone (users not enrolled yet enrol at their next login).
    mfaMode: 2,
    // Administrative changes need the password again when the last proof is older than reauthMinutes.
    reauthForAdmin: true,
  },
  user: {
    minPasswordLength: 8,
    // Three character classes. The strategy can only require each class, not "three of four", so the
    // baseline requires exactly three: the default trio (digit, lower case, special character).
    includeNumber: true,
    includeLowerCase: true,
    includeSymbol: true,
    includeUpperCase: false,
    // Expiry after 90 days, reminded 7 days before.
    passwordExpireDays: 90,
    expireNotifyDays: 7,
    // The last 5 passwords, the common list and the account name are refused on change.
    passwordHistoryCount: 5,
    rejectCommonPasswords: true,
    rejectAccountInPassword: true,
    // Accounts idle for 90 days are disabled.
    dormantDays: 90,
  },
};

export type Group = 'login' | 'user';

/** One field the baseline changes: its group, definition, the value saved now and the baseline's. */
export interface BaselineChange {
  group: Group;
  field: FieldDef;
  from: unknown;
  to: unknown;
}

const FIELDS: Record<Group, FieldDef[]> = { login: LOGIN_FIELDS, user: USER_FIELDS };

/**
 * The fields whose saved value differs from the baseline, in the order of the strategy page.
 * `current` holds the values the service answered (a field it does not report is undefined: it changes).
 */
export function baselineChanges(
  current: Record<Group, Record<string, unknown>>,
  groups: Group[] = ['login', 'user'],
): BaselineChange[] {
  const changes: BaselineChange[] = [];
  for (const group of groups) {
    const target = MLPS3_BASELINE[group] as Record<string, unknown>;
    for (const field of FIELDS[group]) {
      if (!(field.key in target)) continue;
      const from = current[group][field.key];
      const to = target[field.key];
      if (from !== to) changes.push({ group, field, from, to });
    }
  }
  return changes;
}
