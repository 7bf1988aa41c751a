// npm run bench: the built service on MariaDB + Redis, measured against what bounds it.
// npm run bench:embedded: the same on the embedded default (SQLite file + the in-memory store).
//
//   (1)  the BCrypt limit: compares per second at BCRYPT_COST, two at a time (both cores)
//   (2)  login throughput over BENCH_USERS accounts, its ratio to (1), p50 / p99
//   (2b) login on ONE account from BENCH_CONNECTIONS_ONE connections (its compares run in slots)
//   (3)  /sys/me/info with a token, its ratio to a bare Fastify route making one store read
//        (a Redis GET of the session key; embedded: a Map lookup)
//   (3b) the Nest floor: Nest 12 + Fastify + one global guard making that read, its own process
//   (3c) the bare route sending the service's response headers
//        (3), (3b) and (3c) take turns in rounds; each ratio is the median of the rounds' ratios
//   (4)  login p50 / p99 with an empty sys_login_log and with 1 000 000 rows in it (+ EXPLAIN)
//   (5)  the service's resident memory (VmRSS) under that load
//   (6)  one captcha render (PNG) against one BCrypt compare, in this process
//   (7)  soak: /sys/me/info for BENCH_SOAK_MINUTES, RSS and req/s printed per minute, and the
//        bare route for a few seconds after each minute (how fast the host was that minute)
//   (8)  POST /sys/token/introspect of a live user's token by a gateway's API key, against the bare
//        route, taking turns in rounds as (3) does; the ratio is the median of the rounds' ratios
//   (9)  login storm: /sys/me/info alone, then during a flood of wrong passwords for unknown accounts
//        from random IPs (BENCH_CONNECTIONS_STORM connections), while a real user logs in again and
//        again (bench/storm-client.mjs runs the flood and the user, each in its own process)
//
// Environment (all optional): MARIADB_URL (mysql://root@127.0.0.1:3306), REDIS_URL
// (redis://127.0.0.1:6379), BCRYPT_COST (10), BENCH_SECONDS (15, per load phase),
// BENCH_CONNECTIONS_LOGIN (8), BENCH_CONNECTIONS_ONE (20), BENCH_CONNECTIONS_API (16),
// BENCH_USERS (64), BENCH_LOG_ROWS (1000000), BENCH_SOAK_MINUTES (10; 0 leaves (7) out),
// BENCH_ROUNDS (5: (3) and its yardsticks take turns in this many rounds of BENCH_SECONDS / 5),
// BENCH_PROFILE=1 (node --cpu-prof on the service, written to bench/profiles/),
// BENCH_HEAP=1 (heap snapshots of the service after the soak's first minute and at its end, in
// bench/profiles/), BENCH_KEEP_DB=1 (leave the lps_bench database / SQLite file for inspection),
// BENCH_PHASES (all: login,info,introspection,storm,soak,log — login = (1) (2) (2b) (6), info = (3) (3b)
// (3c), introspection = (8), storm = (9), soak = (7), log = (4) with the filled table).
// BENCH_CONNECTIONS_STORM (60). BCRYPT_CONCURRENCY, LOGIN_QUEUE_MS and LOGIN_SHED_HOLD_MS, when set, pass to the service.
// BENCH_DATABASE (lps_bench: the MariaDB database, dropped and created anew).
// BENCH_CRYPTO_SUITE (standard: the service's CRYPTO_SUITE; gm measures SM2 password transport,
// HMAC-SM3 seals and SM4 secrets; e.g. BENCH_CRYPTO_SUITE=gm BENCH_PHASES=login,info npm run bench).
import { execFileSync, fork, spawn } from 'node:child_process';
import { constants, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

import autocannon from 'autocannon';
import bcrypt from 'bcrypt';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { createClient } from 'redis';
import { sm2 } from 'sm-crypto-v2';

import { compileService, freePort, ROOT } from './shared.mjs';

let MAIN = '';
const MARIADB = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const COST = Number(process.env.BCRYPT_COST ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const LOGIN_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS_LOGIN ?? 8);
const ONE_ACCOUNT_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS_ONE ?? 20);
const API_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS_API ?? 16);
const STORM_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS_STORM ?? 60);
const USERS = Number(process.env.BENCH_USERS ?? 64);
const LOG_ROWS = Number(process.env.BENCH_LOG_ROWS ?? 1_000_000);
const SOAK_MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const SOAK_YARDSTICK_SECONDS = 6;
// BENCH_PHASES: which measurements run (comma-separated); the service, its users and a token always.
const ALL_PHASES = ['login', 'info', 'introspection', 'storm', 'soak', 'log'];
const PHASES = new Set(
  (process.env.BENCH_PHASES ?? ALL_PHASES.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean),
);
for (const phase of PHASES) {
  if (!ALL_PHASES.includes(phase)) throw new Error(`BENCH_PHASES: unknown phase ${phase} (${ALL_PHASES.join(', ')})`);
}
// The service's Node flags, as package.json's start:prod and the Dockerfile give them (docs/operations.md#memory);
// BENCH_SERVICE_NODE_FLAGS="" measures without them.
const SERVICE_NODE_FLAGS = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '--max-semi-space-size=8')
  .split(' ')
  .filter(Boolean);
const PROFILE = process.env.BENCH_PROFILE === '1';
const HEAP = process.env.BENCH_HEAP === '1';
const EMBEDDED = process.argv.includes('--embedded');
const PROFILES = join(ROOT, 'bench', 'profiles');
const DATABASE = process.env.BENCH_DATABASE ?? 'lps_bench';
const CRYPTO_SUITE = process.env.BENCH_CRYPTO_SUITE ?? 'standard';
if (!['standard', 'gm'].includes(CRYPTO_SUITE)) throw new Error('BENCH_CRYPTO_SUITE: standard or gm');
const PREFIX = `lpsbench:${randomBytes(3).toString('hex')}:`;
const ADMIN_PASSWORD = 'Admin@12345';
const USER_PASSWORD = 'Bench#pass1';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const log = (...args) => console.error('[bench]', ...args);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- build, processes

