import { post, type Page, type PageQuery } from './request';

/** A live session; tokenId is the SHA-256 of the token, never the token. */
export interface SessionRow {
  tokenId: string;
  userId: string;
  username: string | null;
  name: string | null;
  ip: string;
  browser: string | null;
  os: string | null;
  loginTime: number;
  renewedAt: number | null;
  expireAt: number;
  temp: boolean;
  current?: boolean;
}

export const listOnline = (q: PageQuery) => post<Page<SessionRow>>('/sys/online/list', q);
export const kickout = (tokenId: string) => post('/sys/online/kickout', { tokenId });
export const listMySessions = (q: PageQuery) => post<Page<SessionRow>>('/sys/me/sessions', q);
export const kickoutMine = (tokenId: string) => post('/sys/me/sessions/kickout', { tokenId });
