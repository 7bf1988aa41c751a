import { formatDisplayTime, serverTimeZone } from '../common/display-time';
import { type Locale, text, type TextKey } from '../common/texts';
import {
  DormantAccountPayload,
  InitialPasswordPayload,
  LoginAlertPayload,
  LoginAttackPayload,
  NotificationKind,
  NotificationPayload,
  PasswordExpiryPayload,
} from './notification.types';

/** One labelled fact of a notification ("登录IP: 10.0.0.1"). */
export interface ContentField {
  label: string;
  value: string;
}

/** Channel-neutral content: e-mail templates lay it out, SMS and site messages flatten it. */
export interface NotificationContent {
  title: string;
  /** The hint of a login alert (abnormal login / uncommon IP) or the reminder sentence. */
  lead: string;
  fields: ContentField[];
  advice: string;
}

/**
 * A time as people read it: the wall time of the display zone (DISPLAY_TIMEZONE; default the
 * server's) with its UTC offset, so that a reader in another zone cannot misread it
 * ("2025-01-02 11:04:05 (UTC+08:00)").
 */
export function formatNotificationTime(value: string | Date, timeZone: string = serverTimeZone()): string {
  return formatDisplayTime(value, timeZone);
}

/** Contents, per kind and locale (zh is the default), times in `timeZone` (DISPLAY_TIMEZONE). */
export function notificationContent(
  kind: NotificationKind,
  payload: NotificationPayload,
  locale: Locale = 'zh',
  timeZone: string = serverTimeZone(),
): NotificationContent {
  switch (kind) {
    case NotificationKind.LOGIN_FAILED:
      // Login account, attempted IP, attempted time, and the abnormal-login hint.
      return loginAlert(
        payload as LoginAlertPayload,
        locale,
        timeZone,
        'notification.loginFailedTitle',
        'notification.labelAttemptIp',
        'notification.labelAttemptTime',
      );
    case NotificationKind.UNUSUAL_IP:
      // Login account, login IP, login time, and the uncommon-IP hint.
      return loginAlert(
        payload as LoginAlertPayload,
        locale,
        timeZone,
        'notification.unusualIpTitle',
        'notification.labelLoginIp',
        'notification.labelLoginTime',
      );
    case NotificationKind.RECOVERY_CODE_USED:
      return {
        ...loginAlert(
          payload as LoginAlertPayload,
          locale,
          timeZone,
          'notification.recoveryCodeUsedTitle',
          'notification.labelLoginIp',
          'notification.labelLoginTime',
        ),
        advice: text('notification.recoveryCodeUsedAdvice', locale),
      };
    case NotificationKind.PASSWORD_EXPIRY: {
      const p = payload as PasswordExpiryPayload;
      return {
        title: text('notification.passwordExpiryTitle', locale),
        lead: text(p.days === 1 ? 'notification.passwordExpiryLeadOneDay' : 'notification.passwordExpiryLead', locale, {
          days: p.days,
        }),
        fields: [
          { label: text('notification.labelAccount', locale), value: p.account },
          {
            label: text('notification.labelExpireTime', locale),
            value: formatNotificationTime(p.expireTime, timeZone),
          },
        ],
        advice: text('notification.passwordExpiryAdvice', locale),
      };
    }
    case NotificationKind.ACCOUNT_DORMANT: {
      const p = payload as DormantAccountPayload;
      return {
        title: text('notification.accountDormantTitle', locale),
        lead: text('notification.accountDormantLead', locale, { days: p.days }),
        fields: [
          { label: text('notification.labelAccount', locale), value: p.account },
          {
            label: text('notification.labelLastLoginTime', locale),
            value: p.lastLoginTime
              ? formatNotificationTime(p.lastLoginTime)
              : text('notification.neverLoggedIn', locale),
          },
        ],
        advice: text('notification.accountDormantAdvice', locale),
      };
    }
    case NotificationKind.PASSWORD_SELF_RESET:
      return {
        ...loginAlert(
          payload as LoginAlertPayload,
          locale,
          timeZone,
          'notification.passwordSelfResetTitle',
          'notification.labelLoginIp',
          'notification.labelLoginTime',
        ),
        advice: text('notification.passwordSelfResetAdvice', locale),
      };
    case NotificationKind.INITIAL_PASSWORD: {
      const p = payload as InitialPasswordPayload;
      return {
        title: text('notification.initialPasswordTitle', locale),
        lead: text('notification.initialPasswordLead', locale),
        fields: [
          { label: text('notification.labelAccount', locale), value: p.account },
          { label: text('notification.labelInitialPassword', locale), value: p.password },
        ],
        advice: text('notification.initialPasswordAdvice', locale),
      };
    }
    case NotificationKind.LOGIN_ATTACK: {
      const p = payload as LoginAttackPayload;
      return {
        title: text(p.started ? 'notification.loginAttackStartedTitle' : 'notification.loginAttackEndedTitle', locale),
        lead: text(p.started ? 'notification.loginAttackStartedLead' : 'notification.loginAttackEndedLead', locale, {
          threshold: p.threshold,
        }),
        fields: [{ label: text('notification.labelTime', locale), value: formatNotificationTime(p.time, timeZone) }],
        advice: text(
          p.started ? 'notification.loginAttackStartedAdvice' : 'notification.loginAttackEndedAdvice',
          locale,
        ),
      };
    }
    case NotificationKind.LOG_FORWARD:
      // Only the syslog channel takes these, and it sends the messages as they are.
      throw new Error('log-forward rows have no contents for people');
  }
}

/** The two login alerts (wrong password, unusual IP) differ only in title and in how they name the IP and the time. */
function loginAlert(
  p: LoginAlertPayload,
  locale: Locale,
  timeZone: string,
  title: TextKey,
  ipLabel: TextKey,
  timeLabel: TextKey,
): NotificationContent {
  const fields = [
    { label: text('notification.labelAccount', locale), value: p.account },
    { label: text(ipLabel, locale), value: p.ip },
    { label: text(timeLabel, locale), value: formatNotificationTime(p.time, timeZone) },
  ];
  // The wrong password that locked the account says so, and until when.
  if (p.lockedUntil) {
    fields.push({
      label: text('notification.labelAccountState', locale),
      value: text('notification.lockedUntil', locale, { time: formatNotificationTime(p.lockedUntil, timeZone) }),
    });
  }
  return {
    title: text(title, locale),
    lead: p.hint[locale],
    fields,
    advice: text(p.lockedUntil ? 'notification.lockedAdvice' : 'notification.loginAlertAdvice', locale),
  };
}

/** The content as one paragraph (site messages, SMS). */
export function contentAsText(content: NotificationContent, locale: Locale = 'zh'): string {
  const [sep, colon, stop] = locale === 'zh' ? [',', ':', '。'] : ['; ', ': ', '. '];
  const facts = content.fields.map((f) => `${f.label}${colon}${f.value}`).join(sep);
  return `${content.lead}${stop}${facts}${stop}${content.advice}`;
}
