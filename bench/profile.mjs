// npm run bench:profile: where /sys/me/info's main-thread time goes. The built service on the
// embedded default (SQLite file, in-memory store: no network wait hides the service's own cost)
// runs under node --cpu-prof while autocannon drives /sys/me/info; the profile's self time is
// then printed by package and by function (bench/profile-summary.mjs).
//
// Environment (optional): BENCH_SECONDS (10), BENCH_CONNECTIONS_API (16), BENCH_ROUTE (`info`;
// `introspect`: POST /sys/token/introspect of the admin's token by the admin; `introspect-key`: the
// same by a gateway's API key holding only sys:token:introspect, as `npm run bench` item (8) sends it). The build and the
// profile land in node_modules/.cache/lps-bench and bench/profiles/.
import { execFileSync, spawn } from 'node:child_process';
import { constants, publicEncrypt } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import autocannon from 'autocannon';

import { compileService, ROOT } from './shared.mjs';

const PROFILES = join(ROOT, 'bench', 'profiles');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS_API ?? 16);
const PORT = 3000 + Math.floor(Math.random() * 2000);
const URL_ = `http://127.0.0.1:${PORT}`;
const log = (...args) => console.error('[profile]', ...args);
const BY_KEY = process.env.BENCH_ROUTE === 'introspect-key';
const INTROSPECT = BY_KEY || process.env.BENCH_ROUTE === 'introspect';
const ROUTE = INTROSPECT ? '/sys/token/introspect' : '/sys/me/info';

const DIST = compileService('lps-bench', log);
mkdirSync(PROFILES, { recursive: true });
const before = new Set(readdirSync(PROFILES));
const dir = mkdtempSync(join(tmpdir(), 'lps-profile-'));
const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`, join(DIST, 'src', 'main.js')], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(PORT),
    DATABASE_URL: `sqlite:${join(dir, 'profile.sqlite')}`,
    ADMIN_INITIAL_PASSWORD: 'Admin@12345',
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const post = async (path, body, token) =>
  (
    await (
      await fetch(URL_ + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { 'admin-token': token } : {}) },
        body: JSON.stringify(body),
      })
    ).json()
  ).data;
try {
  for (let i = 0; ; i += 1) {
    try {
      if ((await fetch(`${URL_}/health`)).ok) break;
    } catch {
      if (i > 150) throw new Error('the service did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const { publicKey } = await post('/sys/publicKey', {});
  const password = publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from('Admin@12345'),
  ).toString('base64');
  const { accessToken } = await post('/sys/login', { account: 'admin', password });
  const caller = BY_KEY
    ? {
        authorization: `Bearer ${
          (
            await post(
              '/sys/apiKey/create',
              { name: 'profile-gateway', permissions: ['sys:token:introspect'] },
              accessToken,
            )
          ).key
        }`,
      }
    : { 'admin-token': accessToken };
  const opts = (duration) => ({
    url: URL_,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        path: ROUTE,
        headers: { 'content-type': 'application/json', ...caller },
        body: INTROSPECT ? JSON.stringify({ token: accessToken }) : '{}',
      },
    ],
  });
  log('warm-up 3 s');
  await autocannon(opts(3));
  log(`${ROUTE}, ${SECONDS} s, ${CONNECTIONS} connections`);
  const result = await autocannon(opts(SECONDS));
  console.log(
    `${ROUTE} under the profiler: ${(result.requests.total / result.duration).toFixed(0)} req/s, ` +
      `p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} errors (the profile covers start-up and warm-up too)\n`,
  );
} finally {
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGINT');
  });
  rmSync(dir, { recursive: true, force: true });
}
const written = readdirSync(PROFILES).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
console.log(`bench/profiles/${written}`);
execFileSync(process.execPath, [join(ROOT, 'bench', 'profile-summary.mjs'), join(PROFILES, written), '20'], {
  stdio: 'inherit',
});