const children = new Set();
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function startService(port, backend) {
  const args = [...SERVICE_NODE_FLAGS, MAIN];
  if (PROFILE) args.unshift('--cpu-prof', `--cpu-prof-dir=${PROFILES}`);
  if (HEAP) args.unshift('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${PROFILES}`);
  if (PROFILE || HEAP) mkdirSync(PROFILES, { recursive: true });
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...backend.serviceEnv,
      ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: String(COST),
      CAPTCHA_ENABLED: 'false',
      THROTTLE_LOGIN_LIMIT: '1000000',
      THROTTLE_QRCODE_VERIFY_LIMIT: '1000000',
      THROTTLE_CAPTCHA_LIMIT: '1000000',
      // (9): the flood comes from random IPs (X-Forwarded-For), as past a proxy.
      TRUST_PROXY: 'true',
      ...(process.env.BCRYPT_CONCURRENCY && { BCRYPT_CONCURRENCY: process.env.BCRYPT_CONCURRENCY }),
      ...(process.env.LOGIN_QUEUE_MS && { LOGIN_QUEUE_MS: process.env.LOGIN_QUEUE_MS }),
      ...(process.env.LOGIN_SHED_HOLD_MS && { LOGIN_SHED_HOLD_MS: process.env.LOGIN_SHED_HOLD_MS }),
      LOG_LEVEL: 'warn',
      CRYPTO_SUITE,
      // As docker-compose.yml runs it: /metrics on, so its per-request hook is part of what is measured.
      METRICS_TOKEN: randomBytes(24).toString('hex'),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  const url = `http://127.0.0.1:${port}`;
  const giveUpAt = Date.now() + 60_000;
  while (Date.now() < giveUpAt) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} during start`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error('the service did not become healthy within 60 s');
}

/** A yardstick of (3) in its own process (bare-route.mjs or nest-floor.mjs), making the read `reader` names. */
async function startYardstick(script, port, reader) {
  const child = fork(join(ROOT, 'bench', script), [String(port), ...reader], { stdio: 'inherit' });
  children.add(child);
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** One client of (9) in its own process (bench/storm-client.mjs); resolves with the JSON it prints. */
function stormClient(opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'storm-client.mjs'), JSON.stringify(opts)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => {
      children.delete(child);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').at(-1)));
      else reject(new Error(`storm-client (${opts.mode}) exited with ${code}`));
    });
  });
}

/** VmRSS of a process now, in MiB. */
function rssNow(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** VmRSS of a process in MiB, sampled every 250 ms while `during` runs; returns the peak. */
async function peakRss(pid, during) {
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, rssNow(pid));
  };
  sample();
  const timer = setInterval(sample, 250);
  try {
    const result = await during();
    sample();
    return { result, rssMiB: peak };
  } finally {
    clearInterval(timer);
  }
}

/** CPU seconds so far of the service (main thread and the rest: libuv pool, V8 helpers), MariaDB, Redis and this process. */
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
function ticksOf(statPath) {
  try {
    const fields = readFileSync(statPath, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
  } catch {
    return 0;
  }
}
function pidsNamed(name) {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    });
}
/** Busy CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineBusy() {
  const [, ...jiffies] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = jiffies;
  return (user + nice + system + irq + softirq + steal) / CLK_TCK;
}
/**
 * Waits until the machine has settled (under `cores` of a core busy over one second, at most
 * `maxSeconds`) and answers how many seconds it waited: the work a phase leaves behind (its last
 * compares, the login log's sealing, the database's flushing) belongs to that phase, not to the
 * yardstick measured next.
 */
async function settle(cores = 0.08, maxSeconds = 30) {
  const started = performance.now();
  while (performance.now() - started < maxSeconds * 1000) {
    const busy0 = machineBusy();
    const at0 = performance.now();
    await sleep(1000);
    if ((machineBusy() - busy0) / ((performance.now() - at0) / 1000) < cores) break;
  }
  return (performance.now() - started) / 1000;
}
function cpuSnapshot(pid) {
  const self = process.cpuUsage();
  return {
    at: performance.now() / 1000,
    machine: machineBusy(),
    main: ticksOf(`/proc/${pid}/task/${pid}/stat`),
    service: ticksOf(`/proc/${pid}/stat`),
    mariadb: pidsNamed('mariadbd').reduce((t, p) => t + ticksOf(`/proc/${p}/stat`), 0),
    redis: pidsNamed('redis-server').reduce((t, p) => t + ticksOf(`/proc/${p}/stat`), 0),
    bench: (self.user + self.system) / 1e6,
  };
}
async function cpuPerRequest(pid, during) {
  const before = cpuSnapshot(pid);
  const result = await during();
  const after = cpuSnapshot(pid);
  const per = (k) => ((after[k] - before[k]) * 1000) / Math.max(1, result.result?.ok ?? result.ok);
  const d = (k) => after[k] - before[k];
  // Cores kept busy by everything that is not this bench (other jobs on the machine).
  const otherCores = (d('machine') - d('service') - d('mariadb') - d('redis') - d('bench')) / d('at');
  return {
    result,
    cpuMs: {
      main: per('main'),
      pool: per('service') - per('main'),
      mariadb: per('mariadb'),
      redis: per('redis'),
      bench: per('bench'),
      otherCores: Math.max(0, otherCores),
    },
  };
}

// ---------------------------------------------------------------- HTTP helpers

async function post(url, path, body = {}, token, extraHeaders = {}) {
  const headers = { 'content-type': 'application/json', 'user-agent': UA, ...extraHeaders };
  if (token) headers['admin-token'] = token;
  let res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  // A login shed by the compare budget (a busy host) is tried again after Retry-After, as a client would.
  for (let tries = 1; res.status === 503 && res.headers.get('retry-after') && tries < 10; tries += 1) {
    await res.arrayBuffer();
    await sleep(Number(res.headers.get('retry-after')) * 1000);
    res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  }
  const json = await res.json();
  if (!json.success) throw new Error(`${path}: ${res.status} ${json.code} ${json.message}`);
  return json.data;
}

// What every HTTP answer carries whatever the route: not part of what (3c) adds to the bare route.
const FRAMING_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'transfer-encoding',
]);

/** The response headers a route of the service sends besides the framing ones (for yardstick 3c). */
async function responseHeaders(url, path, token) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': UA, 'admin-token': token },
    body: '{}',
  });
  await res.arrayBuffer();
  return Object.fromEntries([...res.headers].filter(([name]) => !FRAMING_HEADERS.has(name)));
}

/** autocannon run; every request must answer 2xx, or the bench says so. */
async function load(label, opts) {
  const result = await autocannon({ duration: SECONDS, ...opts });
  const errors = result.errors + result.timeouts + result.non2xx;
  if (errors) log(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return {
    label,
    rps: result.requests.total / (result.duration || SECONDS),
    ok: result['2xx'],
    errors,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

// ---------------------------------------------------------------- the measurements

/**
 * (6) What one captcha costs: renders of the built renderer one after another (wall time, the PNG
 * encoding on the libuv pool included), and one BCrypt compare at COST as the yardstick.
 */
async function captchaCost(renders = 200) {
  const mod = await import(pathToFileURL(join(dirname(MAIN), 'auth', 'captcha', 'captcha.renderer.js')).href);
  const { renderCaptcha, captchaText } = mod.default ?? mod;
  for (let i = 0; i < 20; i += 1) await renderCaptcha(captchaText()); // warm-up: font, JIT
  let started = process.hrtime.bigint();
  for (let i = 0; i < renders; i += 1) await renderCaptcha(captchaText());
  const renderMs = Number(process.hrtime.bigint() - started) / 1e6 / renders;
  const hash = await bcrypt.hash(USER_PASSWORD, COST);
  started = process.hrtime.bigint();
  for (let i = 0; i < 20; i += 1) await bcrypt.compare(USER_PASSWORD, hash);
  const compareMs = Number(process.hrtime.bigint() - started) / 1e6 / 20;
  return { renderMs, compareMs };
}

/** (1) BCrypt compares per second with two in flight: bcrypt's async API runs them on two libuv threads. */
async function bcryptLimit(seconds) {
  const hash = await bcrypt.hash(USER_PASSWORD, COST);
  let count = 0;
  const endAt = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (Date.now() < endAt) {
      await bcrypt.compare(USER_PASSWORD, hash);
      count += 1;
    }
  };
  const machine0 = machineBusy();
  const self0 = process.cpuUsage();
  await Promise.all([worker(), worker()]);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const self = process.cpuUsage(self0);
  const otherCores = Math.max(0, (machineBusy() - machine0 - (self.user + self.system) / 1e6) / elapsed);
  return { rate: count / elapsed, otherCores };
}

function loginLoad(url, accounts, password, { duration = SECONDS, connections = LOGIN_CONNECTIONS } = {}) {
  let i = 0;
  return load('login', {
    url,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/sys/login',
        headers: { 'content-type': 'application/json', 'user-agent': UA },
        // Different accounts in turn; one account ((2b)): its compares run in maxFailureTimes slots.
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ account: accounts[i++ % accounts.length], password }),
        }),
      },
    ],
  });
}

// The service's failure count (wrong passwords and wrong second-factor codes in the window).
const FAILURE_COUNT_SQL =
  "SELECT COUNT(1) AS cnt FROM sys_login_log WHERE user_id = ? AND status IN ('passwrong', 'mfawrong') AND login_time >= ?";
const RECENT_IPS_SQL =
  "SELECT ip FROM sys_login_log WHERE user_id = ? AND status = 'success' ORDER BY login_time DESC, id DESC LIMIT 3";
const LOG_COLUMNS = 'user_id, account, user_name, login_type, status, ip, browser, os, login_time, failure_reason';

/** Mean time of the failure-count query, straight on the database (`query` runs one statement). */
async function failureCountMs(query, userIds, since) {
  const started = process.hrtime.bigint();
  const n = 200;
  for (let i = 0; i < n; i += 1) await query(FAILURE_COUNT_SQL, [userIds[i % userIds.length], since]);
  return Number(process.hrtime.bigint() - started) / 1e6 / n;
}

/**
 * Where the service keeps its data, and the bench's own connection to it: MariaDB + Redis, or the
 * embedded default (a SQLite file of its own, the in-memory store inside the service).
 *
 * fill(): 1 000 000 login-log rows generated inside the database: a fifth of them for the bench
 * users (about 3 000 each), the rest for 20 000 other ids, spread over 90 days, a third of them
 * wrong passwords — so the failure count and the recent-IP lookup have real ranges to walk.
 */
function mariadbBackend() {
  let db;
  const since = () => new Date(Date.now() - 24 * 3_600_000);
  return {
    name: 'MariaDB + Redis',
    serviceEnv: { DATABASE_URL: `${MARIADB}/${DATABASE}`, REDIS_URL: REDIS, REDIS_KEY_PREFIX: PREFIX },
    async prepare() {
      const admin = await createConnection(MARIADB);
      await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
      await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4`);
      await admin.end();
    },
    async open() {
      db = await createConnection(`${MARIADB}/${DATABASE}`);
    },
    markPasswordsChanged: () =>
      db.query('UPDATE sys_user SET password_update_time = UTC_TIMESTAMP(3) WHERE username LIKE ?', ['bench%']),
    truncateLog: () => db.query('TRUNCATE TABLE sys_login_log'),
    async countLog() {
      const [[{ n }]] = await db.query('SELECT COUNT(*) AS n FROM sys_login_log');
      return Number(n);
    },
    async rsaPem() {
      const [[row]] = await db.query(
        "SELECT prop_value AS pem FROM sys_props WHERE prop_group = 'sys_security' AND prop_key = 'rsa_private_key'",
      );
      return row?.pem;
    },
    failureCountMs: (userIds) => failureCountMs((sql, params) => db.query(sql, params), userIds, since()),
    async explain(userId) {
      const out = [];
      for (const [name, sql, params] of [
        ['failure count', FAILURE_COUNT_SQL, [userId, since()]],
        ['recent IPs', RECENT_IPS_SQL, [userId]],
      ]) {
        const [rows] = await db.query(`EXPLAIN ${sql}`, params);
        for (const r of rows)
          out.push(`  ${name.padEnd(13)} type=${r.type} key=${r.key} rows=${r.rows} extra=${r.Extra ?? ''}`);
      }
      return out.join('\n');
    },
    async fill(userIds, rows) {
      await db.query('CREATE TEMPORARY TABLE bench_user (n INT PRIMARY KEY, id VARCHAR(36))');
      await db.query('INSERT INTO bench_user (n, id) VALUES ?', [userIds.map((id, n) => [n, id])]);
      const chunk = 200_000;
      for (let from = 1; from <= rows; from += chunk) {
        const to = Math.min(rows, from + chunk - 1);
        await db.query(`
          INSERT INTO sys_login_log (${LOG_COLUMNS})
          SELECT IF(s.seq % 5 = 0, u.id, CONCAT('00000000-0000-4000-8000-', LPAD(s.seq % 20000, 12, '0'))),
                 CONCAT('acct', s.seq % 20000), 'Bench', 'account',
                 IF(s.seq % 3 = 0, 'passwrong', 'success'),
                 CONCAT('10.', s.seq % 251, '.', s.seq % 241, '.', s.seq % 239), 'Chrome 120', 'Linux',
                 UTC_TIMESTAMP(3) - INTERVAL (60 + s.seq % 7776000) SECOND,
                 IF(s.seq % 3 = 0, '用户名或密码错误', NULL)
          FROM seq_${from}_to_${to} s JOIN bench_user u ON u.n = s.seq % ${userIds.length}`);
      }
      // A history older than the sealing of the logs (as after an upgrade): unsealed, never sealed
      // in the background while the logins of (4) are measured.
      await db.query(
        "UPDATE sys_log_chain SET legacy_below = (SELECT COALESCE(MAX(id), 0) + 1 FROM sys_login_log) WHERE table_name = 'sys_login_log'",
      );
      await db.query('ANALYZE TABLE sys_login_log');
    },
    /** The bare route and the Nest floor read the session key the service reads first. */
    async sessionRead() {
      const redis = createClient({ url: REDIS });
      await redis.connect();
      try {
        const key = (await redis.scanIterator({ MATCH: `${PREFIX}AUTH_TOKEN:*`, COUNT: 1000 }).next()).value?.[0];
        return [REDIS, key];
      } finally {
        await redis.close();
      }
    },
    async close() {
      await db?.end();
    },
    async cleanup() {
      const redis = createClient({ url: REDIS });
      await redis.connect();
      const keys = [];
      for await (const batch of redis.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 1000 })) keys.push(...batch);
      for (let i = 0; i < keys.length; i += 1000) await redis.del(keys.slice(i, i + 1000));
      await redis.close();
      if (process.env.BENCH_KEEP_DB === '1') return;
      const conn = await createConnection(MARIADB);
      await conn.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
      await conn.end();
    },
  };
}

