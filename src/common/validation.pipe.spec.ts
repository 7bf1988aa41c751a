import { ArgumentMetadata } from '@nestjs/common';

import { LoginDto } from '../auth/dto/login.dto';
import { ListUsersDto } from '../user-account/dto/user.dto';
import { AppException } from './app.exception';
import { ErrorCode } from './error-code';
import { parseFormBody } from './form-body';
import { BodyValidationPipe, checkNoInput, NoInputDto } from './validation.pipe';

const pipe = new BodyValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

/** The VALIDATION_FAILED detail the pipe refuses with (fails the test when the body is accepted). */
async function refusal(value: unknown, metatype: ArgumentMetadata['metatype']): Promise<{ zh: string; en: string }> {
  let accepted: unknown;
  try {
    accepted = await pipe.transform(value, body(metatype));
  } catch (err) {
    expect(err).toBeInstanceOf(AppException);
    expect((err as AppException).code).toBe(ErrorCode.VALIDATION_FAILED);
    return (err as AppException).detail!;
  }
  throw new Error(`accepted: ${JSON.stringify(accepted)}`);
}

const login = { account: 'admin', password: 'Y2lwaGVy' };
const NOT_OBJECT = 'The request body must be a JSON object';

describe('BodyValidationPipe (strict bodies)', () => {
  describe('accepted bodies', () => {
    it('a valid body comes out as the DTO with its values', async () => {
      const out = await pipe.transform({ ...login, imgId: 'c1', imgCode: 'ab12' }, body(LoginDto));
      expect(out).toBeInstanceOf(LoginDto);
      expect(out).toEqual({ ...login, imgId: 'c1', imgCode: 'ab12' });
    });

    it('an absent body counts as {} (defaults apply); JSON null does not', async () => {
      for (const value of [undefined, {}]) {
        const out = await pipe.transform(value, body(ListUsersDto));
        expect(out).toBeInstanceOf(ListUsersDto);
        expect(out).toEqual({ pageNum: 1, pageSize: 10 });
      }
      expect((await refusal(undefined, LoginDto)).en).toBe('Account must be text');
      expect((await refusal(null, ListUsersDto)).en).toBe(NOT_OBJECT);
      expect((await refusal(null, LoginDto)).en).toBe(NOT_OBJECT);
    });

    it('a form-encoded body may carry numbers as text; a JSON body may not', async () => {
      expect(await pipe.transform(parseFormBody('pageSize=20&keyword=x'), body(ListUsersDto))).toEqual({
        pageNum: 1,
        pageSize: 20,
        keyword: 'x',
      });
      expect((await refusal({ pageSize: '20' }, ListUsersDto)).en).toBe('Page size must be a whole number');
    });

    it('keeps well-formed non-ASCII text, surrogate pairs included', async () => {
      expect(await pipe.transform({ keyword: '张三 😀' }, body(ListUsersDto))).toMatchObject({ keyword: '张三 😀' });
    });
  });

  describe('unknown fields', () => {
    it('are refused, naming the field, in zh and en', async () => {
      expect(await refusal({ ...login, role: 'admin' }, LoginDto)).toEqual({
        zh: '不接受的参数: role',
        en: 'Not an accepted field: role',
      });
    });

    it.each(['valueOf', 'prototype', 'constructor', 'toString', 'hasOwnProperty', 'isPrototypeOf'])(
      'the inherited name %s is an unknown field too',
      async (key) => {
        const detail = await refusal({ ...login, [key]: 'x' }, LoginDto);
        expect(detail.en).toBe(`Not an accepted field: ${key}`);
        expect((await refusal({ [key]: 1 }, ListUsersDto)).en).toBe(`Not an accepted field: ${key}`);
      },
    );

    it('an own __proto__ key (as JSON.parse makes it) is an unknown field and pollutes nothing', async () => {
      const parsed = JSON.parse('{"account":"admin","password":"x","__proto__":{"polluted":true}}');
      expect((await refusal(parsed, LoginDto)).en).toBe('Not an accepted field: __proto__');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((await refusal(JSON.parse('{"__proto__":1}'), ListUsersDto)).en).toBe('Not an accepted field: __proto__');
    });

    it('an operation without input refuses any field, also on an otherwise empty body', async () => {
      expect(await pipe.transform({}, body(NoInputDto))).toEqual({});
      expect(await pipe.transform(undefined, body(NoInputDto))).toEqual({});
      expect((await refusal(null, NoInputDto)).en).toBe(NOT_OBJECT);
      expect((await refusal({ a: 1 }, NoInputDto)).en).toBe('Not an accepted field: a');
      expect((await refusal({ pageSize: 10 }, NoInputDto)).en).toBe('Not an accepted field: pageSize');
      expect((await refusal({ constructor: 1 }, NoInputDto)).en).toBe('Not an accepted field: constructor');
    });

    it('checkNoInput (a handler without @Body) accepts and refuses what the pipe does for NoInputDto, with the same answer', async () => {
      const deep = JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40));
      const bodies = [
        undefined,
        {},
        null,
        'text',
        42,
        [],
        { a: 1 },
        JSON.parse('{"__proto__":1}'),
        { x: '\ud800' },
        deep,
      ];
      for (const value of bodies) {
        const byPipe = await pipe.transform(value, body(NoInputDto)).then(
          () => null,
          (err: AppException) => err,
        );
        let direct: AppException | null = null;
        try {
          checkNoInput(value);
        } catch (err) {
          direct = err as AppException;
        }
        expect(direct === null).toBe(byPipe === null);
        if (byPipe)
          expect({ code: direct!.code, detail: direct!.detail, fields: direct!.fields }).toEqual({
            code: byPipe.code,
            detail: byPipe.detail,
            fields: byPipe.fields,
          });
      }
    });
  });

  describe('bodies that are not objects', () => {
    it.each([
      ['null', null],
      ['a string', 'text'],
      ['a number', 42],
      ['true', true],
      ['an array', [login]],
      ['an empty array', []],
    ])('%s is refused, naming the body', async (_name, value) => {
      expect(await refusal(value, LoginDto)).toEqual({ zh: '请求体必须是JSON对象', en: NOT_OBJECT });
      expect((await refusal(value, NoInputDto)).en).toBe(NOT_OBJECT);
      const err = await pipe.transform(value, body(ListUsersDto)).catch((e: AppException) => e);
      expect((err as AppException).fields?.map((f) => f.field)).toEqual(['body']);
    });
  });

  describe('structure', () => {
    const nested = (depth: number) => {
      let node: Record<string, unknown> = {};
      for (let i = 0; i < depth; i++) node = { a: node };
      return node;
    };

    it('refuses nesting deeper than the limit without overflowing the stack', async () => {
      expect((await refusal({ ...login, imgId: nested(40) }, LoginDto)).en).toBe(
        'The request body is nested too deeply',
      );
      expect((await refusal(nested(100_000), ListUsersDto)).en).toBe('The request body is nested too deeply');
    });

    it('nesting within the limit is judged by the DTO’s rules instead', async () => {
      expect((await refusal({ ...login, imgId: nested(5) }, LoginDto)).en).toBe('Captcha ID must be text');
    });

    it('refuses a lone surrogate in a value, naming the top-level field', async () => {
      expect(await refusal({ account: 'ad\ud800min', password: 'x' }, LoginDto)).toEqual({
        zh: '登录账号含有无法识别的字符',
        en: 'Account is not well-formed Unicode text',
      });
      expect((await refusal({ ...login, imgCode: 'x\udc00' }, LoginDto)).en).toBe(
        'Captcha is not well-formed Unicode text',
      );
      expect((await refusal({ keyword: ['ok', { deep: '\udfff' }] }, ListUsersDto)).en).toBe(
        'Keyword is not well-formed Unicode text',
      );
    });

    it('refuses a lone surrogate in a key without echoing the ill-formed key', async () => {
      expect((await refusal({ ...login, ['k\ud83d']: 1 }, LoginDto)).en).toBe(
        'The request body is not well-formed Unicode text',
      );
    });
  });

  describe('the message names the first, most basic rule broken', () => {
    it('a missing field: “must be a string”, not a length rule', async () => {
      expect(await refusal({ password: 'x' }, LoginDto)).toEqual({
        zh: '登录账号应为文本',
        en: 'Account must be text',
      });
    });

    it('a wrong type: the type rule before the length or range rules', async () => {
      expect((await refusal({ account: 5, password: 'x' }, LoginDto)).en).toBe('Account must be text');
      expect((await refusal({ account: null, password: 'x' }, LoginDto)).en).toBe('Account must be text');
      expect((await refusal({ pageSize: 1.5 }, ListUsersDto)).en).toBe('Page size must be a whole number');
      expect((await refusal({ pageSize: null }, ListUsersDto)).en).toBe('Page size must be a whole number');
      expect((await refusal({ keyword: { a: 1 } }, ListUsersDto)).en).toBe('Keyword must be text');
    });

    it('the right type out of range: the range rule', async () => {
      expect((await refusal({ pageSize: 500 }, ListUsersDto)).en).toBe('Page size must be at most 200');
      expect((await refusal({ pageNum: 0 }, ListUsersDto)).en).toBe('Page must be at least 1');
      expect((await refusal({ account: '', password: 'x' }, LoginDto)).en).toBe('Account is required');
      expect((await refusal({ account: 'a'.repeat(129), password: 'x' }, LoginDto)).en).toBe(
        'Account must be at most 128 characters long',
      );
    });

    it('an unknown field is named before a wrong value of a known field', async () => {
      expect((await refusal({ account: 5, password: 'x', extra: 1 }, LoginDto)).en).toBe(
        'Not an accepted field: extra',
      );
    });
  });
});
