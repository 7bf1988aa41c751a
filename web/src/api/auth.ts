import { encryptPassword } from './crypto';
import { post } from './request';

export interface CaptchaInfo {
  enabled: boolean;
  imgId: string | null;
  img: string | null;
}

export interface LoginResult {
  accessToken: string;
  tempUser: boolean;
  forceUpdatePassword: boolean;
  tip: string;
}

export interface MeInfo {
  id: string;
  username: string;
  name: string;
  mobile: string | null;
  email: string | null;
  permissions: string[];
  tempUser: boolean;
}

export interface LoginForm {
  account: string;
  password: string;
  imgId?: string;
  imgCode?: string;
}

export const getCaptcha = () => post<CaptchaInfo>('/sys/captcha');

export async function login(form: LoginForm): Promise<LoginResult> {
  const body: Record<string, string> = { account: form.account, password: await encryptPassword(form.password) };
  if (form.imgId) {
    body.imgId = form.imgId;
    body.imgCode = form.imgCode ?? '';
  }
  return post<LoginResult>('/sys/login', body);
}

export const logout = () => post('/sys/logout');
export const getMeInfo = () => post<MeInfo>('/sys/me/info');

export async function updatePassword(oldPass: string, newPass: string): Promise<null> {
  const [o, n] = await Promise.all([encryptPassword(oldPass), encryptPassword(newPass)]);
  return post('/sys/me/pass/update', { oldPass: o, newPass: n });
}
