import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';

import type { Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';

import { AppModule } from '../../src/app.module';
import { setupApp } from '../../src/app.setup';
import { Clock } from '../../src/common/clock';
import { Envelope } from '../../src/common/envelope';
import { createHttpAdapter } from '../../src/common/http-adapter';
import { shownAccount } from '../../src/common/pii-mask';
import { loadConfig } from '../../src/config/app-config';
import { PiiCipher } from '../../src/pii/pii-cipher';
import { KvStore } from '../../src/store/kv.store';
import { Backend, Provisioned } from './backends';
import { FakeClock } from './fake-clock';
import { encryptPassword, PublicKeyInfo } from './password-transport';
import type { LoginSettings, UserSettings } from './settings';

export const ADMIN_PASSWORD = 'Admin@12345';

/** Sessions and permission caches are keyed by the SHA-256 of the token (the Redis store adds the prefix). */
export const sha256hex = (token: string): string => createHash('sha256').update(token).digest('hex');
export const tokenKey = (token: string): string => `AUTH_TOKEN:${sha256hex(token)}`;
export const permsKey = (token: string): string => `AUTH_PERMS:${sha256hex(token)}`;

/** A DATETIME column as epoch ms: mysql2 gives a Date (timezone 'Z'), better-sqlite3 the UTC text TypeORM wrote. */
export function epochMs(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  const text = String(value);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.replace(' ', 'T')}Z`).getTime();
}

export interface Reply<T = any> {
  status: number;
  body: Envelope<T>;
  headers: Record<string, unknown>;
}

export interface CallOptions {
  token?: string;
  ip?: string;
  headers?: Record<string, string>;
  /** A raw payload (string) instead of JSON. */
  raw?: string;
  contentType?: string;
}

/** One running app on a backend, driven over HTTP through Fastify's inject. */
export class TestApp {
  private publicKeyInfo?: PublicKeyInfo;

  constructor(
    readonly app: NestFastifyApplication,
    readonly clock: FakeClock,
    readonly provisioned: Provisioned,
    private readonly ownsProvision: boolean,
  ) {}

  get store(): KvStore {
    return this.app.get(KvStore);
  }

  get db(): DataSource {
    return this.app.get(DataSource);
  }

  async post<T = any>(path: string, body: unknown = {}, opts: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = {
      'content-type': opts.contentType ?? 'application/json',
      'x-forwarded-for': opts.ip ?? '10.0.0.1',
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      ...opts.headers,
    };
    if (opts.token) headers['admin-token'] = opts.token;
    const res = await this.app.inject({
      method: 'POST',
      url: path,
      headers,
      payload: opts.raw ?? JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.json() as Envelope<T>, headers: res.headers };
  }

  /** A password field under the service's public key, as the console makes it (RSA-OAEP-256, or SM2 under gm). */
  async encrypt(plain: string): Promise<string> {
    this.publicKeyInfo ??= (await this.post<PublicKeyInfo>('/sys/publicKey')).body.data!;
    return encryptPassword(this.publicKeyInfo, plain);
  }

  async login(account: string, password: string, opts: CallOptions = {}) {
    return this.post<{ accessToken: string; tempUser: boolean; forceUpdatePassword: boolean; tip: string }>(
      '/sys/login',
      { account, password: await this.encrypt(password) },
      opts,
    );
  }

  /** Logs in and insists on success; returns the token. */
  async token(account: string, password: string, opts: CallOptions = {}): Promise<string> {
    const res = await this.login(account, password, opts);
    if (!res.body.success) throw new Error(`login of ${account} failed: ${res.body.code} ${res.body.message}`);
    return res.body.data!.accessToken;
  }

  private adminTokenCache?: string;

  async adminToken(): Promise<string> {
    if (this.adminTokenCache) {
      const probe = await this.post('/sys/me/info', {}, { token: this.adminTokenCache });
      if (probe.body.success) return this.adminTokenCache;
    }
    this.adminTokenCache = await this.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
    return this.adminTokenCache;
  }

  async admin<T = any>(path: string, body: unknown = {}): Promise<Reply<T>> {
    return this.post<T>(path, body, { token: await this.adminToken(), ip: '10.9.9.9' });
  }

  async saveLoginStrategy(fields: Partial<LoginSettings>) {
    const res = await this.admin('/sys/strategy/login/save', fields);
    if (!res.body.success) throw new Error(`login strategy save failed: ${res.body.message}`);
  }

  async saveUserStrategy(fields: Partial<UserSettings>) {
    const res = await this.admin('/sys/strategy/user/save', fields);
    if (!res.body.success) throw new Error(`user strategy save failed: ${res.body.message}`);
  }

  /** The stored session of a token, or null when there is none. */
  async sessionOf(token: string): Promise<any> {
    const raw = await this.store.get(tokenKey(token));
    return raw === null || raw === undefined ? null : JSON.parse(raw);
  }

  /** The sys_user row, its mobile and e-mail opened (they are sealed at rest: docs/security.md#personal-data). */
  async userRow(id: string): Promise<any> {
    const [row] = await this.db.query('SELECT * FROM sys_user WHERE id = ?', [id]);
    if (!row) return row;
    const pii = this.app.get(PiiCipher);
    return { ...row, mobile: pii.reveal(row.mobile), email: pii.reveal(row.email) };
  }

  /** The login-log rows of `account` as typed; a mobile or e-mail is kept masked (docs/security.md#personal-data). */
  async logRows(account: string): Promise<any[]> {
    return this.db.query('SELECT * FROM sys_login_log WHERE account IN (?, ?) ORDER BY id', [
      account,
      shownAccount(account, false),
    ]);
  }

  async close(): Promise<void> {
    await this.app.close();
    if (this.ownsProvision) await this.provisioned.dispose();
  }
}

export interface StartOptions {
  env?: Record<string, string>;
  clock?: FakeClock;
  /** Reuse a database and store namespace (a second instance of a cluster). */
  provisioned?: Provisioned;
  /** Test-only modules beside the app's own (e.g. a controller that drives a port). */
  imports?: Type[];
}

export async function startApp(backend: Backend, options: StartOptions = {}): Promise<TestApp> {
  const provisioned = options.provisioned ?? (await backend.provision());
  const config = loadConfig({
    CAPTCHA_ENABLED: 'false',
    ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
    BCRYPT_COST: '4',
    TRUST_PROXY: 'true',
    ...provisioned.env,
    ...options.env,
  });
  const clock = options.clock ?? new FakeClock();
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config), ...(options.imports ?? [])] })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), {
    bodyParser: false,
    logger: ['error', 'warn'],
  });
  try {
    await setupApp(app);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  } catch (err) {
    // A start that fails (the tests of start-time refusals) leaves no connection open behind it.
    await app.close().catch(() => undefined);
    if (!options.provisioned) await provisioned.dispose();
    throw err;
  }
  return new TestApp(app, clock, provisioned, !options.provisioned);
}

/**
 * Puts an app started by startApp (initialised, answering inject) on a real port as well, and
 * returns its base URL: for the message stream over a real socket and for the browser suites
 * (127.0.0.1 counts as a secure context, so the console's WebCrypto works).
 */
export async function listenOnLocalPort(app: TestApp): Promise<string> {
  await app.app.listen(0, '127.0.0.1');
  const { port } = app.app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
