import { createHash } from 'node:crypto';
import { isIP } from 'node:net';

import type { BodyOf, DataOf, Envelope, PostPath } from './api';
import { type FieldError, LoginPolicyError } from './errors';
import { type GuardOptions, PermissionGuard } from './guard';
import { encryptPassword } from './password';
import { GUARD_REFUSALS, type Language } from './texts';
import { TtlCache } from './ttl-cache';

export type PublicKey = DataOf<'/sys/publicKey'>;
type LoginData = DataOf<'/sys/login'>;

/** A login that is done: the session token and what the user has to be told. */
export type LoginSuccess = Omit<LoginData, 'accessToken' | 'mfaRequired' | 'mfaToken'> & {
  accessToken: string;
  mfaRequired: false;
  mfaToken: null;
};

/** A login waiting for the second factor: finish it with `completeMfa({ mfaToken, code })`. */
export type LoginMfaRequired = Omit<LoginData, 'accessToken' | 'mfaRequired' | 'mfaToken'> & {
  accessToken: null;
  mfaRequired: true;
  mfaToken: string;
};

export type LoginResult = LoginSuccess | LoginMfaRequired;

export interface LoginInput {
  /** The account name, mobile number or e-mail address (the service looks them up in that order). */
  username: string;
  /** The password in clear: the client encrypts it under the service's key before it leaves. */
  password: string;
  /** While the service's captcha is on: the `imgId` of `POST /sys/captcha` and the text a person read. */
  captcha?: { imgId: string; imgCode: string };
}

type IntrospectionData = DataOf<'/sys/token/introspect'>;

/**
 * A token that works now, and who it belongs to (docs/api.md#token-introspection): `permissions`
 * (`*` holds every code), `tempUser` (a temporary token reaches almost nothing), `loginTime` and
 * `expireAt` (epoch ms, after the renewal the introspection made), `mfa` (the login proved a second
 * factor).
 */
export type ActiveToken = Required<Omit<IntrospectionData, 'active' | 'reason'>> & { active: true };

/** A token that does not work, with the code a request carrying it would get. */
export interface InactiveToken {
  active: false;
  reason: NonNullable<IntrospectionData['reason']>;
}

export type Introspection = ActiveToken | InactiveToken;

export interface IntrospectionCacheOptions {
  /** How long an active answer is reused, in ms (0 to 60 000; default 5 000). */
  ttlMs?: number;
  /** How long an inactive answer is reused, in ms (0 to `ttlMs`; default 1 000 or `ttlMs` if less; 0 = never). */
  inactiveTtlMs?: number;
  /** At most this many answers are kept; the least recently used goes first (default 10 000). */
  maxEntries?: number;
}

export interface LoginPolicyClientOptions {
  /** Where the service answers, e.g. `http://lps:3000` (no trailing path). */
  baseUrl: string;
  /** An API key (`lps_…`) holding `sys:token:introspect`; needed by `introspect` and the guards. */
  apiKey?: string;
  /** The language of the service's messages in errors (default `zh`, as the service's default). */
  language?: Language;
  /** A request that has not answered after this many ms fails as `SERVICE_UNAVAILABLE` (default 5 000). */
  timeoutMs?: number;
  introspectionCache?: IntrospectionCacheOptions;
  /** The fetch to use (default: Node's global fetch). */
  fetch?: typeof fetch;
  /** The clock of the introspection cache, epoch ms (default `Date.now`). */
  now?: () => number;
  /**
   * SM2 encryption for a service running `CRYPTO_SUITE=gm` (its `/sys/publicKey` answers `algorithm:
   * "SM2"`): C1C3C2, hex, under the public key (hex, `04…`). The client has no dependencies and Node
   * has no SM2, so bring one, e.g. `(key, password) => sm2.doEncrypt(password, key, 1)` from
   * `sm-crypto` or `sm-crypto-v2`. Without it, `login` against such a service throws a TypeError.
   */
  encryptSm2?: (publicKey: string, password: string) => string;
}

