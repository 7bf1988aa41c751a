import type { Locale } from '../common/error-code';
import {
  LoginAlertPayload, NotificationKind, NotificationPayload, PasswordExpiryPayload,
} from './notification.types';

/** One labelled fact of a notification ("登录IP: 10.0.0.1"). */
export interface ContentField {
  label: string;
  value: string;
}

/** Channel-neutral content: e-mail templates lay it out, SMS and site messages flatten it. */
export interface NotificationContent {
  title: string;
  /** The hint of spec 4.2 (abnormal login / uncommon IP) or the reminder sentence. */
  lead: string;
  fields: ContentField[];
  advice: string;
}

/**
 * A time as people read it: server-local wall time with its UTC offset, so that
 * a reader in another zone cannot misread it ("2025-01-02 11:04:05 (UTC+08:00)").
 */
export function formatNotificationTime(value: string | Date): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  const pad = (n: number) => String(n).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const abs = Math.abs(offset);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} `
    + `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} `
    + `(UTC${offset >= 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)})`;
}

const LABELS = {
  zh: {
    account: '登录账号', attemptIp: '尝试登录IP', attemptTime: '尝试登录时间', loginIp: '登录IP', loginTime: '登录时间',
    expireTime: '密码过期时间',
  },
  en: {
    account: 'Account', attemptIp: 'Attempted from IP', attemptTime: 'Attempted at', loginIp: 'Login IP', loginTime: 'Login time',
    expireTime: 'Password expires at',
  },
} satisfies Record<Locale, Record<string, string>>;

/** Spec 4.2 contents, per kind and locale (zh is the default of the contract). */
export function notificationContent(kind: NotificationKind, payload: NotificationPayload, locale: Locale = 'zh'): NotificationContent {
  const l = LABELS[locale];
  const zh = locale === 'zh';
  switch (kind) {
    case NotificationKind.LOGIN_FAILED:
      // Spec 4.2: login account, attempted IP, attempted time, and the abnormal-login hint.
      return loginAlert(payload as LoginAlertPayload, locale, zh ? '异常登录提醒' : 'Abnormal login alert', l.attemptIp, l.attemptTime);
    case NotificationKind.UNUSUAL_IP:
      // Spec 4.2: login account, login IP, login time, and the uncommon-IP hint.
      return loginAlert(payload as LoginAlertPayload, locale, zh ? '非常用IP登录提醒' : 'Login from an uncommon IP', l.loginIp, l.loginTime);
    case NotificationKind.PASSWORD_EXPIRY: {
      const p = payload as PasswordExpiryPayload;
      return {
        title: zh ? '密码即将过期' : 'Your password expires soon',
        lead: zh ? `您的密码将在${p.days}天后过期` : `Your password expires in ${p.days} day${p.days === 1 ? '' : 's'}`,
        fields: [
          { label: l.account, value: p.account },
          { label: l.expireTime, value: formatNotificationTime(p.expireTime) },
        ],
        advice: zh ? '请尽快登录并修改密码。' : 'Please log in and change it soon.',
      };
    }
  }
}

/** The two login alerts of spec 4.2 differ only in title and in how they name the IP and the time. */
function loginAlert(p: LoginAlertPayload, locale: Locale, title: string, ipLabel: string, timeLabel: string): NotificationContent {
  return {
    title,
    lead: p.hint[locale],
    fields: [
      { label: LABELS[locale].account, value: p.account },
      { label: ipLabel, value: p.ip },
      { label: timeLabel, value: formatNotificationTime(p.time) },
    ],
    advice: locale === 'zh' ? '如非本人操作,请立即修改密码并联系管理员。' : 'If this was not you, change your password now and tell your administrator.',
  };
}

/** The content as one paragraph (site messages, SMS). */
export function contentAsText(content: NotificationContent, locale: Locale = 'zh'): string {
  const [sep, colon, stop] = locale === 'zh' ? [',', ':', '。'] : ['; ', ': ', '. '];
  const facts = content.fields.map((f) => `${f.label}${colon}${f.value}`).join(sep);
  return `${content.lead}${stop}${facts}${stop}${content.advice}`;
}
