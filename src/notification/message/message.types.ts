import { NotificationKind } from '../notification.types';

/** A site message as the API and the SSE stream show it (rows carry their id). */
export interface MessageView {
  id: string;
  kind: NotificationKind;
  title: string;
  content: string;
  read: boolean;
  createTime: Date | string;
}

export interface NewMessage {
  id: string;
  userId: string;
  kind: NotificationKind;
  title: string;
  content: string;
  createTime: Date;
}
