import { post, type Page, type PageQuery } from './request';

export interface UserRow {
  id: string;
  username: string;
  name: string;
  mobile: string | null;
  email: string | null;
  locked: boolean;
  unlockTime: string | null;
  disabled: boolean;
  passwordUpdateTime: string | null;
  passwordExpireTime: string | null;
  createTime: string;
  roles: string[];
}

export interface NewUser {
  username: string;
  name: string;
  mobile?: string;
  email?: string;
  roles?: string[];
}

export interface Role {
  code: string;
  name: string;
  permissions: string[];
}

export type UserAction = 'lock' | 'unlock' | 'disable' | 'enable';

export const listUsers = (q: PageQuery & { keyword?: string }) => post<Page<UserRow>>('/sys/user/list', q);
/** No password given: the service generates one and returns it once. */
export const createUser = (u: NewUser) => post<{ id: string; password?: string }>('/sys/user/create', u);
export const changeUserState = (action: UserAction, id: string) => post(`/sys/user/${action}`, { id });
/** `{ password }` when the service generated it; null when DEFAULT_PASSWORD is configured. */
export const resetPassword = (id: string) => post<{ password?: string } | null>('/sys/user/resetPass', { id });
export const listRoles = () => post<Role[]>('/sys/role/list');
