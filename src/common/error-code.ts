import { type Locale, TEXTS, text, type TextParams } from './texts';

export { localeOf } from './texts';
export type { Locale } from './texts';

/** Contract §2: machine-readable codes and their HTTP status; their messages are in texts.ts. */
export enum ErrorCode {
  OK = 'OK',
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  CAPTCHA_INVALID = 'CAPTCHA_INVALID',
  BAD_CREDENTIALS = 'BAD_CREDENTIALS',
  ACCOUNT_LOCKED = 'ACCOUNT_LOCKED',
  ACCOUNT_DISABLED = 'ACCOUNT_DISABLED',
  ACCOUNT_EXPIRED = 'ACCOUNT_EXPIRED',
  OLD_PASSWORD_WRONG = 'OLD_PASSWORD_WRONG',
  PASSWORD_TOO_SHORT = 'PASSWORD_TOO_SHORT',
  PASSWORD_TOO_LONG = 'PASSWORD_TOO_LONG',
  PASSWORD_NEEDS_DIGIT = 'PASSWORD_NEEDS_DIGIT',
  PASSWORD_NEEDS_UPPER = 'PASSWORD_NEEDS_UPPER',
  PASSWORD_NEEDS_LOWER = 'PASSWORD_NEEDS_LOWER',
  PASSWORD_NEEDS_SYMBOL = 'PASSWORD_NEEDS_SYMBOL',
  NOT_LOGGED_IN = 'NOT_LOGGED_IN',
  KICKED_OUT = 'KICKED_OUT',
  IP_MISMATCH = 'IP_MISMATCH',
  TEMP_TOKEN_FORBIDDEN = 'TEMP_TOKEN_FORBIDDEN',
  FORBIDDEN = 'FORBIDDEN',
  QRCODE_INVALID = 'QRCODE_INVALID',
  NOT_FOUND = 'NOT_FOUND',
  RATE_LIMITED = 'RATE_LIMITED',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  INTERNAL = 'INTERNAL',
}

export const HTTP_STATUS: Record<ErrorCode, number> = {
  OK: 200,
  VALIDATION_FAILED: 400,
  CAPTCHA_INVALID: 400,
  BAD_CREDENTIALS: 401,
  ACCOUNT_LOCKED: 423,
  ACCOUNT_DISABLED: 403,
  ACCOUNT_EXPIRED: 403,
  OLD_PASSWORD_WRONG: 400,
  PASSWORD_TOO_SHORT: 400,
  PASSWORD_TOO_LONG: 400,
  PASSWORD_NEEDS_DIGIT: 400,
  PASSWORD_NEEDS_UPPER: 400,
  PASSWORD_NEEDS_LOWER: 400,
  PASSWORD_NEEDS_SYMBOL: 400,
  NOT_LOGGED_IN: 401,
  KICKED_OUT: 401,
  IP_MISMATCH: 401,
  TEMP_TOKEN_FORBIDDEN: 403,
  FORBIDDEN: 403,
  QRCODE_INVALID: 400,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The texts live in the catalogue (texts.ts); these names stay for the many callers. */
export type TipKey = keyof typeof TEXTS.tip;

export function messageOf(code: ErrorCode, locale: Locale, params?: TextParams): string {
  return text(`error.${code}`, locale, params);
}

export function tipText(key: TipKey, locale: Locale, params?: TextParams): string {
  return text(`tip.${key}`, locale, params);
}
