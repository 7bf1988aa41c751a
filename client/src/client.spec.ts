import { type ActiveToken, type Introspection, LoginPolicyClient, type LoginPolicyClientOptions } from './client';
import { LoginPolicyError } from './errors';

/** The client over a fetch that answers introspection from a table, counting the requests. */
function newClient(options: Partial<LoginPolicyClientOptions> = {}) {
  let now = 1_000_000;
  const answers = new Map<string, Introspection>();
  const requests: { url: string; body: any; headers: Record<string, string> }[] = [];
  let fail: Error | null = null;
  const fetch = (async (url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body));
    requests.push({ url, body, headers: init.headers as Record<string, string> });
    if (fail) throw fail;
    const data = answers.get(body.token) ?? { active: false, reason: 'NOT_LOGGED_IN' };
    return new Response(JSON.stringify({ success: true, code: 'OK', message: '操作成功', data }));
  }) as typeof globalThis.fetch;
  const sut = new LoginPolicyClient({
    baseUrl: 'http://lps.test/',
    apiKey: 'lps_key',
    fetch,
    now: () => now,
    ...options,
  });
  return {
    sut,
    requests,
    answers,
    advance: (ms: number) => (now += ms),
    now: () => now,
    failWith: (err: Error | null) => (fail = err),
  };
}

const active = (over: Partial<ActiveToken> = {}): ActiveToken => ({
  active: true,
  userId: '7',
  username: 'alice',
  permissions: ['sys:user:list'],
  tempUser: false,
  loginTime: 0,
  expireAt: Number.MAX_SAFE_INTEGER,
  mfa: false,
  ...over,
});

describe('LoginPolicyClient.introspect', () => {
  it('asks the service with the API key, the token and the IP', async () => {
    const { sut, requests, answers } = newClient();
    answers.set('tok', active());
    expect(await sut.introspect('tok', { ip: '10.1.2.3' })).toEqual(active());
    expect(requests).toEqual([
      {
        url: 'http://lps.test/sys/token/introspect',
        body: { token: 'tok', ip: '10.1.2.3' },
        headers: expect.objectContaining({ authorization: 'Bearer lps_key', 'content-type': 'application/json' }),
      },
    ]);
  });

  it('reuses an active answer for ttlMs, then asks again', async () => {
    const { sut, requests, answers, advance } = newClient({ introspectionCache: { ttlMs: 3000 } });
    answers.set('tok', active());
    await sut.introspect('tok');
    advance(2999);
    expect((await sut.introspect('tok')).active).toBe(true);
    expect(requests).toHaveLength(1);
    answers.set('tok', { active: false, reason: 'KICKED_OUT' });
    advance(1);
    expect(await sut.introspect('tok')).toEqual({ active: false, reason: 'KICKED_OUT' });
    expect(requests).toHaveLength(2);
  });

  it('keeps an active answer no longer than the session it describes', async () => {
    const { sut, requests, answers, advance, now } = newClient({ introspectionCache: { ttlMs: 5000 } });
    answers.set('tok', active({ expireAt: now() + 1000 }));
    await sut.introspect('tok');
    advance(999);
    await sut.introspect('tok');
    expect(requests).toHaveLength(1);
    advance(1);
    await sut.introspect('tok');
    expect(requests).toHaveLength(2);
  });

  it('keeps inactive answers for inactiveTtlMs only, and not at all with 0', async () => {
    const { sut, requests, advance } = newClient({ introspectionCache: { ttlMs: 5000, inactiveTtlMs: 1000 } });
    await sut.introspect('dead');
    advance(999);
    await sut.introspect('dead');
    expect(requests).toHaveLength(1);
    advance(1);
    await sut.introspect('dead');
    expect(requests).toHaveLength(2);

    const never = newClient({ introspectionCache: { inactiveTtlMs: 0 } });
    await never.sut.introspect('dead');
    await never.sut.introspect('dead');
    expect(never.requests).toHaveLength(2);
  });

  it('keys the cache by token and IP: another IP is asked about on its own', async () => {
    const { sut, requests, answers } = newClient();
    answers.set('tok', active());
    await sut.introspect('tok', { ip: '10.0.0.1' });
    await sut.introspect('tok', { ip: '10.0.0.2' });
    await sut.introspect('tok', { ip: '10.0.0.1' });
    expect(requests.map((r) => r.body.ip)).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('shares one request among concurrent calls for the same token', async () => {
    const { sut, requests, answers } = newClient();
    answers.set('tok', active());
    const all = await Promise.all([sut.introspect('tok'), sut.introspect('tok'), sut.introspect('tok')]);
    expect(all.every((a) => a.active)).toBe(true);
    expect(requests).toHaveLength(1);
  });

  it('holds at most maxEntries answers, dropping the least recently used', async () => {
    const { sut, requests, answers } = newClient({ introspectionCache: { maxEntries: 2 } });
    for (const t of ['a', 'b', 'c']) answers.set(t, active({ username: t }));
    await sut.introspect('a');
    await sut.introspect('b');
    await sut.introspect('a'); // a is now the most recently used
    await sut.introspect('c'); // evicts b
    await sut.introspect('a');
    expect(requests.map((r) => r.body.token)).toEqual(['a', 'b', 'c']);
    await sut.introspect('b');
    expect(requests.map((r) => r.body.token)).toEqual(['a', 'b', 'c', 'b']);
  });

  it('answers an empty or over-long token as NOT_LOGGED_IN without asking, and sends no IP that is not one', async () => {
    const { sut, requests, answers } = newClient();
    expect(await sut.introspect('')).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    expect(await sut.introspect('x'.repeat(257))).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    expect(requests).toHaveLength(0);
    answers.set('tok', active());
    await sut.introspect('tok', { ip: 'not-an-ip' });
    expect(requests[0].body).toEqual({ token: 'tok' });
  });

  it('throws a typed error when the service cannot be reached, and caches no failure', async () => {
    const { sut, requests, answers, failWith } = newClient({ language: 'en' });
    answers.set('tok', active());
    failWith(new Error('connect ECONNREFUSED'));
    const err = await sut.introspect('tok').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginPolicyError);
    expect(err).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 0,
      message: 'The service is temporarily unavailable',
    });
    failWith(null);
    expect((await sut.introspect('tok')).active).toBe(true);
    expect(requests).toHaveLength(2);
  });

  it("throws the service's refusal of the API key with its code, and needs an API key at all", async () => {
    const fetch = (async () =>
      new Response(JSON.stringify({ success: false, code: 'FORBIDDEN', message: '没有权限', data: null }), {
        status: 403,
      })) as unknown as typeof globalThis.fetch;
    const sut = new LoginPolicyClient({ baseUrl: 'http://lps.test', apiKey: 'lps_weak', fetch });
    await expect(sut.introspect('tok')).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403, message: '没有权限' });
    const keyless = new LoginPolicyClient({ baseUrl: 'http://lps.test', fetch });
    await expect(keyless.introspect('tok')).rejects.toThrow(/apiKey/);
  });

  it('refuses cache settings outside their bounds', () => {
    const make = (introspectionCache: object) => () =>
      new LoginPolicyClient({ baseUrl: 'http://lps.test', introspectionCache });
    expect(make({ ttlMs: 60_001 })).toThrow(RangeError);
    expect(make({ ttlMs: -1 })).toThrow(RangeError);
    expect(make({ ttlMs: 1000, inactiveTtlMs: 2000 })).toThrow(/inactiveTtlMs/);
    expect(make({ maxEntries: 1.5 })).toThrow(/maxEntries/);
    expect(make({ ttlMs: 0, inactiveTtlMs: 0 })).not.toThrow();
  });
});
