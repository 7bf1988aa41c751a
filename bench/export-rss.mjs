// npm run bench:export: resident memory of the service while it streams the login-log CSV export
// ("memory does not grow with the row count"), on the embedded default (SQLite file).
//
// The service is built (as npm run bench builds it), started on a fresh SQLite file, and
// sys_login_log is filled straight through better-sqlite3 to each row count of BENCH_EXPORT_ROWS
// (default 100000,1000000). At each count one export of the whole log is read over HTTP as fast as
// this process takes it, while the service's VmRSS is sampled every 100 ms. Printed, not asserted:
// the figure that matters is that the peak stays about the same at 10× the rows.
// BENCH_SERVICE_NODE_OPTIONS (e.g. --max-old-space-size=96) is passed to the service as NODE_OPTIONS.
import { spawn } from 'node:child_process';
import { constants, publicEncrypt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';

import { compileService, freePort, ROOT } from './shared.mjs';

const COUNTS = (process.env.BENCH_EXPORT_ROWS ?? '100000,1000000').split(',').map(Number);
const ADMIN_PASSWORD = 'Admin@12345';
const log = (...args) => console.error('[bench:export]', ...args);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function post(url, path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers['admin-token'] = token;
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const envelope = await res.json();
  if (!envelope.success) throw new Error(`${path}: ${envelope.code} ${envelope.message}`);
  return envelope.data;
}

const main = join(compileService('lps-bench-export', log), 'src', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'lps-bench-export-'));
const file = join(dir, 'auth.sqlite');
const port = await freePort();
const child = spawn(process.execPath, [main], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    // e.g. --max-old-space-size=96: shows whether growth is garbage V8 has not collected yet or memory held.
    ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
    DATABASE_URL: `sqlite:${file}`,
    ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    // The retention job must not delete the rows under test (they are dated now anyway).
    LOG_RETENTION_DAYS: '0',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
process.once('exit', () => child.kill('SIGKILL'));
const url = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      /* not yet */
    }
    if (i > 300) throw new Error('the service did not start within 60 s');
    await sleep(200);
  }
  const { publicKey } = await post(url, '/sys/publicKey', {});
  const password = publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(ADMIN_PASSWORD),
  ).toString('base64');
  const { accessToken } = await post(url, '/sys/login', { account: 'admin', password });

  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  const insert =
    db.prepare(`INSERT INTO sys_login_log (user_id, account, user_name, login_type, status, ip, browser, os, login_time, failure_reason)
    VALUES (NULL, ?, '王五', 'account', 'passwrong', ?, 'Chrome 120.0', 'Windows 10', ?, '用户名或密码错误')`);
  const fill = db.transaction((from, to) => {
    const base = Date.now() - to * 1_000;
    for (let n = from; n < to; n += 1) {
      insert.run(
        `bench_user_${n % 5_000}`,
        `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        new Date(base + n * 1_000).toISOString().replace('T', ' ').slice(0, 23),
      );
    }
  });

  const results = [];
  let have = 0;
  for (const count of COUNTS) {
    const started = performance.now();
    for (let at = have; at < count; at += 50_000) fill(at, Math.min(count, at + 50_000));
    have = count;
    log(`${count} rows in sys_login_log (filled in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    global.gc?.();
    await sleep(1_000);
    const before = rssMiB(child.pid);
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, rssMiB(child.pid));
    }, 100);
    const t0 = performance.now();
    const res = await fetch(`${url}/sys/loginLog/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'admin-token': accessToken },
      body: '{}',
    });
    if (!res.ok) throw new Error(`export answered ${res.status}`);
    let bytes = 0;
    let lines = 0;
    // RSS at each tenth of the rows: flat memory plateaus early, retained rows would climb to the end.
    const tenths = [];
    for await (const chunk of res.body) {
      bytes += chunk.length;
      for (let k = 0; k < chunk.length; k += 1) if (chunk[k] === 10) lines += 1;
      if (lines >= ((tenths.length + 1) * count) / 10) tenths.push(Math.round(rssMiB(child.pid)));
    }
    log(`${count} rows: RSS (MiB) at each tenth of the export: ${tenths.join(' ')}`);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(timer);
    peak = Math.max(peak, rssMiB(child.pid));
    results.push({
      rows: count,
      csvLines: lines - 1,
      MiB: +(bytes / 2 ** 20).toFixed(1),
      seconds: +seconds.toFixed(1),
      rowsPerSecond: Math.round((lines - 1) / seconds),
      rssBeforeMiB: +before.toFixed(0),
      rssPeakMiB: +peak.toFixed(0),
      growthMiB: +(peak - before).toFixed(0),
    });
  }
  db.close();
  console.log(`login-log CSV export on SQLite (Node ${process.version}):`);
  console.table(results);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
