// npm run bench:instructions: what one /sys/me/info answer costs in CPU instructions, against the
// yardsticks of bench item (3), counted by valgrind's callgrind. A count does not move with the
// host's speed or with what else runs on it (the same total twice, one core loaded or not), where
// req/s and CPU time on this shared machine moved by a third between runs: it is the figure to
// judge a change to the hot path by. It counts user-space instructions of the whole process (main
// thread, libuv pool, V8's compiler and GC threads), not the kernel's, and not the load generator's.
//
// Each process runs under `valgrind --tool=callgrind --instr-atstart=no`; after BENCH_IR_WARM
// requests (16 connections) counting is switched on (callgrind_control -i on) for BENCH_IR_REQUESTS
// more, then off, and the total is divided by the requests answered. Targets, one after the other:
//   service  the built service, /sys/me/info with a normal token (MariaDB + Redis; --embedded: SQLite + memory)
//   bare     bench/bare-route.mjs, one store read of the same session value
//   headers  the same sending the service's response headers (3c)
//   floor    bench/nest-floor.mjs, Nest + Fastify + one guard making that read (3b)
//
// Environment (optional): BENCH_IR_WARM (8000), BENCH_IR_REQUESTS (5000), MARIADB_URL, REDIS_URL.
// Takes about six minutes; needs valgrind (on every machine of this kind).
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { constants, hash, publicEncrypt, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection } from 'mysql2/promise';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD_DIR = join(ROOT, 'node_modules', '.cache', 'lps-bench');
const EMBEDDED = process.argv.includes('--embedded');
const WARM = Number(process.env.BENCH_IR_WARM ?? 8000);
const REQUESTS = Number(process.env.BENCH_IR_REQUESTS ?? 5000);
const MARIADB = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = 'lps_bench_ir';
const PREFIX = `lpsbenchir:${randomBytes(3).toString('hex')}:`;
const ADMIN_PASSWORD = 'Admin@12345';
const NEW_PASSWORD = 'Bench#pass1';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
// What every HTTP answer carries whatever the route: not part of what (3c) adds to the bare route.
const FRAMING_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'transfer-encoding']);
const log = (...args) => console.error('[instructions]', ...args);

const children = new Set();
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

// valgrind names the pipes callgrind_control talks through after $USER and $HOST as the target
// sees them: the service's HOST (its listen address) must be the one callgrind_control sees too.
const VGDB_NAMES = { USER: 'lpsbench', HOST: '127.0.0.1' };

/** A process under callgrind with counting off; its counts go to `out`. */
function underCallgrind(args, env, out) {
  const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no',
    `--callgrind-out-file=${out}`, process.execPath, ...args], { cwd: ROOT, env: { ...env, ...VGDB_NAMES }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  child.once('exit', (code) => { if (code && !child.stopping) log(`${args[0]} exited with ${code}:\n${stderr}`); });
  children.add(child);
  return child;
}

