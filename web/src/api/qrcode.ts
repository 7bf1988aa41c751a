import type { LoginResult } from './auth';
import { post } from './request';

export interface QrcodeGrant {
  code: string;
  /** seconds */
  expiresIn: number;
}

export const generateQrcode = () => post<QrcodeGrant>('/auth/qrcode/generate');
export const verifyQrcode = (code: string) => post<LoginResult>('/auth/qrcode/verify', { code });
