import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  validateSync,
} from 'class-validator';

import { isTimeZoneName, serverTimeZone } from './time-zone';
import { parseTrustProxy, TRUST_PROXY_RULE, TrustProxy } from './trust-proxy';

const bool = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : value === 'true' ? true : value === 'false' ? false : value;
const int = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;
const list = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;
/** A user name as /sys/user/create takes it (after NFKC). */
export const USERNAME = /^[A-Za-z0-9_.-]{2,64}$/;
export const ADMIN_MODES = ['single', 'three'] as const;
export type AdminMode = (typeof ADMIN_MODES)[number];
/** CRYPTO_SUITE: the algorithms of secrets at rest and MACs (docs/security.md); passwords stay BCrypt in both. */
export const CRYPTO_SUITES = ['standard', 'gm'] as const;
export type CryptoSuiteName = (typeof CRYPTO_SUITES)[number];
/** The shortest retention the service accepts besides 0 (keep everything): six months. */
export const MIN_RETENTION_DAYS = 180;
/** udp|tcp|tls://host:port, the host a name, an IPv4 address or a bracketed IPv6 address. */
export const SYSLOG_URL = /^(udp|tcp|tls):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([1-9]\d{0,4})$/;
/** A passkey relying party: a lower-case DNS name (localhost included), no scheme, port or path. */
export const RP_ID = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** An origin as a browser reports it: https (http only for localhost), a host, an optional port, nothing after. */
const RP_ORIGIN = /^(https:\/\/[a-z0-9.-]+|http:\/\/localhost)(:[1-9]\d{0,4})?$/;
const RP_ORIGINS_RULE =
  'RP_ORIGINS must be comma-separated origins such as https://login.example.com (https, or http://localhost; no path)';
/** host:port, the host a name, an IPv4 address or a bracketed IPv6 address. */
const SENTINEL_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([1-9]\d{0,4})$/;

/** The one place that reads process.env; validated once at start. */
export class AppConfig {
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @Matches(/^(sqlite:.+|mysql:\/\/.+|mariadb:\/\/.+)$/, {
    message: 'DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/db',
  })
  DATABASE_URL = 'sqlite:./data/auth.sqlite';

  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be redis://host:port' })
  REDIS_URL?: string;