/** The service refuses longer tokens without looking them up; so does the client, without a request. */
const MAX_TOKEN_LENGTH = 256;
const MAX_CACHE_TTL_MS = 60_000;

/**
 * The service's API for a Node service: logging a user in (the password encrypted on the way),
 * checking a caller's token with the service (`introspect`, cached briefly) and guarding routes by
 * permission code (`requirePermission`). docs/api.md describes the operations it calls.
 */
export class LoginPolicyClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly inactiveTtlMs: number;
  private readonly cache: TtlCache<Introspection>;
  private readonly inFlight = new Map<string, Promise<Introspection>>();

  constructor(private readonly options: LoginPolicyClientOptions) {
    const url = new URL(options.baseUrl);
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = options.now ?? Date.now;
    const cache = options.introspectionCache ?? {};
    this.ttlMs = checkedMs('introspectionCache.ttlMs', cache.ttlMs ?? 5_000, MAX_CACHE_TTL_MS);
    this.inactiveTtlMs = checkedMs(
      'introspectionCache.inactiveTtlMs',
      cache.inactiveTtlMs ?? Math.min(1_000, this.ttlMs),
      this.ttlMs,
    );
    const maxEntries = cache.maxEntries ?? 10_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError('introspectionCache.maxEntries must be a whole number, 0 or more');
    }
    this.cache = new TtlCache(maxEntries, this.now);
  }

  /** `POST /sys/publicKey`: the key every password field is encrypted under (RSA-OAEP-256, or SM2 under gm). */
  publicKey(): Promise<PublicKey> {
    return this.post('/sys/publicKey', {});
  }

  /**
   * `POST /sys/login`: fetches the public key, encrypts the password with {@link encryptPassword} and
   * logs in. Answers the token, or `mfaRequired` with the `mfaToken` to finish with
   * {@link completeMfa}; a refusal throws a {@link LoginPolicyError} with the service's `code`
   * (`BAD_CREDENTIALS`, `ACCOUNT_LOCKED`, `CAPTCHA_INVALID`, …).
   */
  async login(input: LoginInput): Promise<LoginResult> {
    const body: BodyOf<'/sys/login'> = {
      account: input.username,
      password: this.encrypt(await this.publicKey(), input.password),
      ...(input.captcha ? { imgId: input.captcha.imgId, imgCode: input.captcha.imgCode } : {}),
    };
    return loginResult(await this.post('/sys/login', body));
  }

  private encrypt({ algorithm, publicKey }: PublicKey, password: string): string {
    if (algorithm !== 'SM2') return encryptPassword(publicKey, password);
    if (!this.options.encryptSm2) {
      throw new TypeError(
        'the service runs CRYPTO_SUITE=gm (SM2 password transport): give LoginPolicyClient an encryptSm2 option',
      );
    }
    return this.options.encryptSm2(publicKey, password);
  }

  /** `POST /sys/login/mfa`: the second step of a login that answered `mfaRequired`. */
  async completeMfa(input: { mfaToken: string; code: string }): Promise<LoginSuccess> {
    const result = loginResult(await this.post('/sys/login/mfa', input));
    if (result.mfaRequired) throw notTheEnvelope('/sys/login/mfa', 200);
    return result;
  }

  /**
   * `POST /sys/token/introspect` with the client's API key: whether `token` works (from `ip`, when
   * given, which matters where the service binds sessions to the login's IP) and whose it is.
   *
   * Answers are reused for a few seconds (`introspectionCache`), so a session ended at the service
   * (logout, kick-out, lock) may still pass here for up to `ttlMs`: active answers live `ttlMs`
   * (default 5 s) and never past the session's `expireAt`; inactive ones `inactiveTtlMs` (default
   * 1 s: a dead token never comes back, and one second absorbs a caller retrying it in a loop without
   * filling the cache with made-up tokens). Concurrent calls for the same token and IP share one
   * request. Failures are never cached: they throw a {@link LoginPolicyError}.
   */
  async introspect(token: string, options: { ip?: string } = {}): Promise<Introspection> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return { active: false, reason: 'NOT_LOGGED_IN' };
    const ip = options.ip && isIP(options.ip) ? options.ip : undefined;
    const key = `${createHash('sha256').update(token).digest('hex')}|${ip ?? ''}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const request = this.askIntrospection(token, ip)
      .then((result) => {
        this.remember(key, result);
        return result;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return request;
  }

  /**
   * A guard that lets a request through when its token (`Admin-Token` or `Authorization: Bearer`)
   * is active and holds `code` (or `*`), and otherwise answers the service's envelope: 401
   * (`NOT_LOGGED_IN`, `KICKED_OUT`, `IP_MISMATCH`), 403 (`FORBIDDEN`, `TEMP_TOKEN_FORBIDDEN`) or 503
   * (`SERVICE_UNAVAILABLE`: the service could not be asked). Mount `.fastify` as a preHandler hook,
   * `.express` as middleware, `.nest` with `@UseGuards`.
   */
  requirePermission(code: string, options: GuardOptions = {}): PermissionGuard {
    return new PermissionGuard(this, code, options);
  }

  private async askIntrospection(token: string, ip: string | undefined): Promise<Introspection> {
    if (!this.options.apiKey) throw new TypeError('introspect needs the apiKey option (an API key, lps_…)');
    const data = await this.post('/sys/token/introspect', ip ? { token, ip } : { token }, {
      authorization: `Bearer ${this.options.apiKey}`,
    });
    if (data === null || typeof data !== 'object' || typeof data.active !== 'boolean') {
      throw notTheEnvelope('/sys/token/introspect', 200);
    }
    return data as Introspection;
  }

  private remember(key: string, result: Introspection): void {
    const now = this.now();
    if (!result.active) {
      this.cache.set(key, result, now + this.inactiveTtlMs);
      return;
    }
    const until = now + this.ttlMs;
    this.cache.set(key, result, typeof result.expireAt === 'number' ? Math.min(until, result.expireAt) : until);
  }

  private post<P extends PostPath>(path: P, body: BodyOf<P>, headers?: Record<string, string>): Promise<DataOf<P>> {
    return this.call<DataOf<P>>(path, body, headers);
  }

  /** POSTs JSON and answers the envelope's `data`, or throws its refusal as a LoginPolicyError. */
  private async call<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    const language = this.options.language ?? 'zh';
    let response: Response;
    try {
      response = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': language, ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
    } catch (cause) {
      throw new LoginPolicyError('SERVICE_UNAVAILABLE', GUARD_REFUSALS.SERVICE_UNAVAILABLE[language], 0, [], {
        cause,
      });
    }
    let envelope: Envelope<T>;
    try {
      envelope = (await response.json()) as Envelope<T>;
    } catch (cause) {
      throw notTheEnvelope(path, response.status, cause);
    }
    if (envelope === null || typeof envelope !== 'object' || typeof envelope.success !== 'boolean') {
      throw notTheEnvelope(path, response.status);
    }
    if (!envelope.success) {
      const errors = (envelope.data as { errors?: FieldError[] } | null)?.errors;
      throw new LoginPolicyError(envelope.code, envelope.message, response.status, errors ?? []);
    }
    return envelope.data;
  }
}

function loginResult(data: LoginData): LoginResult {
  if (data.mfaRequired && typeof data.mfaToken === 'string') return data as LoginMfaRequired;
  if (!data.mfaRequired && typeof data.accessToken === 'string') return data as LoginSuccess;
  throw notTheEnvelope('/sys/login', 200);
}

function notTheEnvelope(path: string, status: number, cause?: unknown): LoginPolicyError {
  return new LoginPolicyError(
    'SERVICE_UNAVAILABLE',
    `The answer of ${path} (HTTP ${status}) is not the login-policy service's`,
    status,
    [],
    { cause },
  );
}

function checkedMs(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} must be a whole number of ms from 0 to ${max}`);
  }
  return value;
}
