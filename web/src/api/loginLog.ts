import { post, type Page, type PageQuery } from './request';

export type LoginStatus = 'success' | 'passwrong' | 'locked' | 'disabled' | 'expired';
export type LoginType = 'account' | 'mobile' | 'email' | 'qrcode' | 'passchange';

export interface LoginLogRow {
  id: string;
  account: string;
  userName: string | null;
  loginType: LoginType;
  status: LoginStatus;
  ip: string;
  browser: string | null;
  os: string | null;
  loginTime: string;
  failureReason: string | null;
}

export interface LoginLogQuery extends PageQuery {
  account?: string;
  status?: LoginStatus;
  loginType?: LoginType;
  ip?: string;
  beginTime?: string;
  endTime?: string;
}

export const listLoginLog = (q: LoginLogQuery) => post<Page<LoginLogRow>>('/sys/loginLog/list', q);