/** SQLite stores TypeORM datetimes as UTC text 'YYYY-MM-DD HH:MM:SS.SSS'. */
const sqliteTime = (date) => date.toISOString().replace('T', ' ').replace('Z', '');

function sqliteBackend() {
  const dir = mkdtempSync(join(tmpdir(), 'lps-bench-'));
  const file = join(dir, 'bench.sqlite');
  let db;
  const since = () => sqliteTime(new Date(Date.now() - 24 * 3_600_000));
  return {
    name: 'embedded (SQLite + in-memory store)',
    serviceEnv: { DATABASE_URL: `sqlite:${file}` },
    async prepare() {},
    async open() {
      db = new Database(file);
      db.pragma('busy_timeout = 10000');
    },
    markPasswordsChanged: async () =>
      db
        .prepare('UPDATE sys_user SET password_update_time = ? WHERE username LIKE ?')
        .run(sqliteTime(new Date()), 'bench%'),
    truncateLog: async () => db.prepare('DELETE FROM sys_login_log').run(),
    countLog: async () => db.prepare('SELECT COUNT(*) AS n FROM sys_login_log').get().n,
    rsaPem: async () =>
      db
        .prepare(
          "SELECT prop_value AS pem FROM sys_props WHERE prop_group = 'sys_security' AND prop_key = 'rsa_private_key'",
        )
        .get()?.pem,
    failureCountMs: (userIds) =>
      failureCountMs(async (sql, params) => db.prepare(sql).get(...params), userIds, since()),
    async explain(userId) {
      const out = [];
      for (const [name, sql, params] of [
        ['failure count', FAILURE_COUNT_SQL, [userId, since()]],
        ['recent IPs', RECENT_IPS_SQL, [userId]],
      ]) {
        for (const r of db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params))
          out.push(`  ${name.padEnd(13)} ${r.detail}`);
      }
      return out.join('\n');
    },
    async fill(userIds, rows) {
      db.exec('CREATE TEMPORARY TABLE bench_user (n INTEGER PRIMARY KEY, id TEXT)');
      const add = db.prepare('INSERT INTO bench_user (n, id) VALUES (?, ?)');
      userIds.forEach((id, n) => add.run(n, id));
      const chunk = 200_000;
      for (let from = 1; from <= rows; from += chunk) {
        const to = Math.min(rows, from + chunk - 1);
        db.prepare(
          `
          WITH RECURSIVE s(seq) AS (SELECT ${from} UNION ALL SELECT seq + 1 FROM s WHERE seq < ${to})
          INSERT INTO sys_login_log (${LOG_COLUMNS})
          SELECT CASE WHEN s.seq % 5 = 0 THEN u.id ELSE '00000000-0000-4000-8000-' || printf('%012d', s.seq % 20000) END,
                 'acct' || (s.seq % 20000), 'Bench', 'account',
                 CASE WHEN s.seq % 3 = 0 THEN 'passwrong' ELSE 'success' END,
                 '10.' || (s.seq % 251) || '.' || (s.seq % 241) || '.' || (s.seq % 239), 'Chrome 120', 'Linux',
                 strftime('%Y-%m-%d %H:%M:%f', 'now', '-' || (60 + s.seq % 7776000) || ' seconds'),
                 CASE WHEN s.seq % 3 = 0 THEN '用户名或密码错误' END
          FROM s JOIN bench_user u ON u.n = s.seq % ${userIds.length}`,
        ).run();
      }
      // As on MariaDB: a history older than the sealing of the logs.
      db.exec(
        "UPDATE sys_log_chain SET legacy_below = (SELECT COALESCE(MAX(id), 0) + 1 FROM sys_login_log) WHERE table_name = 'sys_login_log'",
      );
      db.exec('ANALYZE');
    },
    /** The service keeps sessions in its own memory: the yardsticks read a value of the same shape from a Map. */
    async sessionRead(url, token) {
      return ['memory', JSON.stringify(await post(url, '/sys/me/info', {}, token))];
    },
    async close() {
      db?.close();
    },
    async cleanup() {
      if (process.env.BENCH_KEEP_DB === '1') log(`SQLite file kept: ${file}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A heap snapshot of the service (started with --heapsnapshot-signal): waits until the file is written. */
async function heapSnapshot(pid, label) {
  const before = new Set(readdirSync(PROFILES));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await sleep(500);
    const fresh = readdirSync(PROFILES).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!fresh) continue;
    let size = -1;
    while (size !== statSync(join(PROFILES, fresh)).size) {
      size = statSync(join(PROFILES, fresh)).size;
      await sleep(1000);
    }
    log(`(7) heap snapshot ${label}: bench/profiles/${fresh} (${(size / 2 ** 20).toFixed(0)} MiB)`);
    return fresh;
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * (3) with its yardsticks: `rounds` rounds of SECONDS / rounds each, every target once per round
 * in an order that rotates. A target's figures: req/s the mean of its rounds, p50 their median, p99
 * the worst round's, CPU per request over all its rounds. A ratio: the median of the ratios of the
 * runs made in the same round, with the lowest and highest.
 */
async function interleaved(targets, rounds) {
  const runs = Object.fromEntries(targets.map(({ key }) => [key, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < targets.length; i += 1) {
      const { key, pid, opts } = targets[(i + round) % targets.length];
      const measured = await cpuPerRequest(pid, () =>
        peakRss(pid, () => load(`${key}, round ${round + 1}`, { ...opts, duration: SECONDS / rounds })),
      );
      runs[key].push({ ...measured.result.result, rssMiB: measured.result.rssMiB, cpuMs: measured.cpuMs });
    }
  }
  const out = {};
  for (const [key, list] of Object.entries(runs)) {
    const ok = list.reduce((n, r) => n + r.ok, 0);
    const cpuMs = {};
    for (const part of Object.keys(list[0].cpuMs)) {
      cpuMs[part] =
        part === 'otherCores'
          ? list.reduce((n, r) => n + r.cpuMs[part], 0) / list.length
          : list.reduce((n, r) => n + r.cpuMs[part] * r.ok, 0) / Math.max(1, ok);
    }
    out[key] = {
      result: {
        label: key,
        ok,
        rps: list.reduce((n, r) => n + r.rps, 0) / list.length,
        errors: list.reduce((n, r) => n + r.errors, 0),
        p50: median(list.map((r) => r.p50)),
        p99: Math.max(...list.map((r) => r.p99)),
        rounds: list.map((r) => r.rps),
      },
      rssMiB: Math.max(...list.map((r) => r.rssMiB)),
      cpuMs,
    };
  }
  // The ratio of two targets' req/s: the median of the rounds' ratios, with the lowest and highest.
  out.ratio = (a, b) => {
    const each = runs[a].map((r, i) => r.rps / runs[b][i].rps);
    return { median: median(each), low: Math.min(...each), high: Math.max(...each) };
  };
  return out;
}

/**
 * (7) One load run per minute; RSS at the end of each and after 10 s idle at the end. After each
 * minute the bare route runs for SOAK_YARDSTICK_SECONDS: a minute slower than the first because the
 * host was slower shows in the bare route too, one slower because of the service does not.
 */
async function soak(pid, opts, minutes, bareOpts) {
  const rows = [];
  for (let minute = 1; minute <= minutes; minute += 1) {
    const { result, rssMiB } = await peakRss(pid, () => load(`soak minute ${minute}`, { ...opts, duration: 60 }));
    const bare = await load(`soak minute ${minute}, bare route`, { ...bareOpts, duration: SOAK_YARDSTICK_SECONDS });
    rows.push({
      minute,
      rps: result.rps,
      p99: result.p99,
      errors: result.errors + bare.errors,
      rssPeak: rssMiB,
      rssEnd: rssNow(pid),
      bareRps: bare.rps,
    });
    log(
      `(7) minute ${minute}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms, RSS ${rssNow(pid).toFixed(0)} MiB (peak ${rssMiB.toFixed(0)}); ` +
        `bare route ${bare.rps.toFixed(0)} req/s`,
    );
    if (HEAP && minute === 1) await heapSnapshot(pid, 'after minute 1');
  }
  await sleep(10_000);
  const idle = rssNow(pid);
  if (HEAP) await heapSnapshot(pid, 'at the end');
  return { rows, idle };
}

// ---------------------------------------------------------------- main

async function main() {
  MAIN = join(compileService('lps-bench', log), 'src', 'main.js');
  const backend = EMBEDDED ? sqliteBackend() : mariadbBackend();
  await backend.prepare();
  const out = {
    backend: backend.name,
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    memGiB: totalmem() / 2 ** 30,
  };
  log(`phases: ${[...PHASES].join(', ')}`);
  try {
    // (1) is measured twice, before and after the login runs (once what they left running is done),
    // so that other load on the machine during the bench shows as a difference instead of skewing
    // the ratio silently.
    const bcryptSeconds = Math.min(SECONDS, 8);
    if (PHASES.has('login')) {
      log(`${backend.name}; (1) bcrypt limit at cost ${COST}, ${bcryptSeconds} s`);
      out.bcryptBefore = await bcryptLimit(bcryptSeconds);
    }

    const service = await startService(await freePort(), backend);
    const { url } = service;
    const pid = service.child.pid;
    await backend.open();
    out.rssIdle = (await peakRss(pid, async () => sleep(500))).rssMiB;

    // Users: created through the API (their hashes at BCRYPT_COST), with a changed password so
    // that a login is the plain success path (no first-login tip). One is enough without logins.
    const { publicKey, algorithm } = await post(url, '/sys/publicKey');
    const encrypt = (plain) =>
      algorithm === 'SM2'
        ? sm2.doEncrypt(plain, publicKey, 1)
        : publicEncrypt(
            { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
            Buffer.from(plain),
          ).toString('base64');
    const adminToken = (await post(url, '/sys/login', { account: 'admin', password: encrypt(ADMIN_PASSWORD) }))
      .accessToken;
    const userPassword = encrypt(USER_PASSWORD);
    const userCount = PHASES.has('login') || PHASES.has('log') ? USERS : 1;
    log(`creating ${userCount} users`);
    const accounts = Array.from({ length: userCount }, (_, i) => `bench${String(i).padStart(4, '0')}`);
    const ids = [];
    for (let i = 0; i < accounts.length; i += 4) {
      ids.push(
        ...(
          await Promise.all(
            accounts.slice(i, i + 4).map((username) =>
              post(
                url,
                '/sys/user/create',
                // With a mobile and an e-mail, as a real user has: /sys/me/info opens them.
                {
                  username,
                  name: username,
                  mobile: `1390000${username.slice(-4)}`,
                  email: `${username}@bench.example`,
                  password: userPassword,
                  roles: [],
                },
                adminToken,
              ),
            ),
          )
        ).map((r) => r.id),
      );
    }
    await backend.markPasswordsChanged();

    log('warm-up: logins and /sys/me/info, 3 s each');
    await loginLoad(url, accounts, userPassword, { duration: 3 });
    const token = (await post(url, '/sys/login', { account: accounts[0], password: userPassword })).accessToken;
    const apiOpts = (target, path, headers = {}, body = '{}') => ({
      url: target,
      connections: API_CONNECTIONS,
      requests: [
        {
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'user-agent': UA, ...headers },
          body,
        },
      ],
    });
    const infoOpts = apiOpts(url, '/sys/me/info', { 'admin-token': token });
    await load('warm-up', { ...infoOpts, duration: 3 });

    if (PHASES.has('login')) {
      await backend.truncateLog();
      log(`(2)(4) logins, empty sys_login_log, ${SECONDS} s, ${LOGIN_CONNECTIONS} connections, ${USERS} accounts`);
      const measured = await cpuPerRequest(pid, () => peakRss(pid, () => loginLoad(url, accounts, userPassword)));
      out.loginCpu = measured.cpuMs;
      out.loginEmpty = measured.result.result;
      out.rssLogin = measured.result.rssMiB;
      out.emptyRows = await backend.countLog();
      log(`(2b) logins on one account, ${SECONDS} s, ${ONE_ACCOUNT_CONNECTIONS} connections`);
      const one = await cpuPerRequest(pid, () =>
        peakRss(pid, () => loginLoad(url, [accounts[1]], userPassword, { connections: ONE_ACCOUNT_CONNECTIONS })),
      );
      out.oneCpu = one.cpuMs;
      out.loginOne = one.result.result;
      out.rssLoginOne = one.result.rssMiB;
      const settled = await settle();
      log(`(1) bcrypt limit again, ${bcryptSeconds} s, once the machine settled (${settled.toFixed(0)} s)`);
      out.bcryptAfter = await bcryptLimit(bcryptSeconds);
      out.bcrypt = (out.bcryptBefore.rate + out.bcryptAfter.rate) / 2;
      out.failureCountEmptyMs = await backend.failureCountMs(ids);
      // What one login's password transport costs the service's main thread.
      const pem = await backend.rsaPem();
      if (pem) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < 100; i += 1) {
          privateDecrypt(
            { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
            Buffer.from(userPassword, 'base64'),
          );
        }
        out.rsaMs = Number(process.hrtime.bigint() - started) / 1e6 / 100;
      }
      if (algorithm === 'SM2') {
        // The same work as the service's SM2 decrypt (sm-crypto-v2), under a key of this process.
        const pair = sm2.generateKeyPairHex();
        const cipher = sm2.doEncrypt(USER_PASSWORD, pair.publicKey, 1);
        const started = process.hrtime.bigint();
        for (let i = 0; i < 100; i += 1) sm2.doDecrypt(cipher, pair.privateKey, 1);
        out.sm2Ms = Number(process.hrtime.bigint() - started) / 1e6 / 100;
      }

      log('(6) captcha renders against one BCrypt compare');
      out.captcha = await captchaCost();
    }

    // (3) and its yardsticks, in processes of their own like the service, measured in rounds that
    // take turns (interleaved) rather than one after the other: on a host whose speed drifts within
    // minutes, each ratio then compares runs made at the same moment. (3c) is the bare route sending
    // the response headers the service sent (security headers, no-store).
    const read = await backend.sessionRead(url, token);
    out.headers = await responseHeaders(url, '/sys/me/info', token);
    const yardsticks = {};
    for (const [key, script, path, extra] of [
      ['bare', 'bare-route.mjs', '/bare', []],
      ['floor', 'nest-floor.mjs', '/floor', []],
      ['bareHeaders', 'bare-route.mjs', '/bare', [JSON.stringify(out.headers)]],
    ]) {
      if (key !== 'bare' && !PHASES.has('info')) continue;
      const yardstick = await startYardstick(script, await freePort(), [...read, ...extra]);
      await load('warm-up', { ...apiOpts(yardstick.url, path), duration: 3 });
      yardsticks[key] = { key, pid: yardstick.child.pid, child: yardstick.child, opts: apiOpts(yardstick.url, path) };
    }
    if (PHASES.has('info')) {
      log(
        `(3) /sys/me/info, (3) bare route, (3b) Nest floor, (3c) bare route + the service's headers: ${ROUNDS} rounds of ` +
          `${(SECONDS / ROUNDS).toFixed(1)} s each, taking turns, ${API_CONNECTIONS} connections`,
      );
      const rounds = await interleaved(
        [{ key: 'info', pid, opts: infoOpts }, yardsticks.bare, yardsticks.floor, yardsticks.bareHeaders],
        ROUNDS,
      );
      out.info = rounds.info.result;
      out.infoCpu = rounds.info.cpuMs;
      out.rssInfo = rounds.info.rssMiB;
      for (const key of ['bare', 'floor', 'bareHeaders']) out[key] = rounds[key].result;
      out.mainCpu = Object.fromEntries(
        ['info', 'bare', 'floor', 'bareHeaders'].map((key) => [key, rounds[key].cpuMs.main]),
      );
      out.ratios = {
        infoBare: rounds.ratio('info', 'bare'),
        infoFloor: rounds.ratio('info', 'floor'),
        floorBare: rounds.ratio('floor', 'bare'),
        headersBare: rounds.ratio('bareHeaders', 'bare'),
        infoHeaders: rounds.ratio('info', 'bareHeaders'),
      };
    }

    if (PHASES.has('introspection')) {
      // A gateway asking about a live user's token, with an API key holding only sys:token:introspect
      // (the administrator's session instead: `{ 'admin-token': adminToken }`).
      const { key } = await post(
        url,
        '/sys/apiKey/create',
        { name: 'bench-gateway', permissions: ['sys:token:introspect'] },
        adminToken,
      );
      const gateway = { authorization: `Bearer ${key}` };
      const introspectOpts = apiOpts(url, '/sys/token/introspect', gateway, JSON.stringify({ token }));
      const probe = await post(url, '/sys/token/introspect', { token }, undefined, gateway);
      if (!probe.active) throw new Error(`the introspected token is not active: ${probe.reason}`);
      await load('warm-up', { ...introspectOpts, duration: 3 });
      log(
        `(8) introspection: POST /sys/token/introspect against the bare route, ${ROUNDS} rounds of ` +
          `${(SECONDS / ROUNDS).toFixed(1)} s each, taking turns, ${API_CONNECTIONS} connections`,
      );
      const rounds = await interleaved([{ key: 'introspect', pid, opts: introspectOpts }, yardsticks.bare], ROUNDS);
      out.introspect = rounds.introspect.result;
      out.introspectCpu = rounds.introspect.cpuMs;
      out.rssIntrospect = rounds.introspect.rssMiB;
      out.introspectBareRun = rounds.bare.result;
      out.introspectRatio = rounds.ratio('introspect', 'bare');
      out.introspectMainCpu = { introspect: rounds.introspect.cpuMs.main, bare: rounds.bare.cpuMs.main };
    }

    if (PHASES.has('storm')) {
      log(
        `(9) storm: /sys/me/info alone ${SECONDS} s, then the same during ${STORM_CONNECTIONS} connections of wrong ` +
          "passwords from random IPs, with a real user's logins",
      );
      const alone = await peakRss(pid, () => load('storm: /sys/me/info alone', infoOpts));
      // The real user has logged in from their IP before (bench/storm-client.mjs sends from it too).
      await post(url, '/sys/login', { account: accounts[0], password: userPassword }, undefined, {
        'x-forwarded-for': '10.20.30.40',
      });
      const flood = stormClient({
        mode: 'flood',
        url,
        seconds: SECONDS + 3,
        connections: STORM_CONNECTIONS,
        password: encrypt('Wrong#pass0'),
      });
      await sleep(1_500); // the flood under way before anything is measured
      const realUser = stormClient({
        mode: 'user',
        url,
        seconds: SECONDS,
        account: accounts[0],
        password: userPassword,
        pauseMs: 100,
      });
      const during = await peakRss(pid, () => load('storm: /sys/me/info during the flood', infoOpts));
      out.storm = { alone: alone.result, during: during.result, user: await realUser, flood: await flood };
      out.rssStorm = Math.max(alone.rssMiB, during.rssMiB);
    }

    if (PHASES.has('soak') && SOAK_MINUTES > 0) {
      log(
        `(7) soak: /sys/me/info for ${SOAK_MINUTES} minutes, ${API_CONNECTIONS} connections; the bare route ${SOAK_YARDSTICK_SECONDS} s after each minute`,
      );
      out.soak = await soak(pid, infoOpts, SOAK_MINUTES, yardsticks.bare.opts);
    }
    for (const { child } of Object.values(yardsticks)) await stopChild(child);

    if (PHASES.has('log')) {
      log(`(4) inserting ${LOG_ROWS} rows into sys_login_log`);
      const fillStarted = Date.now();
      await backend.fill(ids, LOG_ROWS);
      out.fillSeconds = (Date.now() - fillStarted) / 1000;
      out.fullRows = await backend.countLog();
      out.explain = await backend.explain(ids[0]);
      out.failureCountFullMs = await backend.failureCountMs(ids);
      log(`(4) logins, ${out.fullRows} rows, ${SECONDS} s`);
      const loginFull = await peakRss(pid, () => loginLoad(url, accounts, userPassword));
      out.loginFull = loginFull.result;
      out.rssLoginFull = loginFull.rssMiB;
    }

    await backend.close();
    await stopChild(service.child);
  } finally {
    await backend.cleanup();
  }
  report(out);
}

