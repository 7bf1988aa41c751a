import { HttpException } from '@nestjs/common';

import { type ActiveToken, type Introspection, LoginPolicyClient } from './client';
import { callerOf, type GuardRequest, tokenOf } from './guard';

const alice: ActiveToken = {
  active: true,
  userId: '7',
  username: 'alice',
  permissions: ['report:read'],
  tempUser: false,
  loginTime: 0,
  expireAt: Number.MAX_SAFE_INTEGER,
  mfa: false,
};

/** A guard over a client whose service answers `answer` (or cannot be reached when it is an Error). */
function newGuard(answer: Introspection | Error, code = 'report:read') {
  const asked: any[] = [];
  const errors: unknown[] = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    asked.push(JSON.parse(String(init.body)));
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify({ success: true, code: 'OK', message: '', data: answer }));
  }) as typeof globalThis.fetch;
  const client = new LoginPolicyClient({ baseUrl: 'http://lps.test', apiKey: 'lps_k', fetch });
  const sut = client.requirePermission(code, { onError: (e) => errors.push(e) });
  return { sut, asked, errors };
}

const request = (headers: GuardRequest['headers'], ip = '10.0.0.9'): GuardRequest => ({ headers, ip });

describe('tokenOf', () => {
  it('reads Admin-Token first, then Authorization: Bearer, as the service does', () => {
    expect(tokenOf({ 'admin-token': 'a', authorization: 'Bearer b' })).toBe('a');
    expect(tokenOf({ authorization: 'Bearer b' })).toBe('b');
    expect(tokenOf({ authorization: 'bearer  b ' })).toBe('b');
    expect(tokenOf({ authorization: 'Basic Yjpj' })).toBeUndefined();
    expect(tokenOf({ authorization: 'Bearer two words' })).toBeUndefined();
    expect(tokenOf({})).toBeUndefined();
  });
});

describe('PermissionGuard.decide', () => {
  it('lets a token holding the code through, with its IP asked about, and remembers the caller', async () => {
    const { sut, asked } = newGuard(alice);
    const req = request({ authorization: 'Bearer tok' });
    expect(await sut.decide(req)).toEqual({ allowed: true, caller: alice });
    expect(asked).toEqual([{ token: 'tok', ip: '10.0.0.9' }]);
    expect(callerOf(req)).toEqual(alice);
    expect(callerOf({})).toBeUndefined();
  });

  it('lets `*` through on any code', async () => {
    const { sut } = newGuard({ ...alice, permissions: ['*'] }, 'anything:at:all');
    expect((await sut.decide(request({ 'admin-token': 'tok' }))).allowed).toBe(true);
  });

  it.each([
    ['no token', {}, alice, 401, 'NOT_LOGGED_IN', '未登录或登录已过期'],
    [
      'an inactive token',
      { 'admin-token': 't' },
      { active: false, reason: 'KICKED_OUT' },
      401,
      'KICKED_OUT',
      '账号已在其他地方登录',
    ],
    [
      'a token of another IP',
      { 'admin-token': 't' },
      { active: false, reason: 'IP_MISMATCH' },
      401,
      'IP_MISMATCH',
      '登录IP已变化,请重新登录',
    ],
    [
      'a token without the code',
      { 'admin-token': 't' },
      { ...alice, permissions: ['report:write'] },
      403,
      'FORBIDDEN',
      '没有权限',
    ],
    [
      'a temporary token',
      { 'admin-token': 't' },
      { ...alice, tempUser: true },
      403,
      'TEMP_TOKEN_FORBIDDEN',
      '请先修改密码',
    ],
  ] as const)('refuses %s with the envelope', async (_what, headers, answer, status, code, message) => {
    const { sut } = newGuard(answer as Introspection);
    const req = request({ ...headers });
    expect(await sut.decide(req)).toEqual({
      allowed: false,
      status,
      body: { success: false, code, message, data: null },
    });
    expect(callerOf(req)).toBeUndefined();
  });

  it('answers in English to Accept-Language: en', async () => {
    const { sut } = newGuard({ ...alice, permissions: [] });
    const decision = await sut.decide(request({ 'admin-token': 't', 'accept-language': 'en-US,en;q=0.9' }));
    expect(decision).toMatchObject({ body: { code: 'FORBIDDEN', message: 'Permission denied' } });
  });

  it('answers 503 SERVICE_UNAVAILABLE when the service cannot be asked, and reports why', async () => {
    const down = new Error('connect ECONNREFUSED');
    const { sut, errors } = newGuard(down);
    expect(await sut.decide(request({ 'admin-token': 't' }))).toMatchObject({
      allowed: false,
      status: 503,
      body: { code: 'SERVICE_UNAVAILABLE', message: '服务暂时不可用,请稍后再试' },
    });
    expect(errors).toEqual([expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', cause: down })]);
  });
});

describe('PermissionGuard.nest', () => {
  const context = (req: GuardRequest) => ({ switchToHttp: () => ({ getRequest: () => req }) });

  it("throws Nest's HttpException carrying the envelope and the status", async () => {
    const { sut } = newGuard({ active: false, reason: 'NOT_LOGGED_IN' });
    const err = await sut.nest.canActivate(context(request({ 'admin-token': 't' }))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpException);
    expect((err as HttpException).getStatus()).toBe(401);
    expect((err as HttpException).getResponse()).toEqual({
      success: false,
      code: 'NOT_LOGGED_IN',
      message: '未登录或登录已过期',
      data: null,
    });
  });

  it('answers true for a token with the code', async () => {
    const { sut } = newGuard(alice);
    await expect(sut.nest.canActivate(context(request({ 'admin-token': 't' })))).resolves.toBe(true);
  });
});
