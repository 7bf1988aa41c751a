import { post } from './request';

/** Spec 2.1, group user_login_strategy. */
export interface LoginStrategy {
  sessionExpireMinutes: number;
  tempSessionExpireMinutes: number;
  lockMinutes: number;
  maxFailureTimes: number;
  maxFailureInterval: number;
  sendMsgWhenErrorLogin: string;
  sendMsgWhenErrorIp: string;
  loginStrategyWhenExpire: 1 | 2 | 3;
  bindIp: boolean;
  multiOnline: boolean;
}

/** Spec 2.2, group user_strategy. */
export interface UserStrategy {
  passwordExpireDays: number;
  expireNotifyDays: number;
  minPasswordLength: number;
  maxPasswordLength: number;
  includeLowerCase: boolean;
  includeUpperCase: boolean;
  includeNumber: boolean;
  includeSymbol: boolean;
  forceUpdatePassword: boolean;
}

export type PasswordRules = Pick<UserStrategy,
  'minPasswordLength' | 'maxPasswordLength' | 'includeLowerCase' | 'includeUpperCase' | 'includeNumber' | 'includeSymbol'>;

export const getLoginStrategy = () => post<LoginStrategy>('/sys/strategy/login/info');
export const saveLoginStrategy = (s: Partial<LoginStrategy>) => post('/sys/strategy/login/save', s);
export const getUserStrategy = () => post<UserStrategy>('/sys/strategy/user/info');
export const saveUserStrategy = (s: Partial<UserStrategy>) => post('/sys/strategy/user/save', s);
export const getPasswordRules = () => post<PasswordRules>('/sys/strategy/user/rules');
