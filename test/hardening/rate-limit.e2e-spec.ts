import { randomBytes } from 'node:crypto';

import { createClient } from 'redis';

import { KvStore } from '../../src/store/kv.store';
import { MemoryKvStore } from '../../src/store/memory-kv.store';
import { RedisKvStore } from '../../src/store/redis-kv.store';
import { BACKENDS, mariadbRedis } from '../support/backends';
import { RATE_LIMITED } from '../support/envelopes';
import { createActiveUser, TestUser } from '../support/factories';
import { FakeClock } from '../support/fake-clock';
import { startApp, TestApp } from '../support/test-app';
import { sleep } from '../support/wait';

const REDIS = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

/** Per-IP throttling of /sys/login, /auth/qrcode/verify and /sys/captcha. */
describe.each(BACKENDS)('per-IP throttling on $name', (backend) => {
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    app = await startApp(backend, {
      env: { THROTTLE_LOGIN_LIMIT: '5', THROTTLE_CAPTCHA_LIMIT: '3', THROTTLE_QRCODE_VERIFY_LIMIT: '3' },
    });
    user = await createActiveUser(app);
  });
  afterAll(() => app.close());

  it('refuses a burst of logins from one IP with RATE_LIMITED 429 while another IP still logs in', async () => {
    const ip = '10.50.0.1';
    const replies = [];
    for (let i = 0; i < 5; i++)
      replies.push(await app.login(user.username, i % 2 ? 'Wrong#pass1' : user.password, { ip }));
    expect(replies.map((r) => r.status)).toEqual([200, 401, 200, 401, 200]);
    expect(replies[0].headers['x-ratelimit-limit']).toBe('5');
    expect(replies[4].headers['x-ratelimit-remaining']).toBe('0');

    const logsBefore = (await app.logRows(user.username)).length;
    const throttled = await app.login(user.username, user.password, { ip });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual(RATE_LIMITED);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Refused before the pipeline: no login log row, no failure counted.
    expect(await app.logRows(user.username)).toHaveLength(logsBefore);

    const other = await app.login(user.username, user.password, { ip: '10.50.0.2' });
    expect(other.status).toBe(200);
    expect(other.body.success).toBe(true);
    // Anything that keeps coming from the throttled IP stays refused, whatever the body.
    expect((await app.post('/sys/login', { bogus: 1 }, { ip })).body.code).toBe('RATE_LIMITED');
    expect((await app.post('/sys/login', {}, { ip, headers: { 'accept-language': 'en' } })).body.message).toBe(
      'Too many requests, please try again later',
    );
  });

  it('counts each route on its own: a throttled login does not block captchas or other operations from that IP', async () => {
    const ip = '10.50.1.1';
    for (let i = 0; i < 6; i++) await app.login('nobody', 'Whatever#1', { ip });
    expect((await app.login('nobody', 'Whatever#1', { ip })).status).toBe(429);
    expect((await app.post('/sys/captcha', {}, { ip })).status).toBe(200);
    expect((await app.post('/sys/publicKey', {}, { ip })).status).toBe(200);
  });

  it('throttles /sys/captcha and /auth/qrcode/verify per IP', async () => {
    const ip = '10.50.2.1';
    const captchas = [];
    for (let i = 0; i < 4; i++) captchas.push((await app.post('/sys/captcha', {}, { ip })).status);
    expect(captchas).toEqual([200, 200, 200, 429]);
    const verifies = [];
    for (let i = 0; i < 4; i++)
      verifies.push(await app.post('/auth/qrcode/verify', { code: `no-such-code-${i}` }, { ip }));
    expect(verifies.map((r) => r.body.code)).toEqual([
      'QRCODE_INVALID',
      'QRCODE_INVALID',
      'QRCODE_INVALID',
      'RATE_LIMITED',
    ]);
    expect(verifies[3].body).toEqual(RATE_LIMITED);
    expect((await app.post('/auth/qrcode/verify', { code: 'x' }, { ip: '10.50.2.2' })).body.code).toBe(
      'QRCODE_INVALID',
    );
  });

  it('does not throttle operations that are not entry points', async () => {
    const token = await app.token(user.username, user.password, { ip: '10.50.3.1' });
    for (let i = 0; i < 12; i++) {
      expect((await app.post('/sys/me/info', {}, { token, ip: '10.50.3.1' })).status).toBe(200);
    }
  });

  it('keeps the count in the shared store under THROTTLE:<route>:<ip>', async () => {
    await app.login('nobody', 'Whatever#1', { ip: '10.50.4.1' });
    const ttl = await app.store.ttl('THROTTLE:login:10.50.4.1');
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await app.store.get('THROTTLE:login:10.50.4.1')).toBe('1');
  });

  it('lets the IP in again once the window has passed', async () => {
    const short = await startApp(backend, { env: { THROTTLE_LOGIN_LIMIT: '2', THROTTLE_TTL_SECONDS: '1' } });
    try {
      const ip = '10.50.5.1';
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await short.login('nobody', 'Whatever#1', { ip })).body.code);
      expect(codes).toEqual(['BAD_CREDENTIALS', 'BAD_CREDENTIALS', 'RATE_LIMITED']);
      // The memory store follows the injected clock; Redis expires in real time.
      short.clock.advance(1_100);
      await sleep(backend.name === 'mariadb+redis' ? 1_100 : 0);
      expect((await short.login('nobody', 'Whatever#1', { ip })).body.code).toBe('BAD_CREDENTIALS');
    } finally {
      await short.close();
    }
  });

  it('without TRUST_PROXY a forged X-Forwarded-For does not escape the limit', async () => {
    const direct = await startApp(backend, { env: { THROTTLE_LOGIN_LIMIT: '3', TRUST_PROXY: 'false' } });
    try {
      const codes = [];
      for (let i = 0; i < 5; i++)
        codes.push((await direct.login('nobody', 'Whatever#1', { ip: `192.0.2.${i + 1}` })).body.code);
      expect(codes).toEqual(['BAD_CREDENTIALS', 'BAD_CREDENTIALS', 'BAD_CREDENTIALS', 'RATE_LIMITED', 'RATE_LIMITED']);
    } finally {
      await direct.close();
    }
  });

  it('has generous defaults: the test harness and legitimate clients behind one IP get 600 a minute', async () => {
    const plain = await startApp(backend);
    try {
      const res = await plain.login('nobody', 'Whatever#1');
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect((await plain.post('/sys/captcha')).headers['x-ratelimit-limit']).toBe('600');
    } finally {
      await plain.close();
    }
  });
});

