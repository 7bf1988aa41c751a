import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { isConsoleRoute } from '../../src/common/static-console';
import { sqliteMemory } from '../support/backends';
import { startApp, TestApp } from '../support/test-app';

const DIST = join(__dirname, '..', '..', 'web', 'dist');
const built = existsSync(join(DIST, 'index.html'));

describe('isConsoleRoute', () => {
  it.each([
    ['/', true],
    ['/login', true],
    ['/system/users?page=2', true],
    ['/messages#top', true],
    ['/sys/login', false],
    ['/sys', false],
    ['/auth/qrcode/verify', false],
    ['/health', false],
    ['/metrics', false],
    ['/metrics/x', false],
    ['/docs', false],
    ['/docs/index.html', false],
    ['/assets/missing.js', false],
    ['/favicon.ico', false],
  ])('%s -> %s', (url, expected) => {
    expect(isConsoleRoute(url)).toBe(expected);
  });
});

// The service serves web/dist only once it has been built (`npm run build:web`; .ci/run builds it before
// `npm test`). Without a build there is nothing to serve, and these cases are skipped.
const whenBuilt = built ? describe : describe.skip;

whenBuilt('the admin console at / (web/dist built)', () => {
  let app: TestApp;
  const get = (url: string, headers: Record<string, string> = {}) => app.app.inject({ method: 'GET', url, headers });
  const notFoundEnvelope = { success: false, code: 'NOT_FOUND', message: expect.any(String), data: null };

  beforeAll(async () => {
    app = await startApp(sqliteMemory);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('GET / and client-side routes answer index.html, not cached', async () => {
    for (const url of ['/', '/login', '/system/users', '/system/strategy?tab=user', '/messages/']) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="app">');
    }
  });

  it('built assets are served with a long cache and their own type, and keep the security headers', async () => {
    const js = readdirSync(join(DIST, 'assets')).find((f) => f.endsWith('.js'))!;
    const res = await get(`/assets/${js}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toContain('immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(['/assets/missing.js', '/favicon-nope.png', '/sys/login', '/sys/nope', '/auth/qrcode/verify', '/sys'])(
    'GET %s is still NOT_FOUND in the envelope',
    async (url) => {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(notFoundEnvelope);
    },
  );

  it.each(['/', '/login', '/system/users', '/index.html', '/sys/nope'])(
    'POST %s is still NOT_FOUND in the envelope',
    async (url) => {
      const res = await app.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(notFoundEnvelope);
    },
  );

  it('the API keeps its paths: POST /sys/publicKey and GET /health answer as before', async () => {
    expect((await app.post('/sys/publicKey')).body).toMatchObject({
      success: true,
      data: { algorithm: 'RSA-OAEP-256' },
    });
    const health = await get('/health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ success: true, data: { status: 'up' } });
    const docs = await get('/docs');
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });

  describe('precompressed files (the build writes name.br and name.gz)', () => {
    const assets = readdirSync(join(DIST, 'assets'));
    const largestJs = assets
      .filter((f) => f.endsWith('.js'))
      .sort((a, b) => readFileSync(join(DIST, 'assets', b)).length - readFileSync(join(DIST, 'assets', a)).length)[0];
    const raw = (res: { rawPayload: Buffer }) => res.rawPayload;
    const decode = (res: { rawPayload: Buffer; headers: Record<string, unknown> }) =>
      res.headers['content-encoding'] === 'br'
        ? brotliDecompressSync(raw(res))
        : res.headers['content-encoding'] === 'gzip'
          ? gunzipSync(raw(res))
          : raw(res);

    it('the build wrote both copies of the scripts, the styles and index.html', () => {
      for (const file of [
        `assets/${largestJs}`,
        'index.html',
        `assets/${assets.find((f) => f.endsWith('.css') && assets.includes(`${f}.br`))}`,
      ]) {
        expect([existsSync(join(DIST, `${file}.br`)), existsSync(join(DIST, `${file}.gz`))]).toEqual([true, true]);
      }
    });

    it.each([
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['identity', undefined],
      [undefined, undefined],
    ])(
      "Accept-Encoding %p gets %p, the same bytes once decoded, with the file's type and cache policy",
      async (accept, encoding) => {
        const file = readFileSync(join(DIST, 'assets', largestJs));
        const res = await get(`/assets/${largestJs}`, accept === undefined ? {} : { 'accept-encoding': accept });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(String(res.headers.vary).toLowerCase()).toContain('accept-encoding');
        expect(res.headers['content-type']).toMatch(/javascript/);
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        if (encoding) expect(raw(res).length).toBeLessThan(file.length / 2);
        expect(Number(res.headers['content-length'])).toBe(raw(res).length);
        expect(decode(res).equals(file)).toBe(true);
      },
    );

    it('index.html compressed keeps its page policy and no-cache', async () => {
      const file = readFileSync(join(DIST, 'index.html'));
      for (const accept of ['br', 'gzip', '']) {
        const res = await get('/index.html', accept ? { 'accept-encoding': accept } : {});
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding']).toBe(accept || undefined);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
        expect(decode(res).equals(file)).toBe(true);
      }
    });

    it('a file the build left uncompressed (its copy would not be smaller) is sent as it is', async () => {
      const plain = assets.find((f) => !/\.(br|gz)$/.test(f) && !assets.includes(`${f}.br`));
      if (!plain) return;
      const res = await get(`/assets/${plain}`, { 'accept-encoding': 'br, gzip' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(raw(res).equals(readFileSync(join(DIST, 'assets', plain)))).toBe(true);
    });

    it('the copies are no routes of their own', async () => {
      for (const url of [`/assets/${largestJs}.br`, `/assets/${largestJs}.gz`, '/index.html.gz']) {
        const res = await get(url, { 'accept-encoding': 'br, gzip' });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual(notFoundEnvelope);
      }
    });
  });

  it('a path that tries to leave web/dist gets nothing from outside it', async () => {
    for (const url of ['/../package.json', '/assets/../../package.json', '/%2e%2e/package.json']) {
      const res = await get(url);
      expect(res.body).not.toContain('"login-policy-service"');
    }
  });
});
