// npm run bench:instructions: what one /sys/me/info answer costs in CPU instructions, against the
// yardsticks of bench item (3), counted by valgrind's callgrind. A count does not move with the
// host's speed or with what else runs on it (the same total twice, one core loaded or not), where
// req/s and CPU time on this shared machine moved by a third between runs: it is the figure to
// judge a change to the hot path by. It counts user-space instructions, not the kernel's and not the
// load generator's: of the main thread, and of the whole process (libuv's pool, V8's compiler and
// GC threads besides). V8 still compiles now and then after the warm-up, on its own threads, which
// moves the whole process's count from run to run (docs/benchmarks.md); the main thread's is the
// steadier figure.
//
// Each process runs under `valgrind --tool=callgrind --instr-atstart=no`; after BENCH_IR_WARM
// requests (16 connections) counting is switched on (callgrind_control -i on) for BENCH_IR_REQUESTS
// more, then off, and the total is divided by the requests answered. Targets, one after the other:
//   service  the built service, /sys/me/info with a normal token (MariaDB + Redis; --embedded: SQLite + memory)
//   bare     bench/bare-route.mjs, one store read of the same session value
//   headers  the same sending the service's response headers (3c)
//   floor    bench/nest-floor.mjs, Nest + Fastify + one guard making that read (3b)
//
// --introspect counts POST /sys/token/introspect instead (bench item (8): a gateway's API key asking
// about the admin's token), against the bare route only.
//
// --login counts one password login instead (bench item (2)): the service alone, BCRYPT_COST 4,
// BENCH_IR_LOGIN_WARM (1000) logins over 64 accounts from 8 connections, then BENCH_IR_LOGINS (1000)
// counted, thread by thread (--separate-threads): the main thread's instructions are what a login
// takes from BCrypt on a busy host, the pool's are BCrypt's own at cost 4. On MariaDB + Redis it
// also counts, over 100 logins one at a time after the warm-up, the SQL statements (the server's
// Com_* counters), the Redis round trips (its read events) and commands (INFO commandstats) each
// login sends: the system calls of the client and the servers go with the round trips, and
// callgrind does not count the kernel's work.
//
// Environment (optional): BENCH_IR_WARM (8000), BENCH_IR_REQUESTS (5000), MARIADB_URL, REDIS_URL;
// BENCH_IR_YARDSTICKS, which yardsticks to count (`bare,headers,floor`; `none`: the service alone);
// BENCH_IR_KEEP, a directory where callgrind's files are kept (read them with callgrind_annotate).
// Takes about six minutes; needs valgrind (on every machine of this kind).
import { execFileSync, spawn } from 'node:child_process';
import { constants, hash, publicEncrypt, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { createClient } from 'redis';

import { compileService, freePort, ROOT } from './shared.mjs';

const EMBEDDED = process.argv.includes('--embedded');
const LOGIN = process.argv.includes('--login');
const INTROSPECT = process.argv.includes('--introspect');
// Which yardsticks to count beside the service (all by default; `none` counts the service alone,
// for comparing two builds of it).
const YARDSTICKS = new Set((process.env.BENCH_IR_YARDSTICKS ?? 'bare,headers,floor').split(','));
const WARM = Number(process.env.BENCH_IR_WARM ?? 8000);
const REQUESTS = Number(process.env.BENCH_IR_REQUESTS ?? 5000);
const LOGIN_WARM = Number(process.env.BENCH_IR_LOGIN_WARM ?? 1000);
const LOGINS = Number(process.env.BENCH_IR_LOGINS ?? 1000);
const LOGINS_ALONE = 100;
const LOGIN_USERS = 64;
// A directory to keep callgrind's files in (for callgrind_annotate), instead of deleting them.
const KEEP = process.env.BENCH_IR_KEEP;
if (KEEP) mkdirSync(KEEP, { recursive: true });
const USER_PASSWORD = 'Bench#user1';
const MARIADB = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE = 'lps_bench_ir';
const PREFIX = `lpsbenchir:${randomBytes(3).toString('hex')}:`;
const ADMIN_PASSWORD = 'Admin@12345';
const NEW_PASSWORD = 'Bench#pass1';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
// What every HTTP answer carries whatever the route: not part of what (3c) adds to the bare route.
const FRAMING_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'transfer-encoding',
]);
const log = (...args) => console.error('[instructions]', ...args);

