import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Test } from '@nestjs/testing';

import { inMemoryRepositories, InMemoryUserRepository } from '../../test/support/in-memory';
import { testPiiCipher } from '../../test/support/pii';
import { AppException } from '../common/app.exception';
import { ErrorCode, messageOf } from '../common/error-code';
import { PiiCipher } from '../pii/pii-cipher';
import { StrategyService } from '../strategy/strategy.service';
import { PasswordRules, UserStrategy } from '../strategy/strategy.types';
import { COMMON_PASSWORD_FILES, CommonPasswords, loadCommonPasswords } from './common-passwords/common-passwords';
import { PasswordHasher } from './password-hasher';
import { accountParts, containsAccount, PasswordScreen, previousToKeep } from './password-screen';
import { UserEntity } from './user.entity';

/** `hash:<plain>`: a compare is a string comparison, and every compare is counted. */
class FakeHasher extends PasswordHasher {
  compared: string[] = [];
  async hash(plain: string) {
    return `hash:${plain}`;
  }
  async matches(plain: string, hash: string) {
    this.compared.push(hash);
    return hash === `hash:${plain}`;
  }
  async burn() {}
}

const T0 = new Date('2025-06-01T00:00:00.000Z');

/** The error a check throws, as code and zh message; null when it passes. */
async function refusal(check: Promise<void>): Promise<{ code: ErrorCode; message: string } | null> {
  try {
    await check;
    return null;
  } catch (err) {
    if (!(err instanceof AppException)) throw err;
    return { code: err.code, message: messageOf(err.code, 'zh', err.params) };
  }
}

