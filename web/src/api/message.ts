import { acceptLanguage, post, type Page, type PageQuery } from './request';

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

/**
 * Server-Sent Events of new messages. EventSource cannot send the Admin-Token header, and the token
 * must never go into a URL (logs, history): each connection asks for a one-time 30-second ticket
 * just before (contract §11). Throws the ticket call's ApiError.
 */
export async function openMessageStream(): Promise<EventSource> {
  const { ticket } = await post<{ ticket: string }>('/sys/message/streamTicket');
  return new EventSource(`/sys/message/stream?ticket=${encodeURIComponent(ticket)}&lang=${acceptLanguage()}`);
}