function report(o) {
  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  const ms = (x) => `${x.toFixed(0)} ms`;
  const verdict = (ok) => (ok ? 'met' : 'MISSED');
  const soakErrors = o.soak ? o.soak.rows.reduce((n, r) => n + r.errors, 0) : 0;
  // Only the phases that ran (BENCH_PHASES) have results.
  const errors =
    [
      o.loginEmpty,
      o.loginOne,
      o.info,
      o.loginFull,
      o.bare,
      o.floor,
      o.bareHeaders,
      o.introspect,
      o.introspectBareRun,
      o.storm?.alone,
      o.storm?.during,
    ]
      .filter(Boolean)
      .reduce((n, r) => n + r.errors, 0) + soakErrors;
  // (7) against the host's speed each minute: the service's req/s over the bare route's.
  const relative = (r) => r.rps / r.bareRps;
  const spread = (r) => `${pct(r.median)} (rounds ${(r.low * 100).toFixed(0)}–${(r.high * 100).toFixed(0)} %)`;
  const rssPeak = Math.max(
    ...[o.rssLogin, o.rssLoginOne, o.rssInfo, o.rssIntrospect, o.rssStorm, o.rssLoginFull].filter(
      (x) => x !== undefined,
    ),
    ...(o.soak ? o.soak.rows.map((r) => r.rssPeak) : []),
  );
  const rows = [];
  if (o.loginEmpty) {
    const loginRatio = o.loginEmpty.rps / o.bcrypt;
    const oneRatio = o.loginOne.rps / o.bcrypt;
    rows.push(
      [
        '(1) BCrypt limit, cost ' + COST + ', 2 in parallel',
        `${o.bcrypt.toFixed(1)} compares/s`,
        '',
        '',
        `mean of ${o.bcryptBefore.rate.toFixed(1)} before and ${o.bcryptAfter.rate.toFixed(1)} after (2) and (2b)`,
      ],
      [
        `(2) login, ${LOGIN_CONNECTIONS} conn., ${USERS} accounts`,
        `${o.loginEmpty.rps.toFixed(1)} req/s`,
        ms(o.loginEmpty.p50),
        ms(o.loginEmpty.p99),
        `${pct(loginRatio)} of (1) — target ≥ 90 %: ${verdict(loginRatio >= 0.9)}`,
      ],
      [
        `(2b) login, ${ONE_ACCOUNT_CONNECTIONS} conn., one account`,
        `${o.loginOne.rps.toFixed(1)} req/s`,
        ms(o.loginOne.p50),
        ms(o.loginOne.p99),
        `${pct(oneRatio)} of (1) — target ≥ 80 %, p99 ≤ 2 s: ${verdict(oneRatio >= 0.8 && o.loginOne.p99 <= 2000)}`,
      ],
    );
  }
  if (o.info) {
    // Ratios of runs made in the same round (medians over the rounds; see interleaved()).
    const infoRatio = o.ratios.infoBare.median;
    const floorRatio = o.ratios.infoFloor.median;
    rows.push(
      [
        `(3) /sys/me/info, ${API_CONNECTIONS} conn.`,
        `${o.info.rps.toFixed(0)} req/s`,
        ms(o.info.p50),
        ms(o.info.p99),
        `${spread(o.ratios.infoBare)} of bare, ${spread(o.ratios.infoFloor)} of the Nest floor — target ≥ 60 %, ≥ 75 %, p99 ≤ 10 ms: ` +
          verdict(infoRatio >= 0.6 && floorRatio >= 0.75 && o.info.p99 <= 10),
      ],
      [`    bare Fastify + 1 store read`, `${o.bare.rps.toFixed(0)} req/s`, ms(o.bare.p50), ms(o.bare.p99), ''],
      [
        `(3b) Nest floor: Nest + Fastify + 1 guard + 1 read`,
        `${o.floor.rps.toFixed(0)} req/s`,
        ms(o.floor.p50),
        ms(o.floor.p99),
        `${spread(o.ratios.floorBare)} of bare`,
      ],
      [
        `(3c) bare + the service's ${Object.keys(o.headers).length} response headers`,
        `${o.bareHeaders.rps.toFixed(0)} req/s`,
        ms(o.bareHeaders.p50),
        ms(o.bareHeaders.p99),
        `${spread(o.ratios.headersBare)} of bare; (3) is ${spread(o.ratios.infoHeaders)} of it`,
      ],
    );
  }
  if (o.introspect) {
    rows.push(
      [
        `(8) /sys/token/introspect, ${API_CONNECTIONS} conn.`,
        `${o.introspect.rps.toFixed(0)} req/s`,
        ms(o.introspect.p50),
        ms(o.introspect.p99),
        `${spread(o.introspectRatio)} of bare — target ≥ 60 %: ${verdict(o.introspectRatio.median >= 0.6)}`,
      ],
      [
        `    bare Fastify + 1 store read, same rounds`,
        `${o.introspectBareRun.rps.toFixed(0)} req/s`,
        ms(o.introspectBareRun.p50),
        ms(o.introspectBareRun.p99),
        '',
      ],
    );
  }
  if (o.storm) {
    const { alone, during, user, flood } = o.storm;
    const ratio = during.rps / alone.rps;
    const others = Object.values(user.failures).reduce((n, c) => n + c, 0) + user.shedWithoutRetryAfter;
    const shedShare = user.shed / Math.max(1, user.n);
    const answers = Object.entries(flood.statuses)
      .map(([status, n]) => `${status} ×${n}`)
      .join(', ');
    rows.push(
      [
        `(9) /sys/me/info alone, ${API_CONNECTIONS} conn.`,
        `${alone.rps.toFixed(0)} req/s`,
        ms(alone.p50),
        ms(alone.p99),
        '',
      ],
      [
        `    /sys/me/info during the flood`,
        `${during.rps.toFixed(0)} req/s`,
        ms(during.p50),
        ms(during.p99),
        `${pct(ratio)} of alone — target ≥ 50 %, p99 ≤ 50 ms: ${verdict(ratio >= 0.5 && during.p99 <= 50)}`,
      ],
      [
        `    flood: ${STORM_CONNECTIONS} conn., wrong passwords, random IPs`,
        `${flood.rps.toFixed(0)} req/s`,
        '',
        '',
        `answers ${answers}${flood.errors ? `, ${flood.errors} socket errors` : ''}`,
      ],
      [
        `    a real user's logins during the flood`,
        `${user.n} logins`,
        ms(user.p50),
        ms(user.p99),
        `OK ${user.ok}, 503 with Retry-After ${user.shed} (${pct(shedShare)}), other failures ${others}` +
          `${others ? ` ${JSON.stringify(user.failures)}` : ''} — target p99 ≤ 2 s, 503 < 10 %, no other: ` +
          verdict(user.p99 <= 2000 && shedShare < 0.1 && others === 0),
      ],
    );
  }
  if (o.loginEmpty) {
    rows.push([
      `(4) login, sys_login_log ${o.emptyRows} rows`,
      `${o.loginEmpty.rps.toFixed(1)} req/s`,
      ms(o.loginEmpty.p50),
      ms(o.loginEmpty.p99),
      '',
    ]);
  }
  if (o.loginFull) {
    const p99Ratio = o.loginEmpty ? o.loginFull.p99 / o.loginEmpty.p99 : null;
    rows.push([
      `    login, sys_login_log ${o.fullRows} rows`,
      `${o.loginFull.rps.toFixed(1)} req/s`,
      ms(o.loginFull.p50),
      ms(o.loginFull.p99),
      p99Ratio === null ? '' : `p99 ${p99Ratio.toFixed(2)}× — target ≤ 1.2×: ${verdict(p99Ratio <= 1.2)}`,
    ]);
  }
  const rssPhases = [
    o.rssLogin !== undefined ? `login ${o.rssLogin.toFixed(0)} / ${o.rssLoginOne.toFixed(0)} MiB` : '',
    [
      o.rssInfo !== undefined ? `info ${o.rssInfo.toFixed(0)} MiB` : '',
      o.rssIntrospect !== undefined ? `introspection ${o.rssIntrospect.toFixed(0)} MiB` : '',
      o.rssStorm !== undefined ? `storm ${o.rssStorm.toFixed(0)} MiB` : '',
    ]
      .filter(Boolean)
      .join(', '),
  ];
  rows.push([
    `(5) service RSS (VmRSS), peak`,
    `idle ${o.rssIdle.toFixed(0)} MiB`,
    ...rssPhases,
    `peak of every phase ${rssPeak.toFixed(0)} MiB — target ≤ 250 MiB: ${verdict(rssPeak <= 250)}`,
  ]);
  if (o.soak) {
    const first = o.soak.rows[0];
    const last = o.soak.rows.at(-1);
    const warm = o.soak.rows[Math.min(1, o.soak.rows.length - 1)];
    const slowest = Math.min(...o.soak.rows.map((r) => r.rps));
    const growth = (last.rssEnd - warm.rssEnd) / warm.rssEnd;
    const slowestRelative = Math.min(...o.soak.rows.map(relative));
    rows.push([
      `(7) soak, ${o.soak.rows.length} min of /sys/me/info`,
      `${first.rps.toFixed(0)} → ${last.rps.toFixed(0)} req/s`,
      `RSS ${warm.rssEnd.toFixed(0)} → ${last.rssEnd.toFixed(0)} MiB`,
      `idle ${o.soak.idle.toFixed(0)} MiB`,
      `slowest minute ${pct(slowest / first.rps)} of the first — target ≥ 90 %: ${verdict(slowest >= 0.9 * first.rps)}; ` +
        `as a share of the bare route's that minute ${pct(slowestRelative)} to ${pct(Math.max(...o.soak.rows.map(relative)))}; ` +
        `RSS from minute ${warm.minute} to the last ${growth >= 0 ? '+' : ''}${pct(growth)} — target flat (≤ 5 %): ${verdict(growth <= 0.05)}`,
    ]);
  }
  rows.push([
    'errors (non-2xx, socket errors, timeouts)',
    String(errors),
    '',
    '',
    `target 0: ${verdict(errors === 0)}`,
  ]);
  const head = ['measure', 'throughput', 'p50', 'p99', 'against target'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(
    `\n${o.backend}, CRYPTO_SUITE=${CRYPTO_SUITE}. Machine: ${o.cpus} × ${o.cpu}, ${o.memGiB.toFixed(1)} GiB, Node ${process.version}; ` +
      `${SECONDS} s per phase; phases ${[...PHASES].join(', ')}; load generator (autocannon) on the same machine\n`,
  );
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  rows.forEach((r) => console.log(line(r)));
  if (o.soak) {
    console.log('\n(7) soak, per minute:');
    for (const r of o.soak.rows) {
      console.log(
        `  minute ${String(r.minute).padStart(2)}: ${r.rps.toFixed(0).padStart(6)} req/s, p99 ${String(r.p99).padStart(3)} ms, ` +
          `bare route ${r.bareRps.toFixed(0).padStart(6)} req/s (${pct(relative(r))}), RSS ${r.rssEnd.toFixed(0)} MiB at the end (peak ${r.rssPeak.toFixed(0)})${r.errors ? `, ${r.errors} errors` : ''}`,
      );
    }
    console.log(`  after 10 s idle: RSS ${o.soak.idle.toFixed(0)} MiB`);
  }
  if (o.loginFull) {
    console.log(
      `\nFailure-count query straight on the database: ${o.failureCountEmptyMs?.toFixed(2) ?? '?'} ms with ${o.emptyRows ?? '?'} rows, ` +
        `${o.failureCountFullMs.toFixed(2)} ms with ${o.fullRows} rows (filled in ${o.fillSeconds.toFixed(0)} s)`,
    );
    console.log(`Query plans at ${o.fullRows} rows:\n${o.explain}`);
  }
  const cpu = (c) =>
    `service main thread ${c.main.toFixed(2)}, service pool/helper threads ${c.pool.toFixed(2)}, ` +
    `mariadbd ${c.mariadb.toFixed(2)}, redis-server ${c.redis.toFixed(2)}, load generator ${c.bench.toFixed(2)}; ` +
    `other processes kept ${c.otherCores.toFixed(2)} of ${o.cpus} cores busy meanwhile`;
  if (o.loginEmpty) {
    console.log(
      `Other processes kept ${o.bcryptBefore.otherCores.toFixed(2)} / ${o.bcryptAfter.otherCores.toFixed(2)} cores busy during (1) before / after`,
    );
    console.log(`CPU ms per login (2): ${cpu(o.loginCpu)}`);
    const c = o.loginCpu;
    console.log(
      `  BCrypt's share of the CPU one login costs on this machine: ${pct(c.pool / (c.main + c.pool + c.mariadb + c.redis + c.bench))} ` +
        '(the ceiling of (2) ÷ (1) when both cores are busy)',
    );
    if (o.rsaMs) console.log(`  of the main thread's: one RSA-OAEP private decrypt ${o.rsaMs.toFixed(2)} ms`);
    if (o.sm2Ms) console.log(`  of the main thread's: one SM2 decrypt ${o.sm2Ms.toFixed(2)} ms`);
    console.log(`CPU ms per login (2b): ${cpu(o.oneCpu)}`);
  }
  // Throughput ratios also move with which side is the bottleneck (the service, or the load generator on the
  // other core); the CPU each answer costs its own process's main thread does not.
  const us = (x) => `${(x * 1000).toFixed(1)} µs`;
  if (o.info) {
    console.log(`CPU ms per /sys/me/info (3): ${cpu(o.infoCpu)}`);
    console.log(
      `Main-thread CPU per request in (3)'s rounds: /sys/me/info ${us(o.mainCpu.info)}, bare ${us(o.mainCpu.bare)}, Nest floor ${us(o.mainCpu.floor)}, ` +
        `bare + headers ${us(o.mainCpu.bareHeaders)}; the floor's is ${pct(o.mainCpu.floor / o.mainCpu.info)} of the service's, the bare route's ${pct(o.mainCpu.bare / o.mainCpu.info)}`,
    );
  }
  if (o.introspect) {
    console.log(`CPU ms per /sys/token/introspect (8): ${cpu(o.introspectCpu)}`);
    console.log(
      `Main-thread CPU per request in (8)'s rounds: /sys/token/introspect ${us(o.introspectMainCpu.introspect)}, ` +
        `bare ${us(o.introspectMainCpu.bare)} (${pct(o.introspectMainCpu.bare / o.introspectMainCpu.introspect)} of it)`,
    );
  }
  if (o.captcha) {
    console.log(
      `(6) one captcha (120×40 PNG): ${o.captcha.renderMs.toFixed(2)} ms; one BCrypt compare at cost ${COST}: ` +
        `${o.captcha.compareMs.toFixed(1)} ms (a captcha costs ${pct(o.captcha.renderMs / o.captcha.compareMs)} of a compare)`,
    );
  }
  console.log('(mariadbd and redis-server figures include whatever else uses them on the machine)');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