  /**
   * Redis behind Sentinel instead of REDIS_URL. The Sentinels are asked where the
   * primary of REDIS_SENTINEL_MASTER is, and asked again whenever it moves (a failover).
   */
  @IsOptional()
  @Transform(list)
  @ArrayNotEmpty({ message: 'REDIS_SENTINELS must be host:port,host:port (the Sentinels, not the Redis servers)' })
  @Matches(SENTINEL_ADDRESS, {
    each: true,
    message: 'REDIS_SENTINELS must be host:port,host:port (the Sentinels, not the Redis servers)',
  })
  REDIS_SENTINELS?: string[];

  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]+$/, {
    message: 'REDIS_SENTINEL_MASTER must be the name the Sentinels monitor (sentinel monitor <name> ...)',
  })
  REDIS_SENTINEL_MASTER?: string;

  /**
   * With Sentinel: how many replicas must hold a write (Redis WAIT) before the service counts it as
   * done; otherwise the request answers 503. A failover then never loses a session, a logout or a
   * lock the service has acknowledged (docs/operations.md, "Redis Sentinel"). 0: do not wait (faster, and
   * writes still work with every replica down, but the last writes before a failover may be lost).
   */
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(16)
  REDIS_SENTINEL_WAIT_REPLICAS = 1;

  @IsString()
  REDIS_KEY_PREFIX = '';

  @Transform(bool)
  @IsBoolean({ message: 'CAPTCHA_ENABLED must be true or false' })
  CAPTCHA_ENABLED = true;

  @IsOptional()
  @IsString()
  DEFAULT_PASSWORD?: string;

  @IsOptional()
  @IsString()
  ADMIN_INITIAL_PASSWORD?: string;

  /**
   * The user name of the account the first start creates (no user at all yet). Checked as a user name
   * given to /sys/user/create is (docs/operations.md#configuration).
   */
  @Transform(({ value }) => (typeof value === 'string' ? value.normalize('NFKC') : value))
  @Matches(USERNAME, {
    message: 'ADMIN_USERNAME must be 2-64 letters, digits, _ . or - (the user name of the first-start account)',
  })
  ADMIN_USERNAME = 'admin';

  /**
   * `single`: the first start creates ADMIN_USERNAME holding `*`. `three` (三员分立): the first start
   * creates the system, security and audit administrators instead, and no role may hold `*` or mix
   * the codes of two of their sets (docs/security.md#three-administrators).
   */
  @IsIn(ADMIN_MODES, {
    message:
      'ADMIN_MODE must be single (one administrator holding *) or three (system, security and audit administrators)',
  })
  ADMIN_MODE: AdminMode = 'single';

  /** Parsed for Fastify's trustProxy; an unparsable value stays a string and fails validation. */
  @Transform(({ value }) => (typeof value === 'string' ? (parseTrustProxy(value) ?? value) : value))
  @ValidateBy(
    { name: 'trustProxy', validator: { validate: (v) => typeof v !== 'string' } },
    { message: TRUST_PROXY_RULE },
  )
  TRUST_PROXY: TrustProxy = false;

  @Transform(list)
  @IsString({ each: true })
  TEMP_URIS: string[] = [
    '/sys/me/pass/update',
    '/sys/me/info',
    '/sys/logout',
    '/sys/publicKey',
    '/sys/strategy/user/rules',
  ];

  @IsOptional()
  @IsString()
  RSA_PRIVATE_KEY?: string;

  @IsOptional()
  @IsString()
  RSA_PRIVATE_KEY_FILE?: string;

  /** The SM2 private key of password transport under CRYPTO_SUITE=gm (hex of 32 bytes); unset: generated and kept in the database. */
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'SM2_PRIVATE_KEY must be the hex of a 32-byte SM2 private key' })
  SM2_PRIVATE_KEY?: string;

  @Transform(int)
  @IsInt()
  @Min(4)
  @Max(15)
  BCRYPT_COST = 10;

  /**
   * Password compares at once: each runs in a worker thread of its own at a lower scheduling
   * priority than the event loop (docs/operations.md). Default: the number of cores.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(64)
  BCRYPT_CONCURRENCY = Math.max(1, availableParallelism());

  /**
   * The longest a password compare may wait for the pool: a login that would wait longer answers
   * SERVICE_UNAVAILABLE with Retry-After at once instead of queueing (docs/operations.md).
   */
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(60_000)
  LOGIN_QUEUE_MS = 1_000;

  /**
   * During a flood, how long the shed answer to a login from a client not known good is held before
   * it is sent (0: at once), so that a flood's connections come back at that pace (docs/operations.md).
   */
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(60_000)
  LOGIN_SHED_HOLD_MS = 1_000;

  /**
   * The algorithms of secrets at rest, keyed hashes and password transport: `standard`
   * (RSA, AES-256-GCM, HMAC-SHA256) or `gm` (SM2, SM4, HMAC-SM3). Passwords stay BCrypt in both.
   */
  @IsIn(CRYPTO_SUITES, { message: 'CRYPTO_SUITE must be standard or gm' })
  CRYPTO_SUITE: CryptoSuiteName = 'standard';

  /**
   * The AES-256-GCM key of the TOTP secrets (and, derived from it, of the recovery
   * code hashes). Unset: one is generated on first start and kept in the database.
   */
  @IsOptional()
  @ValidateBy(
    { name: 'aes256Key', validator: { validate: (v) => typeof v === 'string' && isBase64Of32Bytes(v) } },
    {
      message: 'MFA_ENCRYPTION_KEY must be the base64 of 32 random bytes (e.g. openssl rand -base64 32)',
    },
  )
  MFA_ENCRYPTION_KEY?: string;

  /**
   * The key of the users' mobile numbers and e-mail addresses at rest (docs/security.md#personal-data). Unset: one is
   * generated on first start and kept in the database, and the start log says to set it.
   */
  @IsOptional()
  @ValidateBy(
    { name: 'piiKey', validator: { validate: (v) => typeof v === 'string' && isBase64Of32Bytes(v) } },
    {
      message: 'PII_ENCRYPTION_KEY must be the base64 of 32 random bytes (e.g. openssl rand -base64 32)',
    },
  )
  PII_ENCRYPTION_KEY?: string;

  /**
   * The keys PII_ENCRYPTION_KEY replaced, comma-separated: values under them are still read, and re-encrypted under
   * the current key in the background (docs/security.md#personal-data).
   */
  @IsOptional()
  @ValidateBy(
    {
      name: 'piiPreviousKeys',
      validator: {
        validate: (v) =>
          typeof v === 'string' &&
          v
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean)
            .every(isBase64Of32Bytes),
      },
    },
    {
      message: 'PII_ENCRYPTION_KEY_PREVIOUS must be base64 keys of 32 bytes, separated by commas',
    },
  )
  PII_ENCRYPTION_KEY_PREVIOUS?: string;

  /**
   * The HMAC-SHA256 key that seals every row of the login log and the audit log (docs/security.md#sealed-logs).
   * Unset: one is generated on first start and kept in the database, and the start log says to set it:
   * a key kept beside the rows it seals cannot tell their change by someone who can write the database.
   */
  @IsOptional()
  @ValidateBy(
    { name: 'hmacKey', validator: { validate: (v) => typeof v === 'string' && isBase64Of32Bytes(v) } },
    {
      message: 'AUDIT_HMAC_KEY must be the base64 of 32 random bytes (e.g. openssl rand -base64 32)',
    },
  )
  AUDIT_HMAC_KEY?: string;

  /**
   * Where every login-log and audit-log row is also sent as an RFC 5424 message
   * (docs/operations.md#forwarding-to-syslog): udp:// best effort, tcp:// and tls:// through the outbox.
   */
  @IsOptional()
  @Matches(SYSLOG_URL, {
    message: 'SYSLOG_URL must be udp://host:port, tcp://host:port or tls://host:port',
  })
  SYSLOG_URL?: string;

  /** PEM certificates the tls:// collector's certificate must chain to; unset: the system's trusted CAs. */
  @IsOptional()
  @IsString()
  SYSLOG_CA_FILE?: string;

  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be smtp://[user:pass@]host:port or smtps://...' })
  SMTP_URL?: string;

  @IsOptional()
  @IsString()
  MAIL_FROM?: string;

  @IsOptional()
  @Matches(/^https?:\/\/.+/, { message: 'SMS_WEBHOOK_URL must be an http(s) URL' })
  SMS_WEBHOOK_URL?: string;

  /** Who sends texts: the JSON webhook (SMS_WEBHOOK_URL), Alibaba Cloud or Tencent Cloud SMS (their SDKs). */
  @IsIn(['webhook', 'aliyun', 'tencent'], { message: 'SMS_PROVIDER must be webhook, aliyun or tencent' })
  SMS_PROVIDER: 'webhook' | 'aliyun' | 'tencent' = 'webhook';

  /** aliyun: AccessKey ID; tencent: SecretId. */
  @IsOptional()
  @IsString()
  SMS_ACCESS_KEY_ID?: string;

  /** aliyun: AccessKey secret; tencent: SecretKey. */
  @IsOptional()
  @IsString()
  SMS_ACCESS_KEY_SECRET?: string;

  /** The signature (签名) registered with the provider. */
  @IsOptional()
  @IsString()
  SMS_SIGN_NAME?: string;

  /** tencent: the SmsSdkAppId. */
  @IsOptional()
  @IsString()
  SMS_SDK_APP_ID?: string;

  /** The provider's region (aliyun default cn-hangzhou, tencent ap-guangzhou). */
  @IsOptional()
  @IsString()
  SMS_REGION?: string;

  /** The provider's API host, or an http(s) URL of a stand-in (default: the provider's public endpoint). */
  @IsOptional()
  @IsString()
  SMS_ENDPOINT?: string;

  /** Template ids (aliyun TemplateCode, tencent TemplateId) per message: login, reset and second-step codes (parameter `code`), other notices (`text`). */
  @IsOptional()
  @IsString()
  SMS_TEMPLATE_LOGIN?: string;

  @IsOptional()
  @IsString()
  SMS_TEMPLATE_RESET?: string;

  @IsOptional()
  @IsString()
  SMS_TEMPLATE_MFA?: string;

  @IsOptional()
  @IsString()
  SMS_TEMPLATE_NOTICE?: string;

  /**
   * Wrong-password notices of one account: at most one per window of this many minutes, so that a
   * guessing run does not flood the owner's mailbox or phone (the notice of the failure that locks
   * the account is always sent). 0, the default, tells every wrong password, as the notification
   * rule reads; an operator opts in to the window.
   */
  @Transform(int)
  @IsInt({
    message: 'LOGIN_NOTICE_WINDOW_MINUTES must be a whole number of minutes (0: one notice per wrong password)',
  })
  @Min(0, { message: 'LOGIN_NOTICE_WINDOW_MINUTES must be 0 or more' })
  @Max(1_440, { message: 'LOGIN_NOTICE_WINDOW_MINUTES must be at most 1440 (a day)' })
  LOGIN_NOTICE_WINDOW_MINUTES = 0;

  @Transform(int)
  @IsInt()
  @Min(1024)
  @Max(10 * 1024 * 1024)
  BODY_LIMIT_BYTES = 64 * 1024;

  @IsIn(['log', 'debug', 'verbose', 'warn', 'error', 'fatal', 'info', 'trace'], {
    message: 'LOG_LEVEL must be one of fatal, error, warn, log (or info), debug, verbose (or trace)',
  })
  LOG_LEVEL = 'log';

  /** Unset: pretty in a terminal unless NODE_ENV=production, JSON lines otherwise (service-logger.ts). */
  @IsOptional()
  @IsIn(['json', 'pretty'], {
    message: 'LOG_FORMAT must be json or pretty (unset: pretty in a terminal, json otherwise)',
  })
  LOG_FORMAT?: 'json' | 'pretty';

  /**
   * Per-IP throttling of the public entry points: at most this many requests per client IP
   * and route in each window of THROTTLE_TTL_SECONDS, shared by all instances when REDIS_URL is set.
   * Generous by default: a whole office behind one NAT address must not be locked out of logging in.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(86_400)
  THROTTLE_TTL_SECONDS = 60;

  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  THROTTLE_LOGIN_LIMIT = 600;

  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  THROTTLE_QRCODE_VERIFY_LIMIT = 600;

  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  THROTTLE_CAPTCHA_LIMIT = 600;

  /** /sys/otp/send and /sys/password/forgot per client IP (each account and recipient has its own limits besides). */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  THROTTLE_OTP_SEND_LIMIT = 60;

  /** Origins allowed to call the API from a browser (CORS); unset: no CORS headers at all. */
  @Transform(list)
  @Matches(/^(\*|https?:\/\/[^\s/]+)$/, {
    each: true,
    message: 'CORS_ORIGINS must be a comma-separated list of origins like https://admin.example.com, or *',
  })
  CORS_ORIGINS: string[] = [];

  /**
   * Deadline of every database statement: a statement that waits on a lock or runs
   * longer fails, and the request answers SERVICE_UNAVAILABLE 503 instead of keeping a login
   * waiting for as long as another connection holds a table. Far below a human's patience and
   * far above a healthy statement. Migrations at start run under it too.
   */
  @Transform(int)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DB_STATEMENT_TIMEOUT_MS = 3_000;

  /**
   * Login-log and audit-log rows older than this many days are deleted by a daily job
   * (never rows inside the current failure window). 0 keeps everything. Below 180 the start is
   * refused: China's baseline (网络安全法 art. 21) wants six months of logs kept, and a shorter
   * value is far more likely a slip than a decision (docs/operations.md#logs).
   */
  @Transform(int)
  @IsInt({ message: 'LOG_RETENTION_DAYS must be a whole number of days (0 keeps everything)' })
  @ValidateBy(
    {
      name: 'retentionFloor',
      validator: { validate: (v) => typeof v !== 'number' || v === 0 || v >= MIN_RETENTION_DAYS },
    },
    {
      message: `LOG_RETENTION_DAYS must be 0 (keep everything) or at least ${MIN_RETENTION_DAYS}: logs are kept six months (网络安全法 art. 21)`,
    },
  )
  @Max(36_500, { message: 'LOG_RETENTION_DAYS must be at most 36500' })
  LOG_RETENTION_DAYS = 365;

  /**
   * The bearer token of GET /metrics (Prometheus). Unset: /metrics answers 404.
   * At least 16 characters: it is the only thing between the network and the service's figures.
   */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, {
    message: 'METRICS_TOKEN must be 16 to 256 printable characters without spaces (e.g. openssl rand -hex 24)',
  })
  METRICS_TOKEN?: string;

  /**
   * The IANA zone of the times in texts for people (notifications, reminders), written
   * with their UTC offset; the console shows times in it too (/sys/me/info `displayTimeZone`).
   * Default: the server's zone (TZ, else the system's).
   */
  @ValidateBy(
    { name: 'timeZone', validator: { validate: isTimeZoneName } },
    {
      message: 'DISPLAY_TIMEZONE must be an IANA time zone name such as Asia/Shanghai or UTC',
    },
  )
  DISPLAY_TIMEZONE: string = serverTimeZone();

  /**
   * How long a start waits for the database (DATABASE_URL, MySQL/MariaDB) and Redis (REDIS_URL) to
   * answer, retrying quietly; then it ends with one line naming the variable. Long enough for a
   * container started beside its database, short enough that a wrong address is noticed.
   */
  @Transform(int)
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  START_TIMEOUT_MS = 30_000;

  /**
   * Strict-Transport-Security, in seconds: set it only where every client reaches the service over
   * TLS (behind a TLS-terminating proxy, too), because a browser that has seen the header refuses
   * plain HTTP to the host for that long. Unset or 0: the header is not sent.
   */
  @Transform(int)
  @IsInt({ message: 'HSTS_MAX_AGE must be a whole number of seconds (0 or unset: no Strict-Transport-Security)' })
  @Min(0, { message: 'HSTS_MAX_AGE must be 0 (not sent) or more seconds' })
  @Max(63_072_000, { message: 'HSTS_MAX_AGE must be at most 63072000 seconds (two years)' })
  HSTS_MAX_AGE = 0;

  /**
   * Adds includeSubDomains to Strict-Transport-Security: every subdomain of the host is then
   * refused over plain HTTP as well, which only the operator of the whole domain can vouch for.
   */
  @Transform(bool)
  @IsBoolean({ message: 'HSTS_INCLUDE_SUBDOMAINS must be true or false' })
  HSTS_INCLUDE_SUBDOMAINS = false;

  /**
   * The issuer an authenticator app shows beside the account of a TOTP enrolment (the otpauth://
   * URI's issuer and label prefix, where ':' separates the issuer from the account).
   */
  @Matches(/^(?=.*\S)[^:\p{Cc}]{1,64}$/u, {
    message: 'MFA_ISSUER must be 1 to 64 characters, not only spaces, without ":" or control characters',
  })
  MFA_ISSUER = 'Login Policy Service';

  /**
   * The relying party of passkeys: the domain a passkey is bound to (the console's host or a
   * parent domain of it, never a scheme or port). Unset: the host of each request, fine for one
   * host reached directly; behind a proxy set it, or passkeys break when the Host header differs.
   */
  @IsOptional()
  @Matches(RP_ID, {
    message: 'RP_ID must be a host name such as login.example.com (no scheme, port or path)',
  })
  RP_ID?: string;

  /**
   * The origins the browser may show while a passkey is used (scheme, host, port, as in the
   * address bar). Unset: http and https of the request's own host.
   */
  @IsOptional()
  @Transform(list)
  @ArrayNotEmpty({ message: RP_ORIGINS_RULE })
  @Matches(RP_ORIGIN, { each: true, message: RP_ORIGINS_RULE })
  RP_ORIGINS?: string[];

  /** Schema sync is for throw-away test databases only; production runs migrations. */
  @Transform(bool)
  @IsBoolean()
  DB_DROP_SCHEMA = false;

  /** Whether tokens, captchas and QR codes live in Redis (REDIS_URL or Sentinel) rather than in this process. */
  get usesRedis(): boolean {
    return !!(this.REDIS_URL || this.REDIS_SENTINELS);
  }

  /** REDIS_SENTINELS as node-redis wants them. */
  get redisSentinelNodes(): { host: string; port: number }[] {
    return (this.REDIS_SENTINELS ?? []).map((address) => {
      const [, host, port] = SENTINEL_ADDRESS.exec(address)!;
      return { host: host.replace(/^\[(.*)\]$/, '$1'), port: Number(port) };
    });
  }

  get rsaPrivateKeyPem(): string | undefined {
    if (this.RSA_PRIVATE_KEY) return this.RSA_PRIVATE_KEY.replace(/\\n/g, '\n');
    if (this.RSA_PRIVATE_KEY_FILE) return readFileSync(this.RSA_PRIVATE_KEY_FILE, 'utf8');
    return undefined;
  }
}

