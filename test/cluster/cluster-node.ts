import { ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { createConnection } from 'mysql2/promise';

import { buildCommands } from '../support/built-command';
import { encryptPassword } from '../support/password-transport';
import { deleteKeysUnder, testKeyPrefix } from '../support/redis-keys';

/**
 * Instances of the BUILT service (node <build>/src/main.js) as child processes, for the
 * scale-out suite: what runs in production, over real HTTP, sharing one MariaDB database
 * and one Redis namespace.
 */

const ROOT = join(__dirname, '..', '..');
export const ADMIN_PASSWORD = 'Admin@12345';

const MARIADB = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const REDIS = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

/** The service as production runs it: compiled by tsconfig.build.json (the build the commands share). */
export async function buildService(): Promise<string> {
  return join(await buildCommands(), 'src', 'main.js');
}

/** One fresh database and one Redis key prefix for the whole cluster. */
export interface ClusterBackend {
  database: string;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  dispose(): Promise<void>;
}

export async function provisionCluster(): Promise<ClusterBackend> {
  const id = randomBytes(4).toString('hex');
  const database = `lps_cluster_${id}`;
  const prefix = testKeyPrefix('c');
  const admin = await createConnection(MARIADB);
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await admin.end();
  return {
    database,
    databaseUrl: `${MARIADB}/${database}`,
    redisUrl: REDIS,
    prefix,
    async dispose() {
      const conn = await createConnection(MARIADB);
      await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await conn.end();
      await deleteKeysUnder(prefix);
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<ChildProcess>();
// A crashed or interrupted test run must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface Reply<T = any> {
  status: number;
  body: { success: boolean; code: string; message: string; data: T };
}

/** One instance of the built service, driven with fetch. */
export class ServiceNode {
  private output: string[] = [];
  private publicKeyPem?: string;
  private exited = false;

  private constructor(
    readonly name: string,
    readonly url: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString().split('\n').filter(Boolean));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', () => {
      this.exited = true;
      running.delete(child);
    });
  }

  static async start(name: string, main: string, env: Record<string, string>): Promise<ServiceNode> {
    const port = await freePort();
    const child = spawn(process.execPath, [main], {
      cwd: ROOT,
      // Only what the service's environment variables give, not the test runner's environment.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    return new ServiceNode(name, `http://127.0.0.1:${port}`, child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Last lines the process printed (for failure messages). */
  log(): string {
    return this.output.map((l) => `  [${this.name}] ${l}`).join('\n');
  }

  async waitHealthy(timeoutMs = 45_000): Promise<void> {
    const giveUpAt = Date.now() + timeoutMs;
    while (Date.now() < giveUpAt) {
      if (this.exited) throw new Error(`${this.name} exited during start:\n${this.log()}`);
      try {
        const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${this.name} not healthy within ${timeoutMs} ms:\n${this.log()}`);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  }

  async post<T = any>(
    path: string,
    body: unknown = {},
    opts: { token?: string; ip?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-forwarded-for': opts.ip ?? '10.0.0.1',
      'user-agent':
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      ...opts.headers,
    };
    if (opts.token) headers['admin-token'] = opts.token;
    const res = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, body: (await res.json()) as Reply<T>['body'] };
  }

  /** RSA-OAEP/SHA-256 under the public key this instance serves. */
  async encrypt(plain: string): Promise<string> {
    if (!this.publicKeyPem) this.publicKeyPem = (await this.post('/sys/publicKey')).body.data.publicKey;
    return encryptPassword(this.publicKeyPem!, plain);
  }

  async login(account: string, password: string, ip?: string) {
    return this.post<{ accessToken: string; tempUser: boolean; mfaRequired: boolean; mfaToken: string | null }>(
      '/sys/login',
      { account, password: await this.encrypt(password) },
      { ip },
    );
  }

  async token(account: string, password: string, ip?: string): Promise<string> {
    const res = await this.login(account, password, ip);
    if (!res.body.success) throw new Error(`${this.name}: login of ${account} failed: ${res.body.code}`);
    return res.body.data.accessToken;
  }
}

export const sha256hex = (token: string) => createHash('sha256').update(token).digest('hex');
