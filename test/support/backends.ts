import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createConnection } from 'mysql2/promise';

import { deleteKeysUnder, REDIS_TEST_URL, testKeyPrefix } from './redis-keys';

/**
 * The two set-ups every rule is tested on: the embedded default (SQLite file,
 * process memory) and MariaDB + Redis. MARIADB_URL / REDIS_TEST_URL point
 * elsewhere when needed; .ci/run makes sure both servers are up.
 */
export interface Backend {
  name: 'sqlite+memory' | 'mariadb+redis';
  /** A fresh, empty database and store namespace for one app (or a cluster of apps). */
  provision(): Promise<Provisioned>;
}

export interface Provisioned {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

const MARIADB = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = REDIS_TEST_URL;

export const sqliteMemory: Backend = {
  name: 'sqlite+memory',
  async provision() {
    const dir = mkdtempSync(join(tmpdir(), 'lps-test-'));
    return {
      env: { DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}` },
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const mariadbRedis: Backend = {
  name: 'mariadb+redis',
  async provision() {
    const id = randomBytes(4).toString('hex');
    const database = `lps_test_${id}`;
    const prefix = testKeyPrefix('t');
    const admin = await createConnection(MARIADB);
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    await admin.end();
    return {
      env: { DATABASE_URL: `${MARIADB}/${database}`, REDIS_URL: REDIS, REDIS_KEY_PREFIX: prefix },
      async dispose() {
        const conn = await createConnection(MARIADB);
        await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
        await conn.end();
        // The store's keys go with the database: what the suite wrote, sessions and counters without a TTL included.
        await deleteKeysUnder(prefix);
      },
    };
  },
};

export const BACKENDS: Backend[] = [sqliteMemory, mariadbRedis];