export class ConfigError extends Error {}

/**
 * One problem is one line (what a log collector or a person scanning the output sees whole);
 * several are listed under a heading, one a line.
 */
function configError(problems: string[]): ConfigError {
  return new ConfigError(
    problems.length === 1
      ? `Invalid configuration: ${problems[0]}`
      : `Invalid configuration:\n  ${problems.join('\n  ')}`,
  );
}

/** Standard base64 (padding optional) that decodes to exactly 32 bytes. */
export function isBase64Of32Bytes(value: string): boolean {
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(value)) return false;
  return Buffer.from(value, 'base64').length === 32;
}

/** Builds the config from an env-like object; a bad value throws naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  const plain: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    // An empty value counts as unset (an empty DEFAULT_PASSWORD must never become a password).
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const config = plainToInstance(AppConfig, plain);
  const errors = validateSync(config, { whitelist: false });
  if (errors.length) {
    const lines = errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw configError(lines);
  }
  const redisProblem = redisChoiceProblem(config, env);
  if (redisProblem) throw configError([redisProblem]);
  const rp = relyingPartyProblem(config);
  if (rp) throw configError([rp]);
  const hsts = hstsProblem(config);
  if (hsts) throw configError([hsts]);
  if (config.SYSLOG_CA_FILE && !config.SYSLOG_URL?.startsWith('tls://'))
    throw configError(['SYSLOG_CA_FILE: only used with a tls:// SYSLOG_URL']);
  if (config.SYSLOG_CA_FILE) {
    try {
      readFileSync(config.SYSLOG_CA_FILE);
    } catch {
      throw configError([`SYSLOG_CA_FILE: cannot read ${config.SYSLOG_CA_FILE}`]);
    }
  }
  if (config.RSA_PRIVATE_KEY_FILE) {
    try {
      readFileSync(config.RSA_PRIVATE_KEY_FILE);
    } catch {
      throw configError([`RSA_PRIVATE_KEY_FILE: cannot read ${config.RSA_PRIVATE_KEY_FILE}`]);
    }
  }
  return config;
}

/**
 * One Redis, named one way: REDIS_URL, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER. Both at once
 * is refused rather than one silently preferred: sessions would live in a Redis the operator did not
 * mean, and instances configured differently would not share them.
 */
