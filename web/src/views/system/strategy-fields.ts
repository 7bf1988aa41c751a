import type { LoginStrategy, UserStrategy } from '@/api/strategy';

/**
 * Every field of spec 2.1 / 2.2 with its kind, unit, the spec's default and the range the service
 * accepts (src/strategy/dto/save-strategy.dto.ts; defaults as in src/strategy/strategy.types.ts).
 * The form does not clamp: the service validates, and its message appears under the field it names.
 */
export type FieldKind = 'int' | 'bool' | 'channels' | 'expire' | 'mfa';

export interface FieldDef<K extends string = string> {
  key: K;
  kind: FieldKind;
  /** The default of spec 2.1 / 2.2. */
  def: number | boolean | string;
  unit?: 'minutes' | 'hours' | 'days' | 'times' | 'chars';
  min?: number;
  max?: number;
}

export const LOGIN_FIELDS: FieldDef<keyof LoginStrategy>[] = [
  { key: 'sessionExpireMinutes', kind: 'int', def: 30, unit: 'minutes', min: 1, max: 43200 },
  { key: 'tempSessionExpireMinutes', kind: 'int', def: 5, unit: 'minutes', min: 1, max: 1440 },
  { key: 'lockMinutes', kind: 'int', def: 1440, unit: 'minutes', min: 1, max: 525600 },
  { key: 'maxFailureTimes', kind: 'int', def: 5, unit: 'times', min: 1, max: 1000 },
  { key: 'maxFailureInterval', kind: 'int', def: 24, unit: 'hours', min: 1, max: 8760 },
  { key: 'sendMsgWhenErrorLogin', kind: 'channels', def: '' },
  { key: 'sendMsgWhenErrorIp', kind: 'channels', def: '' },
  { key: 'loginStrategyWhenExpire', kind: 'expire', def: 3 },
  { key: 'bindIp', kind: 'bool', def: false },
  { key: 'multiOnline', kind: 'bool', def: true },
  // Contract §8: 0 off, 1 enrolled users, 2 required.
  { key: 'mfaMode', kind: 'mfa', def: 0 },
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
  { key: 'forceUpdatePassword', kind: 'bool', def: false },
];

export const CHANNELS = ['email', 'sms', 'site'] as const;

export const toChannels = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);
export const fromChannels = (list: string[]): string => CHANNELS.filter((c) => list.includes(c)).join(',');
