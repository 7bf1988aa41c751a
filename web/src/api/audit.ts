import { post, type Page, type PageQuery } from './request';

export interface AuditRow {
  id: string;
  userId: string;
  username: string | null;
  action: string;
  target: string | null;
  /** The target user's user name (a role's name) when the action was recorded. */
  targetName: string | null;
  detail: unknown;
  ip: string;
  createTime: string;
}

export interface AuditQuery extends PageQuery {
  action?: string;
  username?: string;
  target?: string;
}

export const listAuditLog = (q: AuditQuery) => post<Page<AuditRow>>('/sys/auditLog/list', q);
