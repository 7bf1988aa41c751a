import type { LoginStrategy, UserStrategy } from '@/api/strategy';

/**
 * Every field of spec 2.1 / 2.2 with its kind, unit and the range the service accepts
 * (src/strategy/dto/save-strategy.dto.ts). The form does not clamp: the service
 * validates, and its message appears under the field it names.
 */
export type FieldKind = 'int' | 'bool' | 'channels' | 'expire';

export interface FieldDef<K extends string = string> {
  key: K;
  kind: FieldKind;
  unit?: 'minutes' | 'hours' | 'days' | 'times' | 'chars';
  min?: number;
  max?: number;
}

export const LOGIN_FIELDS: FieldDef<keyof LoginStrategy>[] = [
  { key: 'sessionExpireMinutes', kind: 'int', unit: 'minutes', min: 1, max: 43200 },
  { key: 'tempSessionExpireMinutes', kind: 'int', unit: 'minutes', min: 1, max: 1440 },
  { key: 'lockMinutes', kind: 'int', unit: 'minutes', min: 1, max: 525600 },
  { key: 'maxFailureTimes', kind: 'int', unit: 'times', min: 1, max: 1000 },
  { key: 'maxFailureInterval', kind: 'int', unit: 'hours', min: 1, max: 8760 },
  { key: 'sendMsgWhenErrorLogin', kind: 'channels' },
  { key: 'sendMsgWhenErrorIp', kind: 'channels' },
  { key: 'loginStrategyWhenExpire', kind: 'expire' },
  { key: 'bindIp', kind: 'bool' },
  { key: 'multiOnline', kind: 'bool' },
];

export const USER_FIELDS: FieldDef<keyof UserStrategy>[] = [
  { key: 'passwordExpireDays', kind: 'int', unit: 'days', min: 0, max: 3650 },
  { key: 'expireNotifyDays', kind: 'int', unit: 'days', min: 0, max: 365 },
  { key: 'minPasswordLength', kind: 'int', unit: 'chars', min: 0, max: 72 },
  { key: 'maxPasswordLength', kind: 'int', unit: 'chars', min: 0, max: 72 },
  { key: 'includeLowerCase', kind: 'bool' },
  { key: 'includeUpperCase', kind: 'bool' },
  { key: 'includeNumber', kind: 'bool' },
  { key: 'includeSymbol', kind: 'bool' },
  { key: 'forceUpdatePassword', kind: 'bool' },
];

export const CHANNELS = ['email', 'sms', 'site'] as const;

export const toChannels = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);
export const fromChannels = (list: string[]): string => CHANNELS.filter((c) => list.includes(c)).join(',');
