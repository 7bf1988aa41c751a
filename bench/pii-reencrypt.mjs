// npm run bench:pii: time and resident memory of PiiReencryptJob (src/pii/pii-reencrypt.job.ts) sealing the
// mobiles and e-mails of users written before encryption, on the embedded default (SQLite file).
//
// The service is compiled (as npm run bench does), a fresh SQLite file is migrated, sys_user and
// sys_user_identifier are filled straight through better-sqlite3 with BENCH_PII_USERS users (default 1000000),
// each with a plain mobile and e-mail as an upgrade finds them, and the job runs in this process under a
// generated key while VmRSS is sampled every 100 ms. Printed, not asserted (docs/benchmarks.md#personal-data-re-encryption).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';

import { compileService } from './shared.mjs';

const USERS = Number(process.env.BENCH_PII_USERS ?? 1_000_000);
const log = (...args) => console.error('[bench:pii]', ...args);

const rssMiB = () =>
  Number(
    readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'))
      .split(/\s+/)[1],
  ) / 1024;

const dist = compileService('lps-bench-pii', log);
const require = createRequire(import.meta.url);
require('reflect-metadata');
const { dataSourceOptions, initializeDataSource } = require(join(dist, 'src', 'database', 'data-source-options.js'));
const { STANDARD_SUITE } = require(join(dist, 'src', 'crypto', 'crypto-suite.js'));
const { PiiCipher } = require(join(dist, 'src', 'pii', 'pii-cipher.js'));
const { PiiReencryptJob, PII_BATCH_SIZE } = require(join(dist, 'src', 'user-account', 'pii-reencrypt.job.js'));

const dir = mkdtempSync(join(tmpdir(), 'lps-bench-pii-'));
const file = join(dir, 'auth.sqlite');
try {
  const migrated = await initializeDataSource(dataSourceOptions(`sqlite:${file}`));
  await migrated.destroy();

  log(`filling ${USERS} users with plain mobiles and e-mails`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const user = db.prepare(
    'INSERT INTO sys_user (id, username, name, mobile, email, password, create_time) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const identifier = db.prepare('INSERT INTO sys_user_identifier (value, user_id, kind) VALUES (?, ?, ?)');
  const fill = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const id = randomUUID();
      const username = `u${i}`;
      const mobile = `139${String(i).padStart(8, '0')}`;
      const email = `user.${i}@example.com`;
      user.run(id, username, `User ${i}`, mobile, email, '$2b$10$x', new Date(Date.UTC(2025, 0, 1)).toISOString());
      identifier.run(username, id, 'username');
      identifier.run(mobile, id, 'mobile');
      identifier.run(email, id, 'email');
    }
  });
  for (let from = 0; from < USERS; from += 50_000) fill(from, Math.min(USERS, from + 50_000));
  db.close();

  const dataSource = await initializeDataSource(dataSourceOptions(`sqlite:${file}`));
  const settings = { get: async () => null, insertIfAbsent: async (_g, _k, v) => v };
  const cipher = new PiiCipher(STANDARD_SUITE, { PII_ENCRYPTION_KEY: randomBytes(32).toString('base64') }, settings);
  await cipher.onModuleInit();
  const job = new PiiReencryptJob(dataSource, cipher);

  global.gc?.();
  const before = rssMiB();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 100);
  const started = process.hrtime.bigint();
  const changed = await job.run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB());
  const [{ left }] = await dataSource.query('SELECT COUNT(*) AS left FROM sys_user WHERE pii_version IS NULL');
  await dataSource.destroy();
  console.log(
    JSON.stringify({
      users: USERS,
      batch: PII_BATCH_SIZE,
      changed,
      left: Number(left),
      seconds: Number(seconds.toFixed(1)),
      usersPerSecond: Math.round(changed / seconds),
      rssBeforeMiB: Math.round(before),
      rssPeakMiB: Math.round(peak),
      node: process.version,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
