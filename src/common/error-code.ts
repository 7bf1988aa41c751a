/** Contract §2: machine-readable codes, their HTTP status and their messages (zh default, en). */
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

export type Locale = 'zh' | 'en';
type Params = Record<string, string | number>;
type Text = { zh: string; en: string };

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

const MESSAGES: Record<ErrorCode, Text> = {
  OK: { zh: '操作成功', en: 'Success' },
  VALIDATION_FAILED: { zh: '参数校验失败', en: 'Invalid request' },
  CAPTCHA_INVALID: { zh: '验证码错误或已失效', en: 'The captcha is wrong or has expired' },
  BAD_CREDENTIALS: { zh: '用户名或密码错误', en: 'Wrong user name or password' },
  ACCOUNT_LOCKED: { zh: '用户已被锁定', en: 'The account is locked' },
  ACCOUNT_DISABLED: { zh: '用户已被禁用', en: 'The account is disabled' },
  ACCOUNT_EXPIRED: { zh: '您的账户已过期,请联系管理员', en: 'Your account has expired, please contact the administrator' },
  OLD_PASSWORD_WRONG: { zh: '旧密码不正确', en: 'The old password is not correct' },
  PASSWORD_TOO_SHORT: { zh: '密码长度应大于{min}', en: 'The password must be at least {min} characters long' },
  PASSWORD_TOO_LONG: { zh: '密码长度应小于{max}', en: 'The password must be at most {max} characters long' },
  PASSWORD_NEEDS_DIGIT: { zh: '密码应包含数字', en: 'The password must contain a digit' },
  PASSWORD_NEEDS_UPPER: { zh: '密码应包含大写字符', en: 'The password must contain an upper-case letter' },
  PASSWORD_NEEDS_LOWER: { zh: '密码应包含小写字符', en: 'The password must contain a lower-case letter' },
  PASSWORD_NEEDS_SYMBOL: { zh: '密码应包含特殊字符', en: 'The password must contain a special character' },
  NOT_LOGGED_IN: { zh: '未登录或登录已过期', en: 'Not logged in, or the session has expired' },
  KICKED_OUT: { zh: '账号已在其他地方登录', en: 'The account has logged in elsewhere' },
  IP_MISMATCH: { zh: '登录IP已变化,请重新登录', en: 'Your IP address has changed, please log in again' },
  TEMP_TOKEN_FORBIDDEN: { zh: '请先修改密码', en: 'Please change your password first' },
  FORBIDDEN: { zh: '没有权限', en: 'Permission denied' },
  QRCODE_INVALID: { zh: '二维码无效或已过期', en: 'The QR code is invalid or has expired' },
  NOT_FOUND: { zh: '资源不存在', en: 'Not found' },
  RATE_LIMITED: { zh: '请求过于频繁,请稍后再试', en: 'Too many requests, please try again later' },
  SERVICE_UNAVAILABLE: { zh: '服务暂时不可用,请稍后再试', en: 'The service is temporarily unavailable' },
  INTERNAL: { zh: '系统内部错误', en: 'Internal error' },
};

/** Texts that are not errors: login tips. */
export const TIPS = {
  PASSWORD_EXPIRED_TIP: { zh: '您的密码已过期,请尽快修改密码', en: 'Your password has expired, please change it soon' },
  PASSWORD_EXPIRED_FORCE: { zh: '您的密码已过期,请修改密码后再登录', en: 'Your password has expired, change it before logging in' },
  INITIAL_PASSWORD_FORCE: { zh: '您的密码为初始密码,请修改密码后再登录', en: 'You are using an initial password, change it before logging in' },
  INITIAL_PASSWORD_TIP: { zh: '您的密码为初始密码,请尽快修改密码', en: 'You are using an initial password, please change it soon' },
  PASSWORD_EXPIRES_SOON: { zh: '您的密码将在{days}天后过期,请尽快修改密码', en: 'Your password expires in {days} days, please change it soon' },
} satisfies Record<string, Text>;
export type TipKey = keyof typeof TIPS;

export function format(text: string, params?: Params): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

export function messageOf(code: ErrorCode, locale: Locale, params?: Params): string {
  return format(MESSAGES[code][locale], params);
}

export function tipText(key: TipKey, locale: Locale, params?: Params): string {
  return format(TIPS[key][locale], params);
}

export function localeOf(acceptLanguage: string | string[] | undefined): Locale {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage;
  return header && /^\s*en\b/i.test(header) ? 'en' : 'zh';
}