const children = new Set();
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

// valgrind names the pipes callgrind_control talks through after $USER and $HOST as the target
// sees them: the service's HOST (its listen address) must be the one callgrind_control sees too.
const VGDB_NAMES = { USER: 'lpsbench', HOST: '127.0.0.1' };

/** A process under callgrind with counting off; its counts go to `out` (`out-NN`, thread NN, with --separate-threads). */
function underCallgrind(args, env, out, valgrindArgs = []) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      ...valgrindArgs,
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...args,
    ],
    { cwd: ROOT, env: { ...env, ...VGDB_NAMES }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  child.once('exit', (code) => {
    if (code && !child.stopping) log(`${args[0]} exited with ${code}:\n${stderr}`);
  });
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

async function post(url, path, body = {}, token, extraHeaders = {}) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': UA,
      ...(token ? { 'admin-token': token } : {}),
      ...extraHeaders,
    },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!json.success) throw new Error(`${path}: ${res.status} ${json.code} ${json.message}`);
  return {
    data: json.data,
    headers: Object.fromEntries([...res.headers].filter(([name]) => !FRAMING_HEADERS.has(name))),
  };
}

/**
 * Runs `load(warm)`, then `load(counted)` with counting on, and stops the process: its counts (the
 * totals callgrind wrote at exit, per thread file when there are several) and the requests counted.
 */
async function counted(label, child, out, load, warm, amount) {
  log(`${label}: ${warm} requests to warm up, then ${amount} counted`);
  const warmed = await load(warm);
  const control = (what) =>
    execFileSync('callgrind_control', ['-i', what, String(child.pid)], {
      env: { ...process.env, ...VGDB_NAMES },
      stdio: 'ignore',
    });
  control('on');
  const result = await load(amount);
  control('off');
  await stop(child);
  const failed = warmed.non2xx + warmed.errors + result.non2xx + result.errors + result.timeouts;
  if (failed) {
    const statuses = (r) =>
      JSON.stringify(Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])));
    throw new Error(
      `${label}: ${failed} requests failed (warm-up ${statuses(warmed)}, ${warmed.errors} errors; ` +
        `counted ${statuses(result)}, ${result.errors} errors, ${result.timeouts} timeouts)`,
    );
  }
  const name = basename(out);
  // With --separate-threads, `out` itself holds no count: the threads' files are `out-01` (main), `out-02`, …
  const threads = readdirSync(dirname(out))
    .filter((f) => f.startsWith(`${name}-`))
    .sort();
  const files = threads.length ? threads : [name];
  const totals = files.map((f) =>
    Number(/^totals: (\d+)/m.exec(readFileSync(join(dirname(out), f), 'utf8'))?.[1] ?? 0),
  );
  for (const f of [name, ...threads]) {
    if (KEEP && existsSync(join(dirname(out), f))) copyFileSync(join(dirname(out), f), join(KEEP, f));
    rmSync(join(dirname(out), f), { force: true });
  }
  if (!(totals.reduce((a, b) => a + b, 0) > 0))
    throw new Error(`${label}: callgrind counted nothing (callgrind_control did not reach the process)`);
  return { totals, requests: result.requests.total };
}

/**
 * Instructions per request of POST `url` with `headers` and `body` (16 connections): the whole process
 * and its main thread (the process runs with --separate-threads).
 */
async function count(label, child, out, url, headers, body = '{}') {
  const load = (amount) =>
    autocannon({
      url,
      method: 'POST',
      connections: 16,
      amount,
      timeout: 60,
      body,
      headers: { 'content-type': 'application/json', 'user-agent': UA, ...headers },
    });
  const { totals, requests } = await counted(label, child, out, load, WARM, REQUESTS);
  return { all: totals.reduce((a, b) => a + b, 0) / requests, main: totals[0] / requests };
}

