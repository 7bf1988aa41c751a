import { acceptLanguage, getToken, post, type Page, type PageQuery } from './request';

export type MessageKind = 'login-failed' | 'unusual-ip' | 'password-expiry';

export interface SiteMessage {
  id: string;
  kind: MessageKind;
  title: string;
  content: string;
  read: boolean;
  createTime: string;
}

export const listMessages = (q: PageQuery & { unreadOnly?: boolean }) => post<Page<SiteMessage>>('/sys/message/list', q);
export const markRead = (ids: string[]) => post('/sys/message/read', { ids });

/** Server-Sent Events of new messages; EventSource cannot send headers, hence ?token=. */
export function openMessageStream(): EventSource | null {
  const token = getToken();
  return token ? new EventSource(`/sys/message/stream?token=${encodeURIComponent(token)}&lang=${acceptLanguage()}`) : null;
}
