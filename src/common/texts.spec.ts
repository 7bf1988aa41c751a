import { ErrorCode, messageOf, tipText } from './error-code';
import { bilingual, Bilingual, TEXTS, text, TextKey } from './texts';

const entries = Object.entries(TEXTS).flatMap(([group, texts]) =>
  Object.entries(texts as Record<string, Bilingual>).map(([name, t]) => [`${group}.${name}`, t] as const));
const placeholders = (s: string) => [...new Set([...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

describe('text catalogue (issue 12.6)', () => {
  it.each(entries)('%s has a zh and an en text', (_key, t) => {
    expect(t.zh.trim()).not.toBe('');
    expect(t.en.trim()).not.toBe('');
  });

  it.each(entries)('%s names the same placeholders in zh and en', (_key, t) => {
    expect(placeholders(t.en)).toEqual(placeholders(t.zh));
  });

  // Copied from contract §2's table (and spec 7, which gives the same texts): requirements, to the character.
  it.each([
    [ErrorCode.OK, '操作成功'],
    [ErrorCode.CAPTCHA_INVALID, '验证码错误或已失效'],
    [ErrorCode.BAD_CREDENTIALS, '用户名或密码错误'],
    [ErrorCode.ACCOUNT_LOCKED, '用户已被锁定'],
    [ErrorCode.ACCOUNT_EXPIRED, '您的账户已过期,请联系管理员'],
    [ErrorCode.OLD_PASSWORD_WRONG, '旧密码不正确'],
    [ErrorCode.PASSWORD_NEEDS_UPPER, '密码应包含大写字符'],
    [ErrorCode.PASSWORD_NEEDS_SYMBOL, '密码应包含特殊字符'],
    [ErrorCode.KICKED_OUT, '账号已在其他地方登录'],
    [ErrorCode.IP_MISMATCH, '登录IP已变化,请重新登录'],
    [ErrorCode.TEMP_TOKEN_FORBIDDEN, '请先修改密码'],
    [ErrorCode.FORBIDDEN, '没有权限'],
    [ErrorCode.QRCODE_INVALID, '二维码无效或已过期'],
  ])('the zh message of %s is the contract\'s', (code, message) => {
    expect(text(`error.${code}`, 'zh')).toBe(message);
    expect(messageOf(code, 'zh')).toBe(message);
  });

  it('fills the minimum into 密码长度应大于{min} (contract §2, spec 7)', () => {
    expect(messageOf(ErrorCode.PASSWORD_TOO_SHORT, 'zh', { min: 8 })).toBe('密码长度应大于8');
    expect(messageOf(ErrorCode.PASSWORD_TOO_LONG, 'en', { max: 20 })).toBe('The password must be at most 20 characters long');
  });

  it('answers English for en and keeps the old helpers on the catalogue', () => {
    expect(messageOf(ErrorCode.BAD_CREDENTIALS, 'en')).toBe('Wrong user name or password');
    expect(tipText('PASSWORD_EXPIRES_SOON', 'zh', { days: 3 })).toBe('您的密码将在3天后过期,请尽快修改密码');
    expect(bilingual('notification.wrongPasswordHint')).toEqual({ zh: '异常登录:密码错误', en: 'Abnormal login: wrong password' });
  });

  it('inserts a value as sent, without reading placeholders in it (a field named "{rule}")', () => {
    expect(text('validation.fieldRule', 'zh', { field: '{rule}', rule: 'must be a string' }))
      .toBe('参数{rule}不合法: must be a string');
  });
});

// Checked by `npm run typecheck`, which fails when the compiler accepts a line marked @ts-expect-error.
export function refusedByTheCompiler(): unknown[] {
  // @ts-expect-error: not a key of the catalogue
  const unknown: TextKey = 'error.NO_SUCH_CODE';
  // @ts-expect-error: a catalogue entry needs both zh and en
  const half: Bilingual = { zh: '只有中文' };
  return [unknown, half];
}