function stop(child) {
  child.stopping = true;
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
  });
}

/** The service under callgrind on `database`, its public key and the admin's normal token (the first password changed). */
async function startService(database, out, valgrindArgs) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // As run.mjs starts it (metrics hook on); BCrypt at cost 4.
  const child = underCallgrind(
    [join(DIST, 'src', 'main.js')],
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: database.url,
      ...database.redis,
      ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      CAPTCHA_ENABLED: 'false',
      THROTTLE_LOGIN_LIMIT: '1000000',
      // Under valgrind a login runs tens of times slower: counted, not shed for waiting.
      LOGIN_QUEUE_MS: '60000',
      LOG_LEVEL: 'warn',
      METRICS_TOKEN: randomBytes(24).toString('hex'),
    },
    out,
    valgrindArgs,
  );
  log(`starting the service under valgrind (${EMBEDDED ? 'SQLite + memory store' : 'MariaDB + Redis'})`);
  await until(`${url}/health`, undefined, child);
  const {
    data: { publicKey },
  } = await post(url, '/sys/publicKey');
  const encrypt = (plain) =>
    publicEncrypt(
      { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(plain),
    ).toString('base64');
  const first = (await post(url, '/sys/login', { account: 'admin', password: encrypt(ADMIN_PASSWORD) })).data
    .accessToken;
  await post(url, '/sys/me/pass/update', { oldPass: encrypt(ADMIN_PASSWORD), newPass: encrypt(NEW_PASSWORD) }, first);
  const login = (await post(url, '/sys/login', { account: 'admin', password: encrypt(NEW_PASSWORD) })).data;
  if (login.tempUser) throw new Error('the set-up login gave a temporary token');
  return { child, url, encrypt, token: login.accessToken };
}