describe('Password checks (PasswordScreen)', () => {
  let screen: PasswordScreen;
  let users: InMemoryUserRepository;
  let hasher: FakeHasher;
  let rules: PasswordRules;
  let user: UserEntity;

  beforeEach(async () => {
    const repos = inMemoryRepositories();
    users = repos.users;
    hasher = new FakeHasher();
    rules = {
      ...new UserStrategy(),
      minPasswordLength: 1,
      includeLowerCase: false,
      includeSymbol: false,
      includeNumber: false,
    };
    const module = await Test.createTestingModule({
      providers: [
        PasswordScreen,
        CommonPasswords,
        ...repos.providers,
        { provide: PasswordHasher, useValue: hasher },
        { provide: PiiCipher, useValue: await testPiiCipher() },
        { provide: StrategyService, useValue: { passwordRules: async () => rules } },
      ],
    }).compile();
    screen = module.get(PasswordScreen);
    user = users.add({
      id: 'u1',
      username: 'ZhangSan',
      name: '张三',
      mobile: '13800138000',
      email: 'Zs.Work@Example.com',
      password: 'hash:current',
      passwordUpdateTime: T0,
      createTime: T0,
      locked: false,
      disabled: false,
      unlockTime: null,
      failureResetTime: null,
      lastLoginTime: null,
    });
  });

  const check = (password: string) => refusal(screen.checkOwn(user, password));

  describe('account parts (rejectAccountInPassword)', () => {
    it('are the user name, the mobile and the e-mail before @, lower-cased', () => {
      expect(accountParts(user)).toEqual(['zhangsan', '13800138000', 'zs.work']);
    });

    it('count only values of 3 characters or more (code points), and leave out what is absent', () => {
      expect(accountParts({ username: 'ab', mobile: null, email: 'xy@example.com' })).toEqual([]);
      expect(accountParts({ username: 'abc', mobile: '12', email: 'xyz@example.com' })).toEqual(['abc', 'xyz']);
      expect(accountParts({ username: '张三丰', mobile: '123', email: null })).toEqual(['张三丰', '123']);
      expect(accountParts({ username: '张三', mobile: null, email: '@example.com' })).toEqual([]);
    });

    it('match anywhere in the password, whatever the case', () => {
      expect(containsAccount('my-ZHANGSAN-pw', user)).toBe(true);
      expect(containsAccount('x13800138000', user)).toBe(true);
      expect(containsAccount('ZS.WORK!1', user)).toBe(true);
      expect(containsAccount('zhang-san', user)).toBe(false);
      expect(containsAccount('example.com', user)).toBe(false);
      expect(containsAccount('ab#1', { username: 'ab', mobile: null, email: 'ab@x.cn' })).toBe(false);
      expect(containsAccount('Abc#1', { username: 'abc', mobile: null, email: null })).toBe(true);
    });

    it('refuse with PASSWORD_CONTAINS_ACCOUNT only while the rule is on', async () => {
      expect(await check('MyZhangsan')).toBeNull();
      rules.rejectAccountInPassword = true;
      expect(await check('MyZhangsan')).toEqual({
        code: ErrorCode.PASSWORD_CONTAINS_ACCOUNT,
        message: '密码不能包含账号、手机号或邮箱',
      });
    });
  });

  describe('the common-password list (rejectCommonPasswords)', () => {
    it('holds at least 10 000 entries, Chinese patterns among them, and is read once', () => {
      const list = loadCommonPasswords();
      expect(list.size).toBeGreaterThanOrEqual(10_000);
      for (const entry of [
        'woaini1314',
        'qq123456',
        '5201314',
        '1qaz2wsx',
        'wang1990',
        '19880808',
        'woaini@123',
        'password1',
        'zhongguo123',
      ]) {
        expect({ entry, listed: list.has(entry) }).toEqual({ entry, listed: true });
      }
      // One entry a line, lower case, no blank lines: what the loader and docs/policies.md describe.
      for (const file of COMMON_PASSWORD_FILES) {
        const lines = readFileSync(join(__dirname, 'common-passwords', file), 'utf8').split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.filter((l) => l !== l.trim().toLowerCase() || l === '')).toEqual([]);
      }
    });

    it('ships in the build: nest build copies the list files beside the compiled loader', () => {
      const nestCli = JSON.parse(readFileSync(join(__dirname, '..', '..', 'nest-cli.json'), 'utf8'));
      expect(nestCli.compilerOptions.assets).toContainEqual({
        include: 'user-account/common-passwords/*.txt',
        outDir: 'dist',
      });
      for (const file of COMMON_PASSWORD_FILES) expect(file).toMatch(/^[\w-]+\.txt$/);
    });

    it('refuses a listed password whatever its case, only while the rule is on', async () => {
      expect(await check('WoAiNi1314')).toBeNull();
      rules.rejectCommonPasswords = true;
      for (const password of ['WoAiNi1314', 'woaini1314', 'QQ123456', 'Password1', 'PASSWORD1']) {
        expect({ password, refusal: await check(password) }).toEqual({
          password,
          refusal: { code: ErrorCode.PASSWORD_TOO_COMMON, message: '密码过于常见,请更换' },
        });
      }
      expect(await check('WoAiNi1314-plus')).toBeNull();
    });
  });

  describe('the history (passwordHistoryCount)', () => {
    /** As the service changes a password: the replaced hash joins the history, pruned for `n`. */
    const changeTo = async (plain: string, n: number) => {
      await users.setPassword('u1', `hash:${plain}`, T0, previousToKeep(n));
      user = (await users.withPassword('u1'))!;
    };

    it('N counts the current password: N = 1 refuses only the current one', async () => {
      rules.passwordHistoryCount = 1;
      expect(await check('current')).toEqual({
        code: ErrorCode.PASSWORD_REUSED,
        message: '新密码不能与最近1次使用的密码相同',
      });
      expect(await check('something-new')).toBeNull();
    });

    it('N refuses the current and the N − 1 before it, and takes back the one N + 1 back', async () => {
      for (const p of ['p1', 'p2', 'p3']) await changeTo(p, 3);
      rules.passwordHistoryCount = 3;
      // current p3, then p2, p1; `current` (the first) is 4 back.
      for (const reused of ['p3', 'p2', 'p1']) {
        expect({ reused, refusal: await check(reused) }).toEqual({
          reused,
          refusal: { code: ErrorCode.PASSWORD_REUSED, message: '新密码不能与最近3次使用的密码相同' },
        });
      }
      expect(await check('current')).toBeNull();
      // The history holds N − 1 hashes: the current one is in sys_user.
      expect(users.history.get('u1')).toEqual(['hash:p2', 'hash:p1']);
    });

    it('0 compares nothing; a new password costs N compares, a reused current one costs one', async () => {
      for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) await changeTo(p, 5);
      expect(await check('p5')).toBeNull();
      expect(hasher.compared).toEqual([]);
      rules.passwordHistoryCount = 5;
      expect(await check('brand-new')).toBeNull();
      expect(hasher.compared).toEqual(['hash:p5', 'hash:p4', 'hash:p3', 'hash:p2', 'hash:p1']);
      hasher.compared = [];
      expect((await check('p5'))?.code).toBe(ErrorCode.PASSWORD_REUSED);
      expect(hasher.compared).toEqual(['hash:p5']);
    });
  });

  it('runs the six complexity rules first, then account, common list, history, in that order', async () => {
    await users.setPassword('u1', 'hash:zhangsan1314', T0, 0);
    user = (await users.withPassword('u1'))!;
    Object.assign(rules, {
      rejectAccountInPassword: true,
      rejectCommonPasswords: true,
      passwordHistoryCount: 1,
      includeSymbol: true,
    });
    // zhangsan1314: contains the user name, is on the list (surname + 1314), and is the current password.
    expect((await check('zhangsan1314'))?.code).toBe(ErrorCode.PASSWORD_NEEDS_SYMBOL);
    rules.includeSymbol = false;
    expect((await check('zhangsan1314'))?.code).toBe(ErrorCode.PASSWORD_CONTAINS_ACCOUNT);
    rules.rejectAccountInPassword = false;
    expect((await check('zhangsan1314'))?.code).toBe(ErrorCode.PASSWORD_TOO_COMMON);
    rules.rejectCommonPasswords = false;
    expect((await check('zhangsan1314'))?.code).toBe(ErrorCode.PASSWORD_REUSED);
    rules.passwordHistoryCount = 0;
    expect(await check('zhangsan1314')).toBeNull();
  });
});
