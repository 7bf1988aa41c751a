/**
 * Envelopes that carry no data, spelled out with the published words (not read from
 * the service's own table, so a changed message fails the tests). Compare with toEqual.
 */
export const failure = (code: string, message: string) => ({ success: false, code, message, data: null });

export const OK_NO_DATA = { success: true, code: 'OK', message: '操作成功', data: null };

export const NOT_LOGGED_IN = failure('NOT_LOGGED_IN', '未登录或登录已过期');
export const FORBIDDEN = failure('FORBIDDEN', '没有权限');
export const BAD_CREDENTIALS = failure('BAD_CREDENTIALS', '用户名或密码错误');
export const ACCOUNT_LOCKED = failure('ACCOUNT_LOCKED', '用户已被锁定');
export const ACCOUNT_DISABLED = failure('ACCOUNT_DISABLED', '用户已被禁用');
export const ACCOUNT_EXPIRED = failure('ACCOUNT_EXPIRED', '您的账户已过期,请联系管理员');
export const OLD_PASSWORD_WRONG = failure('OLD_PASSWORD_WRONG', '旧密码不正确');
export const PASSWORD_NEEDS_UPPER = failure('PASSWORD_NEEDS_UPPER', '密码应包含大写字符');
export const KICKED_OUT = failure('KICKED_OUT', '账号已在其他地方登录');
export const IP_MISMATCH = failure('IP_MISMATCH', '登录IP已变化,请重新登录');
export const QRCODE_INVALID = failure('QRCODE_INVALID', '二维码无效或已过期');
export const CAPTCHA_INVALID = failure('CAPTCHA_INVALID', '验证码错误或已失效');
export const RATE_LIMITED = failure('RATE_LIMITED', '请求过于频繁,请稍后再试');
export const SERVICE_UNAVAILABLE = failure('SERVICE_UNAVAILABLE', '服务暂时不可用,请稍后再试');