/** (3) and its yardsticks (with --introspect, (8) and the bare route): instructions per request. */
async function infoFigures(database, dir) {
  const figures = {};
  // Thread by thread, for the main thread's count (see the top of this file).
  const service = await startService(database, join(dir, 'service.out'), ['--separate-threads=yes']);
  const { data: info, headers } = await post(service.url, '/sys/me/info', {}, service.token);
  figures.headerCount = Object.keys(headers).length;
  if (INTROSPECT) {
    // As run.mjs sends it: a gateway's API key holding only sys:token:introspect asks about a live token.
    const { data } = await post(
      service.url,
      '/sys/apiKey/create',
      { name: 'bench-gateway', permissions: ['sys:token:introspect'] },
      service.token,
    );
    const body = JSON.stringify({ token: service.token });
    const gateway = { authorization: `Bearer ${data.key}` };
    const probe = await post(service.url, '/sys/token/introspect', { token: service.token }, undefined, gateway);
    if (!probe.data.active) throw new Error(`the introspected token is not active: ${probe.data.reason}`);
    figures.service = await count(
      'service /sys/token/introspect',
      service.child,
      join(dir, 'service.out'),
      `${service.url}/sys/token/introspect`,
      gateway,
      body,
    );
  } else {
    figures.service = await count(
      'service /sys/me/info',
      service.child,
      join(dir, 'service.out'),
      `${service.url}/sys/me/info`,
      { 'admin-token': service.token },
    );
  }

  // The yardsticks read what the service read: the session key in Redis, or (embedded) a value of its shape.
  const read = EMBEDDED
    ? ['memory', JSON.stringify(info)]
    : [REDIS, `${PREFIX}AUTH_TOKEN:${hash('sha256', service.token, 'hex')}`];
  const yardsticks = [
    ['bare', 'bare-route.mjs', '/bare', []],
    ['headers', 'bare-route.mjs', '/bare', [JSON.stringify(headers)]],
    ['floor', 'nest-floor.mjs', '/floor', []],
  ].filter(([key]) => YARDSTICKS.has(key) && (!INTROSPECT || key === 'bare'));
  for (const [key, script, path, extra] of yardsticks) {
    const yardPort = await freePort();
    const out = join(dir, `${key}.out`);
    const child = underCallgrind(
      [join(ROOT, 'bench', script), String(yardPort), ...read, ...extra],
      { PATH: process.env.PATH },
      out,
      ['--separate-threads=yes'],
    );
    await until(
      `http://127.0.0.1:${yardPort}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      child,
    );
    figures[key] = await count(key, child, out, `http://127.0.0.1:${yardPort}${path}`, {});
  }
  return figures;
}

/** What the database and Redis servers counted: statements by kind, commands by name (MariaDB + Redis only). */
async function serverCounters() {
  const db = await createConnection(MARIADB);
  const [rows] = await db.query("SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Com\\_%' OR Variable_name = 'Questions'");
  await db.end();
  const redis = createClient({ url: REDIS });
  await redis.connect();
  const stats = await redis.sendCommand(['INFO', 'commandstats']);
  // Read events: one for each batch of commands a client sent together, i.e. its round trips.
  const reads = Number(/^total_reads_processed:(\d+)/m.exec(await redis.sendCommand(['INFO', 'stats']))?.[1]);
  await redis.quit();
  const counters = {};
  for (const { Variable_name: name, Value: value } of rows)
    counters[`sql ${name.replace(/^Com_/, '')}`] = Number(value);
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    counters[`redis ${name}`] = Number(calls);
  counters['round trips redis'] = reads;
  return counters;
}

/** (2): one password login, thread by thread, and (MariaDB + Redis) the statements and commands it sends. */
async function loginFigures(database, dir) {
  const out = join(dir, 'login.out');
  const service = await startService(database, out, ['--separate-threads=yes']);
  const password = service.encrypt(USER_PASSWORD);
  const accounts = Array.from({ length: LOGIN_USERS }, (_, i) => `irbench${String(i).padStart(3, '0')}`);
  log(`creating ${LOGIN_USERS} users`);
  for (const username of accounts) {
    await post(service.url, '/sys/user/create', { username, name: username, password, roles: [] }, service.token);
  }
  // A changed password: a login is the plain success path (no first-login tip, a normal token).
  if (EMBEDDED) {
    const db = new Database(database.url.slice('sqlite:'.length));
    db.prepare("UPDATE sys_user SET password_update_time = ? WHERE username LIKE 'irbench%'").run(
      new Date().toISOString().replace('T', ' ').replace('Z', ''),
    );
    db.close();
  } else {
    const db = await createConnection(`${MARIADB}/${DATABASE}`);
    await db.query("UPDATE sys_user SET password_update_time = UTC_TIMESTAMP(3) WHERE username LIKE 'irbench%'");
    await db.end();
  }
  let i = 0;
  const load = (amount, connections = 8) =>
    autocannon({
      url: service.url,
      connections,
      amount,
      timeout: 120,
      requests: [
        {
          method: 'POST',
          path: '/sys/login',
          headers: { 'content-type': 'application/json', 'user-agent': UA },
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ account: accounts[i++ % accounts.length], password }),
          }),
        },
      ],
    });
  const sent = {};
  let warm = true;
  const { totals, requests } = await counted(
    'service /sys/login',
    service.child,
    out,
    async (amount) => {
      const result = await load(amount);
      // Once, after the warm-up (by order: the warm-up and the count may be the same amount).
      if (!warm || EMBEDDED) return result;
      warm = false;
      // After the warm-up, not counted: what one login sends when it runs alone. Logins in parallel
      // share round trips (the Redis client sends the commands of one tick together), so the round
      // trips a login needs are counted one login at a time.
      log(`${LOGINS_ALONE} logins one at a time, counting what the servers receive`);
      const before = await serverCounters();
      const alone = await load(LOGINS_ALONE, 1);
      const after = await serverCounters();
      for (const [name, value] of Object.entries(after)) {
        // Less what serverCounters itself sent in between (one SHOW; HELLO, two INFO and QUIT on a new connection).
        const own = {
          'sql show_status': 1,
          'sql Questions': 1,
          'redis info': 2,
          'redis hello': 1,
          'redis quit': 1,
          'round trips redis': 4,
        };
        const n = value - (before[name] ?? 0) - (own[name] ?? 0);
        if (n > 0) sent[name] = n / alone.requests.total;
      }
      return { ...result, non2xx: result.non2xx + alone.non2xx, errors: result.errors + alone.errors };
    },
    LOGIN_WARM,
    LOGINS,
  );
  return { main: totals[0] / requests, others: totals.slice(1).reduce((a, b) => a + b, 0) / requests, sent };
}

