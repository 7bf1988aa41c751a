import { type Bilingual, bilingual } from '../common/texts';
import { LoginTypes } from '../login-log/login-log.entity';

/** Wrong password → login account, attempted IP and time, the abnormal-login hint. */
export class LoginFailedEvent {
  static readonly NAME = 'auth.login-failed';
  readonly hint: Bilingual;
  constructor(
    readonly userId: string,
    readonly account: string,
    readonly loginType: LoginTypes,
    readonly ip: string,
    readonly time: Date,
    /** A wrong second-factor code is told as such. */
    wrongCode = false,
    /** Set when this failure locked the account: when the lock ends. */
    readonly lockedUntil?: Date,
  ) {
    this.hint = bilingual(wrongCode ? 'notification.wrongCodeHint' : 'notification.wrongPasswordHint');
  }
}

/** Why an account was locked (lps_account_locks_total{reason}). */
export const LOCK_REASONS = ['failures', 'admin'] as const;
export type LockReason = (typeof LOCK_REASONS)[number];

/** An account was locked, by its failures or by an administrator. */
export class AccountLockedEvent {
  static readonly NAME = 'account.locked';
  constructor(
    readonly userId: string,
    readonly reason: LockReason,
  ) {}
}

/** A user changed their own password (not an administrator's reset, which the audit log records). */
export class PasswordChangedEvent {
  static readonly NAME = 'account.password-changed';
  constructor(
    readonly userId: string,
    readonly username: string,
    readonly ip: string,
    readonly time: Date,
  ) {}
}

/**
 * A generated initial password for a user made by /sys/user/import: told to the user alone, by
 * e-mail and SMS (whichever the user has), never answered to the administrator.
 */
export class InitialPasswordIssuedEvent {
  static readonly NAME = 'account.initial-password';
  constructor(
    readonly userId: string,
    readonly account: string,
    readonly password: string,
    readonly channels: ('email' | 'sms')[],
  ) {}
}
