import type { TestApp } from './test-app';

/** Defaults, setting group user_login_strategy. */
export const LOGIN_DEFAULTS = {
  sessionExpireMinutes: 30,
  tempSessionExpireMinutes: 5,
  lockMinutes: 1440,
  maxFailureTimes: 5,
  maxFailureInterval: 24,
  sendMsgWhenErrorLogin: '',
  sendMsgWhenErrorIp: '',
  loginStrategyWhenExpire: 3,
  bindIp: false,
  multiOnline: true,
  mfaMode: 0,
  sessionMaxHours: 0,
  maxSessionsPerUser: 0,
  reauthMinutes: 5,
  reauthForAdmin: false,
  passkeyLogin: true,
  otpLogin: false,
  mfaChannels: ['totp'] as string[],
  captchaUnderAttack: false,
  attackFailuresPerMinute: 300,
};

/** Defaults, setting group user_strategy. */
export const USER_DEFAULTS = {
  passwordExpireDays: 90,
  expireNotifyDays: 10,
  minPasswordLength: 6,
  maxPasswordLength: 20,
  includeLowerCase: true,
  includeUpperCase: false,
  includeNumber: true,
  includeSymbol: true,
  forceUpdatePassword: false,
  // The checks of a user's own change.
  passwordHistoryCount: 0,
  rejectCommonPasswords: false,
  rejectAccountInPassword: false,
  dormantDays: 0,
  selfServiceReset: false,
};

/** The complexity fields at their defaults. */
export const COMPLEXITY_DEFAULTS = {
  minPasswordLength: USER_DEFAULTS.minPasswordLength,
  maxPasswordLength: USER_DEFAULTS.maxPasswordLength,
  includeLowerCase: USER_DEFAULTS.includeLowerCase,
  includeUpperCase: USER_DEFAULTS.includeUpperCase,
  includeNumber: USER_DEFAULTS.includeNumber,
  includeSymbol: USER_DEFAULTS.includeSymbol,
};

/** What /sys/strategy/user/rules answers on a fresh start: the complexity fields and the own-change checks. */
export const PASSWORD_RULE_DEFAULTS = {
  ...COMPLEXITY_DEFAULTS,
  passwordHistoryCount: USER_DEFAULTS.passwordHistoryCount,
  rejectCommonPasswords: USER_DEFAULTS.rejectCommonPasswords,
  rejectAccountInPassword: USER_DEFAULTS.rejectAccountInPassword,
};

export type LoginSettings = typeof LOGIN_DEFAULTS;
export type UserSettings = typeof USER_DEFAULTS;

/** A whole login group: the defaults with `overrides`. */
export const loginSettings = (overrides: Partial<LoginSettings> = {}): LoginSettings => ({
  ...LOGIN_DEFAULTS,
  ...overrides,
});

/** A whole user group: the defaults with `overrides`. */
export const userSettings = (overrides: Partial<UserSettings> = {}): UserSettings => ({
  ...USER_DEFAULTS,
  ...overrides,
});

/**
 * Saves both groups whole (through the admin API, as an operator would): the defaults with
 * the given overrides, so that a test starts from the defaults whatever the one before changed.
 */
export async function saveSettings(
  app: TestApp,
  overrides: { login?: Partial<LoginSettings>; user?: Partial<UserSettings> } = {},
): Promise<void> {
  await app.saveLoginStrategy(loginSettings(overrides.login));
  await app.saveUserStrategy(userSettings(overrides.user));
}