const DIST = compileService('lps-bench', log);
const dir = mkdtempSync(join(tmpdir(), 'lps-ir-'));
let database = { url: `sqlite:${join(dir, 'bench.sqlite')}` };
if (!EMBEDDED) {
  const admin = await createConnection(MARIADB);
  await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
  await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4`);
  await admin.end();
  database = { url: `${MARIADB}/${DATABASE}`, redis: { REDIS_URL: REDIS, REDIS_KEY_PREFIX: PREFIX } };
}
let figures;
try {
  figures = LOGIN ? await loginFigures(database, dir) : await infoFigures(database, dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (!EMBEDDED) {
    const admin = await createConnection(MARIADB);
    await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
    await admin.end();
  }
}

const k = (n) => `${(n / 1000).toFixed(1)} k`;
const backendName = EMBEDDED ? 'SQLite + memory store' : 'MariaDB + Redis';
if (LOGIN) {
  const { main, others, sent } = figures;
  console.log(
    `\n${backendName}, Node ${process.version}; one password login (callgrind, user space), ` +
      `${LOGINS} logins over ${LOGIN_USERS} accounts after ${LOGIN_WARM}, BCRYPT_COST 4:\n`,
  );
  console.log('| thread | instructions per login |');
  console.log('|---|---|');
  console.log(`| main thread | ${k(main)} |`);
  console.log(`| every other thread (BCrypt at cost 4 on the pool, V8's compiler and collector) | ${k(others)} |`);
  if (!EMBEDDED) {
    const line = (prefix) =>
      Object.entries(sent)
        .filter(([name]) => name.startsWith(prefix) && name !== 'sql Questions')
        .map(([name, n]) => `${name.slice(prefix.length)} ${n.toFixed(2)}`)
        .join(', ');
    console.log(
      `\nper login, ${LOGINS_ALONE} logins one at a time: ${(sent['sql Questions'] ?? 0).toFixed(2)} SQL statements, one round trip each (${line('sql ')}); ` +
        `${(sent['round trips redis'] ?? 0).toFixed(2)} Redis round trips carrying ` +
        `${Object.entries(sent)
          .filter(([name]) => name.startsWith('redis '))
          .reduce((a, [, n]) => a + n, 0)
          .toFixed(2)} commands, ` +
        `those run inside scripts counted too (${line('redis ')})`,
    );
  }
} else {
  const pct = (a, b) => `${((a / b) * 100).toFixed(1)} %`;
  const { service, bare, headers, floor, headerCount } = figures;
  console.log(
    `\n${backendName}, Node ${process.version}; instructions per request ` +
      `(callgrind, user space), ${REQUESTS} requests after ${WARM}:\n`,
  );
  console.log(
    "| process | main thread | whole process | the service's share of its throughput, were the main thread's instructions all |",
  );
  console.log('|---|---|---|---|');
  const row = (name, f, share) => console.log(`| ${name} | ${k(f.main)} | ${k(f.all)} | ${share} |`);
  row(INTROSPECT ? '(8) service, /sys/token/introspect' : '(3) service, /sys/me/info', service, '');
  if (bare) row('bare Fastify + 1 store read', bare, pct(bare.main, service.main));
  if (headers)
    row(`(3c) bare + the service's ${headerCount} response headers`, headers, pct(headers.main, service.main));
  if (floor) row('(3b) Nest floor', floor, pct(floor.main, service.main));
  if (headers && bare && floor)
    console.log(
      `\nmain thread: the headers cost the bare route ${k(headers.main - bare.main)}; ` +
        `the service costs ${k(service.main - floor.main)} more than the floor`,
    );
}
