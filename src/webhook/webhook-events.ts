import type { AuditEntry } from '../audit/audit-log.service';
import { LoginStatus } from '../login-log/login-log.entity';
import type { LoginRecordedEvent } from '../login-log/login-log.events';
import type { MfaChangedEvent } from '../mfa/mfa.events';
import type { SessionEndedEvent } from '../session/session.events';
import type { PasswordChangedEvent } from '../user-account/account.events';
import type { WebhookEntity } from './webhook.entity';

/** Every event a webhook may subscribe to (docs/api.md "Webhooks" lists each one's data). */
export const WEBHOOK_EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'account.locked',
  'account.unlocked',
  'account.disabled',
  'account.enabled',
  'account.deleted',
  'password.changed',
  'password.reset',
  'session.ended',
  'mfa.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event types a webhook subscribed to, as stored. */
export const eventsOf = (hook: Pick<WebhookEntity, 'events'>): WebhookEventType[] =>
  JSON.parse(hook.events) as WebhookEventType[];

/** Sent by /sys/webhook/test to one webhook, whatever it subscribed to; never subscribed to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
export type WebhookMessageType = WebhookEventType | typeof WEBHOOK_TEST_EVENT;

/** Who acted on a user, when it was not the user: an administrator, or `system` (the service itself). */
export interface WebhookActor {
  userId: string;
  username: string | null;
  /** The administrator's client IP; absent for the service itself. */
  ip?: string;
}

/**
 * What a delivery's body is (JSON, signed as Standard Webhooks say): the event type, when it
 * happened (ISO 8601, UTC) and its data. `data` always carries `userId` and `username` (null for a
 * failed login of an account nobody holds), and never a password, token, hash, code or secret.
 */
export interface WebhookMessage {
  type: WebhookMessageType;
  timestamp: string;
  data: { userId: string | null; username: string | null } & Record<string, unknown>;
}

/** An event to publish: its type, its data and when it happened. */
export interface WebhookEvent {
  type: WebhookEventType;
  time: Date;
  data: WebhookMessage['data'];
}

const actorOf = (e: AuditEntry): WebhookActor => ({
  userId: e.actorId,
  username: e.actorName,
  ...(e.ip ? { ip: e.ip } : {}),
});

/** What an audited action on an account is to the outside world; the other actions are not told. */
const AUDITED: Partial<Record<AuditEntry['action'], WebhookEventType>> = {
  'user.lock': 'account.locked',
  'user.unlock': 'account.unlocked',
  'user.disable': 'account.disabled',
  'user.enable': 'account.enabled',
  'user.delete': 'account.deleted',
  'user.resetPass': 'password.reset',
};

/**
 * An audit row as an event: the account changes an administrator (or the service: a lock by wrong
 * passwords, a dormant account's disable) made. Null for every other action.
 */
export function fromAudit(entry: AuditEntry, time: Date): WebhookEvent | null {
  const type = AUDITED[entry.action];
  if (!type || !entry.targetId) return null;
  const detail = entry.detail ?? {};
  const data: WebhookEvent['data'] = { userId: entry.targetId, username: entry.targetName ?? null, by: actorOf(entry) };
  if (type === 'account.locked') {
    const after = (detail.new ?? {}) as { unlockTime?: Date | string | null };
    data.reason = detail.reason === 'failures' ? 'failures' : 'admin';
    data.unlockTime = after.unlockTime ? new Date(after.unlockTime).toISOString() : null;
    if (typeof detail.failures === 'number') data.failures = detail.failures;
  }
  if (type === 'account.disabled') data.reason = detail.reason === 'dormant' ? 'dormant' : 'admin';
  return { type, time, data };
}

/** A login-log row as an event: a success, or any refusal (a wrong password, a locked account, …). */
export function fromLogin(e: LoginRecordedEvent, username: string | null): WebhookEvent {
  const common = {
    userId: e.userId,
    username,
    account: e.account,
    loginType: e.loginType,
    ip: e.ip,
    browser: e.browser,
    os: e.os,
  };
  if (e.status === LoginStatus.SUCCESS) return { type: 'login.succeeded', time: e.time, data: common };
  return { type: 'login.failed', time: e.time, data: { ...common, status: e.status, reason: e.failure } };
}

export function fromPasswordChange(e: PasswordChangedEvent): WebhookEvent {
  return { type: 'password.changed', time: e.time, data: { userId: e.userId, username: e.username, ip: e.ip } };
}

export function fromSessionEnd(e: SessionEndedEvent): WebhookEvent {
  return {
    type: 'session.ended',
    time: e.time,
    data: {
      userId: e.session.userId,
      username: e.session.username,
      reason: e.reason,
      ip: e.session.ip,
      loginTime: new Date(e.session.loginTime).toISOString(),
      by: e.by && { userId: e.by.id, username: e.by.name },
    },
  };
}

export function fromMfaChange(e: MfaChangedEvent): WebhookEvent {
  return {
    type: 'mfa.changed',
    time: e.time,
    data: {
      userId: e.userId,
      username: e.username,
      change: e.change,
      ip: e.ip,
      by: e.by && { userId: e.by.id, username: e.by.name },
    },
  };
}
