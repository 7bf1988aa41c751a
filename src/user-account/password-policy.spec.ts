import { AppException } from '../common/app.exception';
import { ErrorCode, messageOf } from '../common/error-code';
import { UserStrategy } from '../strategy/strategy.types';
import { checkPasswordComplexity, generatePassword } from './password-policy';

const defaults = new UserStrategy();
const failure = (password: string, rules = defaults): { code: ErrorCode; message: string } | null => {
  try {
    checkPasswordComplexity(password, rules);
    return null;
  } catch (err) {
    const e = err as AppException;
    return { code: e.code, message: messageOf(e.code, 'zh', e.params) };
  }
};

describe('password complexity', () => {
  it('accepts a password that meets the default rules', () => {
    expect(failure('abc12#')).toBeNull();
  });

  it("reports the first failing rule in the rules' order, with the published messages", () => {
    // Too short AND missing everything: length is reported first.
    expect(failure('A')).toEqual({ code: ErrorCode.PASSWORD_TOO_SHORT, message: '密码长度应大于6' });
    expect(failure('a1#'.repeat(7) + 'x')).toEqual({ code: ErrorCode.PASSWORD_TOO_LONG, message: '密码长度应小于20' });
    expect(failure('abcdef#')).toEqual({ code: ErrorCode.PASSWORD_NEEDS_DIGIT, message: '密码应包含数字' });
    expect(failure('abcde1#', { ...defaults, includeUpperCase: true })).toEqual({
      code: ErrorCode.PASSWORD_NEEDS_UPPER,
      message: '密码应包含大写字符',
    });
    expect(failure('ABCDE1#')).toEqual({ code: ErrorCode.PASSWORD_NEEDS_LOWER, message: '密码应包含小写字符' });
    expect(failure('abcde12')).toEqual({ code: ErrorCode.PASSWORD_NEEDS_SYMBOL, message: '密码应包含特殊字符' });
  });

  it('skips a length rule set to 0 and a class rule set to false', () => {
    const lax = {
      ...defaults,
      minPasswordLength: 0,
      maxPasswordLength: 0,
      includeNumber: false,
      includeSymbol: false,
      includeLowerCase: false,
    };
    expect(failure('X', lax)).toBeNull();
    expect(failure('x'.repeat(60), lax)).toBeNull();
  });

  it('counts length in code points and refuses more than 72 UTF-8 bytes whatever maxPasswordLength says', () => {
    expect(failure('密码密码a1#', { ...defaults, minPasswordLength: 7 })).toBeNull();
    const wide = '密'.repeat(24) + 'a1#'; // 27 code points, 75 bytes
    expect(failure(wide, { ...defaults, maxPasswordLength: 0 })).toEqual({
      code: ErrorCode.PASSWORD_TOO_LONG,
      message: '密码长度应小于72',
    });
  });

  it('treats any non-letter, non-digit, non-space character as a symbol, and a space as none', () => {
    expect(failure('abc123_')).toBeNull();
    expect(failure('abc123€')).toBeNull();
    expect(failure('abc 123')).toMatchObject({ code: ErrorCode.PASSWORD_NEEDS_SYMBOL });
    expect(failure('abc123中')).toMatchObject({ code: ErrorCode.PASSWORD_NEEDS_SYMBOL });
  });

  it('generates passwords that pass the rules they were made for', () => {
    const strict = { ...defaults, includeUpperCase: true, minPasswordLength: 16, maxPasswordLength: 16 };
    for (let i = 0; i < 50; i++) {
      const pw = generatePassword(strict);
      expect(pw).toHaveLength(16);
      expect(failure(pw, strict)).toBeNull();
    }
  });
});

describe('generated passwords', () => {
  it('come in groups of four joined by -, without look-alike characters', () => {
    for (let i = 0; i < 50; i++) {
      const pw = generatePassword(defaults);
      expect(pw).toMatch(/^[A-HJ-NP-Za-km-z2-9]{4}(-[A-HJ-NP-Za-km-z2-9]{4}){2,}$/);
      expect(pw).not.toMatch(/[0O1lIo]/);
      expect(failure(pw, { ...defaults, includeUpperCase: true, includeSymbol: true })).toBeNull();
    }
  });

  it('take whole groups up to the minimum length', () => {
    expect(generatePassword({ ...defaults, minPasswordLength: 20, maxPasswordLength: 0 })).toMatch(
      /^(\w{4}-){4}\w{4}$/,
    );
  });
});
