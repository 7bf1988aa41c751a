/** Setting group `user_login_strategy`. */
export class LoginStrategy {
  sessionExpireMinutes = 30;
  tempSessionExpireMinutes = 5;
  lockMinutes = 1440;
  maxFailureTimes = 5;
  maxFailureInterval = 24;
  sendMsgWhenErrorLogin = '';
  sendMsgWhenErrorIp = '';
  loginStrategyWhenExpire: LoginStrategyWhenExpire = 3;
  bindIp = false;
  multiOnline = true;
  /** 0 off, 1 enrolled users give a TOTP code, 2 every user must enrol. */
  mfaMode: MfaMode = 0;
  /** Absolute lifetime of a session, hours after its login; 0 = no limit. */
  sessionMaxHours = 0;
  /** With multiOnline, at most this many live sessions per user (the oldest are kicked out); 0 = no limit. */
  maxSessionsPerUser = 0;
  /** Minutes a password login or /sys/me/reauth counts as a fresh proof. */
  reauthMinutes = 5;
  /** Operations needing a permission code other than a list / info one need a fresh proof too. */
  reauthForAdmin = false;
  /** Passwordless login with a passkey (/sys/login/passkey/*); a passkey as second factor does not depend on it. */
  passkeyLogin = true;
  /** POST /sys/login/otp: logging in with a code sent by SMS or e-mail. */
  otpLogin = false;
  /** What may finish /sys/login/mfa: a TOTP (or recovery) code, a code sent by SMS, by e-mail. */
  mfaChannels: MfaChannel[] = ['totp'];
  /** Every login needs a captcha while failed logins across the service reach attackFailuresPerMinute. */
  captchaUnderAttack = false;
  /** Failed logins a minute, across the service, that start the adaptive captcha. */
  attackFailuresPerMinute = 300;
}

export const MFA_CHANNELS = ['totp', 'sms', 'email'] as const;
export type MfaChannel = (typeof MFA_CHANNELS)[number];

/** Setting group `user_strategy`. */
export class UserStrategy {
  passwordExpireDays = 90;
  expireNotifyDays = 10;
  minPasswordLength = 6;
  maxPasswordLength = 20;
  includeLowerCase = true;
  includeUpperCase = false;
  includeNumber = true;
  includeSymbol = true;
  forceUpdatePassword = false;
  /** A user's own new password may not equal any of their last N, the current one included; 0 off. */
  passwordHistoryCount = 0;
  /** Refuse a password on the bundled common-password list (case-insensitive). */
  rejectCommonPasswords = false;
  /** Refuse a password containing the user name, mobile or e-mail local part (≥ 3 characters). */
  rejectAccountInPassword = false;
  /** Disable accounts with no successful login for this many days (a daily job); 0 never. */
  dormantDays = 0;
  /** /sys/password/forgot and /sys/password/reset: a forgotten password reset with a code sent by SMS or e-mail. */
  selfServiceReset = false;
}

export const LOGIN_STRATEGY_WHEN_EXPIRE_TIP = 1;
export const LOGIN_STRATEGY_WHEN_EXPIRE_FORCE = 2;
export const LOGIN_STRATEGY_WHEN_EXPIRE_DISABLE = 3;
export type LoginStrategyWhenExpire = 1 | 2 | 3;
export type MfaMode = 0 | 1 | 2;
export const MFA_MODE_ENROLLED = 1;
export const MFA_MODE_REQUIRED = 2;

export enum StrategyGroup {
  LOGIN = 'user_login_strategy',
  USER = 'user_strategy',
}

/** The six complexity rules, what the complexity check and the password generator read. */
export type ComplexityRules = Pick<
  UserStrategy,
  | 'minPasswordLength'
  | 'maxPasswordLength'
  | 'includeLowerCase'
  | 'includeUpperCase'
  | 'includeNumber'
  | 'includeSymbol'
>;

/** The checks of a user's own change (history, common list, account), after the six rules. */
export type OwnChangeRules = Pick<
  UserStrategy,
  'passwordHistoryCount' | 'rejectCommonPasswords' | 'rejectAccountInPassword'
>;

/** What /sys/strategy/user/rules answers (with the own-change fields added). */
export type PasswordRules = ComplexityRules & OwnChangeRules;

export const NOTIFY_CHANNELS = ['email', 'sms', 'site'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

export function channelsOf(value: string): NotifyChannel[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is NotifyChannel => (NOTIFY_CHANNELS as readonly string[]).includes(s));
}

/**
 * A group of settings that SYS_PROPS_CHANGED announces: the two strategy groups, or a group another
 * module keeps in a process cache of its own (the login access rules, `sys_access_rule`). A name of
 * lower-case letters and `_`, so that a message on the channel is never read as anything else.
 */
export type PropsGroup = StrategyGroup | (string & {});

export const isPropsGroup = (value: string): boolean => /^[a-z_]{1,64}$/.test(value);

export const isStrategyGroup = (group: string): group is StrategyGroup =>
  (Object.values(StrategyGroup) as string[]).includes(group);

/**
 * Emitted locally after a save, and for saves other instances announce on SYS_PROPS_CHANGED.
 * StrategyService carries every local one to the other instances and every remote one to this
 * instance's listeners, whatever module owns the group.
 */
export class SysPropsChangedEvent {
  static readonly NAME = 'sys-props.changed';
  constructor(
    readonly group: PropsGroup,
    readonly remote = false,
  ) {}
}
