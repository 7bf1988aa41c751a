import { ExtensionPoint } from '../common/extension-point';
import type { Bilingual } from '../common/texts';
/** What a notification is about; stored in sys_notification.kind and sys_message.kind. */
export enum NotificationKind {
  /** Wrong password. */
  LOGIN_FAILED = 'login-failed',
  /** Login from an uncommon IP. */
  UNUSUAL_IP = 'unusual-ip',
  /** expireNotifyDays: the password expires soon. */
  PASSWORD_EXPIRY = 'password-expiry',
  /** A recovery code was used to log in (a site message to the user). */
  RECOVERY_CODE_USED = 'recovery-code-used',
  /** dormantDays: the account was disabled after no successful login for that long. */
  ACCOUNT_DORMANT = 'account-dormant',
  /** The password was reset with a one-time code; told on the channel the code did not go to. */
  PASSWORD_SELF_RESET = 'password-self-reset',
  /** An account made by /sys/user/import: its generated initial password, by e-mail or SMS. */
  INITIAL_PASSWORD = 'initial-password',
  /** The service came under attack (adaptive captcha on) or the attack ended: to holders of sys:strategy:login:save. */
  LOGIN_ATTACK = 'login-attack',
  /** Login-log and audit-log rows for SYSLOG_URL (src/log-seal): for a machine, not a person. */
  LOG_FORWARD = 'log-forward',
}

/** Kinds whose payload holds a secret: blanked in the outbox once the row is sent or given up. */
export const SECRET_KINDS: readonly string[] = [NotificationKind.INITIAL_PASSWORD];

/** sys_notification.status. */
export enum NotificationStatus {
  PENDING = 'pending',
  SENT = 'sent',
  FAILED = 'failed',
  /** SMTP_URL / SMS_WEBHOOK_URL unset; recorded as not sent, with the reason. */
  NOT_CONFIGURED = 'not_configured',
}

/** Login account, IP, time and the hint; the same shape for both login notifications. */
export interface LoginAlertPayload {
  account: string;
  ip: string;
  /** ISO 8601 */
  time: string;
  hint: Bilingual;
  /** ISO 8601; set on the wrong password that locked the account: when the lock ends. */
  lockedUntil?: string;
}

export interface PasswordExpiryPayload {
  account: string;
  /** ISO 8601 */
  expireTime: string;
  days: number;
}

export interface DormantAccountPayload {
  account: string;
  /** ISO 8601; null when the account never logged in (the days count from its creation). */
  lastLoginTime: string | null;
  days: number;
}

/** The generated initial password of an imported account, for its owner only. */
export interface InitialPasswordPayload {
  account: string;
  password: string;
}

/** A batch of log rows as RFC 5424 messages, sent in one connection. */
export interface LogForwardPayload {
  messages: string[];
}

/** The adaptive captcha started (`started`) or ended. */
export interface LoginAttackPayload {
  started: boolean;
  /** ISO 8601 */
  time: string;
  /** attackFailuresPerMinute at the time. */
  threshold: number;
}

export type NotificationPayload =
  | LoginAlertPayload
  | PasswordExpiryPayload
  | DormantAccountPayload
  | InitialPasswordPayload
  | LogForwardPayload
  | LoginAttackPayload;

/**
 * One outbox row as a channel sees it. The built-in channels get the service's notifications; a
 * channel a module adds for rows of its own (NotificationService.sendTo) names its own payload and
 * kind (src/webhook: an event for another system).
 */
export interface Delivery<P = NotificationPayload, K extends string = NotificationKind> {
  id: string;
  /** The recipient: a user for the built-in channels; whatever the added channel's rows name (a webhook). */
  userId: string;
  /** The channel's name (NotificationChannels). */
  channel: string;
  kind: K;
  payload: P;
  /** When the notification was raised (the event), not when it is delivered. */
  createTime: Date;
  /** Which try this is: 1 the first time, one more on each retry. */
  attempt: number;
}

/** How often, and after how long, the outbox tries a row again whose delivery threw. */
export interface RetryPolicy {
  /** Tries in all, the first one included; a row still failing then is given up as failed. */
  maxAttempts: number;
  /** The pause after the n-th failed try (n ≥ 1). */
  delayMs(failedAttempts: number): number;
}

/**
 * One delivery channel (email, sms, site, or one a module adds). A channel either
 * resolves (delivered), or throws: ChannelNotConfiguredError and
 * PermanentDeliveryError end the row, anything else is retried with backoff.
 */
export abstract class NotificationChannel<P = NotificationPayload, K extends string = NotificationKind> {
  /** email, sms and site are built in; a module's own channel has its own name (see NOTIFICATION_CHANNELS). */
  abstract readonly name: string;
  /** The channel's own retries; absent: the outbox's (OUTBOX in outbox.options.ts). */
  readonly retry?: RetryPolicy;
  abstract deliver(delivery: Delivery<P, K>): Promise<void>;
}

/** Any channel, whatever its rows carry: what the outbox holds and hands rows to. */
export type AnyNotificationChannel = NotificationChannel<unknown, string>;

/** The channels the outbox delivers to: a module adds one with `NOTIFICATION_CHANNELS.provide(MyChannel)`. */
export const NOTIFICATION_CHANNELS = new ExtensionPoint<AnyNotificationChannel>('NOTIFICATION_CHANNELS');

/** The transport is not configured: status not_configured, no retry. */
export class ChannelNotConfiguredError extends Error {
  override readonly name = 'ChannelNotConfiguredError';
}

/** Retrying cannot help (no mailbox, no mobile, a 5xx SMTP reply): status failed at once. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}
