import type { LoginStrategy, UserStrategy } from '@/api/strategy';

/**
 * Every field of the login and account strategies with its kind, unit, the service's default and the range the service
 * accepts (src/strategy/dto/save-strategy.dto.ts; defaults as in src/strategy/strategy.types.ts).
 * The form does not clamp: the service validates, and its message appears under the field it names.
 */
export type FieldKind = 'int' | 'bool' | 'channels' | 'expire' | 'mfa';

export interface FieldDef<K extends string = string> {
  key: K;
  kind: FieldKind;
  /** The service's default. */
  def: number | boolean | string;
  unit?: 'minutes' | 'hours' | 'days' | 'times' | 'chars' | 'sessions' | 'passwords';
  min?: number;
  max?: number;
}

export const LOGIN_FIELDS: FieldDef<keyof LoginStrategy>[] = [
  { key: 'sessionExpireMinutes', kind: 'int', def: 30, unit: 'minutes', min: 1, max: 43200 },
  { key: 'tempSessionExpireMinutes', kind: 'int', def: 5, unit: 'minutes', min: 1, max: 1440 },
  // Absolute lifetime of a session however often it is renewed; 0 = no limit.
  { key: 'sessionMaxHours', kind: 'int', def: 0, unit: 'hours', min: 0, max: 720 },
  { key: 'lockMinutes', kind: 'int', def: 1440, unit: 'minutes', min: 1, max: 525600 },
  { key: 'maxFailureTimes', kind: 'int', def: 5, unit: 'times', min: 1, max: 1000 },
  { key: 'maxFailureInterval', kind: 'int', def: 24, unit: 'hours', min: 1, max: 8760 },
  { key: 'sendMsgWhenErrorLogin', kind: 'channels', def: '' },
  { key: 'sendMsgWhenErrorIp', kind: 'channels', def: '' },
  { key: 'loginStrategyWhenExpire', kind: 'expire', def: 3 },
  { key: 'bindIp', kind: 'bool', def: false },
  { key: 'multiOnline', kind: 'bool', def: true },
  // With multiOnline on, a new login kicks out the oldest beyond this; 0 = no limit.
  { key: 'maxSessionsPerUser', kind: 'int', def: 0, unit: 'sessions', min: 0, max: 100 },
  // 0 off, 1 enrolled users, 2 required.
  { key: 'mfaMode', kind: 'mfa', def: 0 },
  // How long a password login or a re-entered password counts as a fresh proof …
  { key: 'reauthMinutes', kind: 'int', def: 5, unit: 'minutes', min: 1, max: 60 },
  // … which changing the second factor always needs, and with this on every administrative change too.
  { key: 'reauthForAdmin', kind: 'bool', def: false },
];

export const USER_FIELDS: FieldDef<keyof UserStrategy>[] = [
  { key: 'passwordExpireDays', kind: 'int', def: 90, unit: 'days', min: 0, max: 3650 },
  { key: 'expireNotifyDays', kind: 'int', def: 10, unit: 'days', min: 0, max: 365 },
  { key: 'minPasswordLength', kind: 'int', def: 6, unit: 'chars', min: 0, max: 72 },
  { key: 'maxPasswordLength', kind: 'int', def: 20, unit: 'chars', min: 0, max: 72 },
  { key: 'includeLowerCase', kind: 'bool', def: true },
  { key: 'includeUpperCase', kind: 'bool', def: false },
  { key: 'includeNumber', kind: 'bool', def: true },
  { key: 'includeSymbol', kind: 'bool', def: true },
  // Checked after the six complexity rules, in this order, on a user's own change.
  { key: 'rejectAccountInPassword', kind: 'bool', def: false },
  { key: 'rejectCommonPasswords', kind: 'bool', def: false },
  { key: 'passwordHistoryCount', kind: 'int', def: 0, unit: 'passwords', min: 0, max: 24 },
  { key: 'forceUpdatePassword', kind: 'bool', def: false },
  // A daily job disables accounts idle this long (holders of * exempt); 0 = never.
  { key: 'dormantDays', kind: 'int', def: 0, unit: 'days', min: 0, max: 3650 },
];

/**
 * True when a number field holds a value outside the range it accepts (for the new fields,
 * the service's DTO for the others). Shown as a hint while typing; the value is still sent, and the
 * service's own refusal appears under the field.
 */
export function outOfRange(f: FieldDef, value: unknown): boolean {
  if (f.kind !== 'int' || f.min === undefined || value === undefined) return false;
  if (value === null || typeof value !== 'number' || !Number.isInteger(value)) return true;
  return value < f.min || (f.max !== undefined && value > f.max);
}

export const CHANNELS = ['email', 'sms', 'site'] as const;

export const toChannels = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);
export const fromChannels = (list: string[]): string => CHANNELS.filter((c) => list.includes(c)).join(',');

type Translate = (key: string, named?: Record<string, unknown>) => string;

/** A field's value as the page shows it: number with unit, yes/no, channel names, the mode's short name. */
export function fieldValueText(t: Translate, f: FieldDef, value: unknown): string {
  // Not reported by the service (or emptied in the form).
  if (value === undefined || value === null) return '—';
  switch (f.kind) {
    case 'int': return `${String(value)} ${t(`common.${f.unit}`)}`;
    case 'bool': return t(value ? 'common.yes' : 'common.no');
    case 'channels': {
      const list = toChannels(String(value));
      return list.length ? list.map((c) => t(`strategy.channel.${c}`)).join(', ') : t('common.none');
    }
    case 'mfa': return t(`strategy.mfaShort.${String(value)}`);
    default: return t(`strategy.expireShort.${String(value)}`);
  }
}
