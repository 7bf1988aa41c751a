import { fieldProblem } from './app.exception';
import { ErrorCode, messageOf, tipText } from './error-code';
import { Bilingual, bilingual, text, TextKey, TEXTS } from './texts';

const entries = Object.entries(TEXTS).flatMap(([group, texts]) =>
  Object.entries(texts as Record<string, Bilingual>).map(([name, t]) => [`${group}.${name}`, t] as const),
);
const placeholders = (s: string) => [...new Set([...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

describe('text catalogue', () => {
  it.each(entries)('%s has a zh and an en text', (_key, t) => {
    expect(t.zh.trim()).not.toBe('');
    expect(t.en.trim()).not.toBe('');
  });

  it.each(entries)('%s names the same placeholders in zh and en', (_key, t) => {
    expect(placeholders(t.en)).toEqual(placeholders(t.zh));
  });

  // The texts clients match to the character: a change here breaks them, so it must be deliberate.
  it.each([
    [ErrorCode.OK, '操作成功'],
    [ErrorCode.CAPTCHA_INVALID, '验证码错误或已失效'],
    [ErrorCode.BAD_CREDENTIALS, '用户名或密码错误'],
    [ErrorCode.ACCOUNT_LOCKED, '用户已被锁定'],
    [ErrorCode.ACCOUNT_EXPIRED, '您的账户已过期,请联系管理员'],
    [ErrorCode.OLD_PASSWORD_WRONG, '旧密码不正确'],
    [ErrorCode.PASSWORD_NEEDS_UPPER, '密码应包含大写字符'],
    [ErrorCode.PASSWORD_NEEDS_SYMBOL, '密码应包含特殊字符'],
    // The checks of a user's own change, after the six rules.
    [ErrorCode.PASSWORD_CONTAINS_ACCOUNT, '密码不能包含账号、手机号或邮箱'],
    [ErrorCode.PASSWORD_TOO_COMMON, '密码过于常见,请更换'],
    [ErrorCode.KICKED_OUT, '账号已在其他地方登录'],
    [ErrorCode.IP_MISMATCH, '登录IP已变化,请重新登录'],
    [ErrorCode.TEMP_TOKEN_FORBIDDEN, '请先修改密码'],
    [ErrorCode.FORBIDDEN, '没有权限'],
    [ErrorCode.QRCODE_INVALID, '二维码无效或已过期'],
    [ErrorCode.ACCESS_DENIED, '当前网络或时间不允许登录'],
  ])('the zh message of %s is the published one', (code, message) => {
    expect(text(`error.${code}`, 'zh')).toBe(message);
    expect(messageOf(code, 'zh')).toBe(message);
  });

  it('fills the minimum into 密码长度应大于{min}', () => {
    expect(messageOf(ErrorCode.PASSWORD_TOO_SHORT, 'zh', { min: 8 })).toBe('密码长度应大于8');
    expect(messageOf(ErrorCode.PASSWORD_TOO_LONG, 'en', { max: 20 })).toBe(
      'The password must be at most 20 characters long',
    );
  });

  it('fills the count into 新密码不能与最近{n}次使用的密码相同', () => {
    expect(messageOf(ErrorCode.PASSWORD_REUSED, 'zh', { n: 5 })).toBe('新密码不能与最近5次使用的密码相同');
  });

  it('answers English for en and keeps the old helpers on the catalogue', () => {
    expect(messageOf(ErrorCode.BAD_CREDENTIALS, 'en')).toBe('Wrong user name or password');
    expect(tipText('PASSWORD_EXPIRES_SOON', 'zh', { days: 3 })).toBe('您的密码将在3天后过期,请尽快修改密码');
    expect(bilingual('notification.wrongPasswordHint')).toEqual({
      zh: '异常登录:密码错误',
      en: 'Abnormal login: wrong password',
    });
  });

  // Field problems name the field by its label in each language, never its input name.
  it.each([
    [
      'validation.undecryptable',
      'password',
      { algorithm: 'SM2' },
      '密码无法解密,请使用/sys/publicKey的公钥以SM2加密',
      'Password does not decrypt; encrypt it with SM2 under /sys/publicKey',
    ],
    [
      'validation.maxBelowMin',
      'maxPasswordLength',
      { min: 30 },
      '密码最大长度不能小于密码最小长度(30)',
      'Maximum password length must not be below the minimum password length (30)',
    ],
    ['validation.identifierTaken', 'email', {}, '邮箱已被其他用户', 'E-mail: another user already has it'],
    ['validation.unknownRoles', 'roles', { roles: 'a,b' }, '角色中有不存在的角色: a,b', 'Roles: unknown a,b'],
    ['rule.maxLength', 'name', { max: 64 }, '姓名不能超过64个字符', 'Name must be at most 64 characters long'],
    ['rule.min', 'maxFailureTimes', { min: 1 }, '最大失败次数不能小于1', 'Failures before lock must be at least 1'],
    [
      'validation.clockTime',
      'timeWindows.0.start',
      {},
      '时间段第1项的开始时间应为HH:mm',
      'Time windows entry 1: start: not a time',
    ],
  ] as [TextKey, string, Record<string, string | number>, string, string][])(
    '%s of %s names the label',
    (key, field, params, zh, en) => {
      const problem = fieldProblem(key, field, params, 'CreateUserDto');
      expect(problem.zh.startsWith(zh)).toBe(true);
      expect(problem.en.startsWith(en)).toBe(true);
    },
  );

  it('inserts a value as sent, without reading placeholders in it (a field named "{rule}")', () => {
    expect(text('rule.unknownField', 'zh', { field: '{label}', label: 'x' })).toBe('不接受的参数: {label}');
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