describe('per-IP throttling across two instances on MariaDB + Redis', () => {
  it('shares one count between the instances that share REDIS_KEY_PREFIX', async () => {
    const env = { THROTTLE_LOGIN_LIMIT: '6' };
    const a = await startApp(mariadbRedis, { env });
    const b = await startApp(mariadbRedis, { env, provisioned: a.provisioned });
    try {
      const ip = '10.60.0.1';
      const codes = [];
      for (let i = 0; i < 6; i++) codes.push((await (i % 2 ? b : a).login('nobody', 'Whatever#1', { ip })).body.code);
      expect(codes.every((c) => c === 'BAD_CREDENTIALS')).toBe(true);
      // Three on each: per instance still under the limit, together at it.
      expect((await a.login('nobody', 'Whatever#1', { ip })).body.code).toBe('RATE_LIMITED');
      expect((await b.login('nobody', 'Whatever#1', { ip })).body.code).toBe('RATE_LIMITED');
      expect((await b.login('nobody', 'Whatever#1', { ip: '10.60.0.2' })).body.code).toBe('BAD_CREDENTIALS');

      // The key is the configured prefix + THROTTLE:, and is gone after the window.
      const raw = createClient({ url: REDIS });
      await raw.connect();
      try {
        const key = `${a.provisioned.env.REDIS_KEY_PREFIX}THROTTLE:login:${ip}`;
        expect(Number(await raw.get(key))).toBe(8);
        expect(await raw.pTTL(key)).toBeGreaterThan(0);
      } finally {
        await raw.close();
      }
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('counts exactly under parallel requests from both instances', async () => {
    const env = { THROTTLE_CAPTCHA_LIMIT: '10' };
    const a = await startApp(mariadbRedis, { env });
    const b = await startApp(mariadbRedis, { env, provisioned: a.provisioned });
    try {
      const ip = '10.60.1.1';
      const replies = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 ? b : a).post('/sys/captcha', {}, { ip })),
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
      expect(replies.filter((r) => r.status === 429)).toHaveLength(14);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

/** The store method the throttler counts with, on both implementations of the port. */
describe.each([
  { name: 'memory', open: async () => ({ store: new MemoryKvStore(new FakeClock()) as KvStore }) },
  {
    name: 'redis',
    open: async () => ({
      store: (await RedisKvStore.connect(REDIS, `rl${randomBytes(4).toString('hex')}:`)) as KvStore,
    }),
  },
])('KvStore.incrWithTtl on $name', ({ open }) => {
  let store: KvStore;
  beforeAll(async () => ({ store } = await open()));
  afterAll(() => store.close());

  it('counts atomically under concurrency and starts the window once, at the first hit', async () => {
    const key = 'THROTTLE:test:concurrent';
    const results = await Promise.all(Array.from({ length: 50 }, () => store.incrWithTtl(key, 60_000)));
    expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (const r of results) expect(r.ttlMs).toBeGreaterThan(55_000);
    await sleep(30);
    const later = await store.incrWithTtl(key, 60_000);
    expect(later.count).toBe(51);
    // Later hits do not push the window's end out.
    expect(later.ttlMs).toBeLessThanOrEqual(Math.min(...results.map((r) => r.ttlMs)));
    await store.del(key);
  });

  it('gives a counter without a lifetime one, so that it can never block forever', async () => {
    const key = 'THROTTLE:test:no-ttl';
    await store.set(key, '7');
    expect(await store.incrWithTtl(key, 5_000)).toEqual({ count: 8, ttlMs: expect.any(Number) });
    const ttl = await store.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    await store.del(key);
  });
});