function redisChoiceProblem(config: AppConfig, env: Record<string, string | undefined>): string | undefined {
  if (config.REDIS_SENTINELS && config.REDIS_URL)
    return 'REDIS_URL: set either REDIS_URL (one Redis) or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (Sentinel), not both';
  if (config.REDIS_SENTINELS && !config.REDIS_SENTINEL_MASTER)
    return 'REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS (the name the Sentinels monitor the primary under)';
  if (config.REDIS_SENTINEL_MASTER && !config.REDIS_SENTINELS)
    return 'REDIS_SENTINELS: required with REDIS_SENTINEL_MASTER (host:port,host:port of the Sentinels)';
  if (env.REDIS_SENTINEL_WAIT_REPLICAS && !config.REDIS_SENTINELS)
    return 'REDIS_SENTINEL_WAIT_REPLICAS: only used with REDIS_SENTINELS';
  return undefined;
}

/**
 * A browser refuses a passkey whose RP ID is neither the page's host nor a parent domain of it, so
 * every origin must sit on RP_ID or below it; otherwise no passkey could ever be used there.
 */
function relyingPartyProblem(config: AppConfig): string | undefined {
  if (!config.RP_ID || !config.RP_ORIGINS) return undefined;
  const rpId = config.RP_ID;
  const outside = config.RP_ORIGINS.find((origin) => {
    const host = new URL(origin).hostname;
    return host !== rpId && !host.endsWith(`.${rpId}`);
  });
  return outside ? `RP_ORIGINS: ${outside} is not on RP_ID ${rpId} or a subdomain of it` : undefined;
}

/** includeSubDomains is part of the header HSTS_MAX_AGE turns on: alone it would silently do nothing. */
function hstsProblem(config: AppConfig): string | undefined {
  if (config.HSTS_INCLUDE_SUBDOMAINS && !config.HSTS_MAX_AGE)
    return 'HSTS_INCLUDE_SUBDOMAINS: only used with HSTS_MAX_AGE above 0 (no Strict-Transport-Security is sent without it)';
  return undefined;
}

/** For the entry points: the config, or null after printing why it is invalid (one message, no stack). */
export function loadConfigOrExplain(env: Record<string, string | undefined> = process.env): AppConfig | null {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return null;
  }
}
