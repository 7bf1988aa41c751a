/**
 * The refusals a guard answers for the service, with the service's own texts (zh by default, en when
 * `Accept-Language` starts with `en`), so that a downstream service answers like the service does.
 */
export const GUARD_REFUSALS = {
  NOT_LOGGED_IN: { status: 401, zh: '未登录或登录已过期', en: 'Not logged in, or the session has expired' },
  KICKED_OUT: { status: 401, zh: '账号已在其他地方登录', en: 'The account has logged in elsewhere' },
  IP_MISMATCH: { status: 401, zh: '登录IP已变化,请重新登录', en: 'Your IP address has changed, please log in again' },
  TEMP_TOKEN_FORBIDDEN: { status: 403, zh: '请先修改密码', en: 'Please change your password first' },
  FORBIDDEN: { status: 403, zh: '没有权限', en: 'Permission denied' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    zh: '服务暂时不可用,请稍后再试',
    en: 'The service is temporarily unavailable',
  },
} as const;

export type GuardRefusal = keyof typeof GUARD_REFUSALS;
export type Language = 'zh' | 'en';

/** The service's rule: English when the header starts with the word `en`, Chinese otherwise. */
export function languageOf(acceptLanguage: string | string[] | undefined): Language {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage;
  return header && /^\s*en\b/i.test(header) ? 'en' : 'zh';
}