async function until(url, init, child) {
  const giveUpAt = Date.now() + 300_000;
  while (Date.now() < giveUpAt) {
    if (child.exitCode !== null) throw new Error('the process under valgrind exited during start');
    try {
      if ((await fetch(url, init)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within 5 minutes under valgrind`);
}

async function post(url, path, body = {}, token) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': UA, ...(token ? { 'admin-token': token } : {}) },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!json.success) throw new Error(`${path}: ${res.status} ${json.code} ${json.message}`);
  return { data: json.data, headers: Object.fromEntries([...res.headers].filter(([name]) => !FRAMING_HEADERS.has(name))) };
}

/** Instructions per request over REQUESTS requests after WARM, the process's total as callgrind wrote it at exit. */
async function count(label, child, out, url, headers) {
  const opts = (amount) => ({
    url, method: 'POST', connections: 16, amount, timeout: 60, body: '{}',
    headers: { 'content-type': 'application/json', 'user-agent': UA, ...headers },
  });
  log(`${label}: ${WARM} requests to warm up, then ${REQUESTS} counted`);
  const warm = await autocannon(opts(WARM));
  const control = (what) => execFileSync('callgrind_control', ['-i', what, String(child.pid)],
    { env: { ...process.env, ...VGDB_NAMES }, stdio: 'ignore' });
  control('on');
  const result = await autocannon(opts(REQUESTS));
  control('off');
  await stop(child);
  const failed = warm.non2xx + warm.errors + result.non2xx + result.errors + result.timeouts;
  if (failed) throw new Error(`${label}: ${failed} requests failed`);
  const total = Number(/^totals: (\d+)/m.exec(readFileSync(out, 'utf8'))?.[1]);
  if (!(total > 0)) throw new Error(`${label}: callgrind counted nothing (callgrind_control did not reach the process)`);
  rmSync(out, { force: true });
  return total / result.requests.total;
}

function stop(child) {
  child.stopping = true;
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
  });
}

execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'),
  '--outDir', join(BUILD_DIR, 'dist'), '--tsBuildInfoFile', join(BUILD_DIR, 'tsbuildinfo')], { cwd: ROOT, stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'lps-ir-'));
let database = { url: `sqlite:${join(dir, 'bench.sqlite')}` };
if (!EMBEDDED) {
  const admin = await createConnection(MARIADB);
  await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
  await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4`);
  await admin.end();
  database = { url: `${MARIADB}/${DATABASE}`, redis: { REDIS_URL: REDIS, REDIS_KEY_PREFIX: PREFIX } };
}
const figures = {};
try {
  // The service, as run.mjs starts it (metrics hook on); BCrypt at cost 4: only the set-up logs in.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = underCallgrind([join(BUILD_DIR, 'dist', 'src', 'main.js')], {
    PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port),
    DATABASE_URL: database.url, ...database.redis, ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD, BCRYPT_COST: '4',
    CAPTCHA_ENABLED: 'false', LOG_LEVEL: 'warn', METRICS_TOKEN: randomBytes(24).toString('hex'),
  }, join(dir, 'service.out'));
  log(`starting the service under valgrind (${EMBEDDED ? 'SQLite + memory store' : 'MariaDB + Redis'})`);
  await until(`${url}/health`, undefined, service);
  // A normal token: the first login's password changed, then a login with the new one.
  const { data: { publicKey } } = await post(url, '/sys/publicKey');
  const encrypt = (plain) => publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plain)).toString('base64');
  const first = (await post(url, '/sys/login', { account: 'admin', password: encrypt(ADMIN_PASSWORD) })).data.accessToken;
  await post(url, '/sys/me/pass/update', { oldPass: encrypt(ADMIN_PASSWORD), newPass: encrypt(NEW_PASSWORD) }, first);
  const login = (await post(url, '/sys/login', { account: 'admin', password: encrypt(NEW_PASSWORD) })).data;
  if (login.tempUser) throw new Error('the set-up login gave a temporary token');
  const token = login.accessToken;
  const { data: info, headers } = await post(url, '/sys/me/info', {}, token);
  figures.headerCount = Object.keys(headers).length;
  figures.service = await count('service /sys/me/info', service, join(dir, 'service.out'), `${url}/sys/me/info`, { 'admin-token': token });

  // The yardsticks read what the service read: the session key in Redis, or (embedded) a value of its shape.
  const read = EMBEDDED ? ['memory', JSON.stringify(info)] : [REDIS, `${PREFIX}AUTH_TOKEN:${hash('sha256', token, 'hex')}`];
  for (const [key, script, path, extra] of [['bare', 'bare-route.mjs', '/bare', []],
    ['headers', 'bare-route.mjs', '/bare', [JSON.stringify(headers)]], ['floor', 'nest-floor.mjs', '/floor', []]]) {
    const yardPort = await freePort();
    const out = join(dir, `${key}.out`);
    const child = underCallgrind([join(ROOT, 'bench', script), String(yardPort), ...read, ...extra], { PATH: process.env.PATH }, out);
    await until(`http://127.0.0.1:${yardPort}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, child);
    figures[key] = await count(key, child, out, `http://127.0.0.1:${yardPort}${path}`, {});
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (!EMBEDDED) {
    const admin = await createConnection(MARIADB);
    await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
    await admin.end();
  }
}

const k = (n) => `${(n / 1000).toFixed(1)} k`;
const pct = (a, b) => `${((a / b) * 100).toFixed(1)} %`;
const { service, bare, headers, floor, headerCount } = figures;
console.log(`\n${EMBEDDED ? 'SQLite + memory store' : 'MariaDB + Redis'}, Node ${process.version}; instructions per request `
  + `(callgrind, user space, whole process), ${REQUESTS} requests after ${WARM}:\n`);
console.log('| process | instructions per request | the service\'s share of its throughput, were instructions all |');
console.log('|---|---|---|');
console.log(`| (3) service, /sys/me/info | ${k(service)} | |`);
console.log(`| bare Fastify + 1 store read | ${k(bare)} | ${pct(bare, service)} |`);
console.log(`| (3c) bare + the service's ${headerCount} response headers | ${k(headers)} | ${pct(headers, service)} |`);
console.log(`| (3b) Nest floor | ${k(floor)} | ${pct(floor, service)} |`);
console.log(`\nthe headers cost the bare route ${k(headers - bare)}; the service costs ${k(service - floor)} more than the floor`);
