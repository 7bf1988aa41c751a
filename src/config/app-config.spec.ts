import { ConfigError, loadConfig } from './app-config';
import { fastifyTrustProxy } from './trust-proxy';

describe('TRUST_PROXY', () => {
  const trust = (value?: string) => loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;

  it('is off by default and with false or 0', () => {
    expect(trust()).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('0')).toBe(false);
  });

  it('true trusts one hop, never every hop (which would take the client-written left-most entry)', () => {
    expect(trust('true')).toBe(1);
    expect(trust(' true ')).toBe(1);
  });

  it('takes a number of hops', () => {
    expect(trust('1')).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('100')).toBe(100);
  });

  it('takes a comma-separated list of proxy addresses and CIDRs, IPv4 and IPv6', () => {
    expect(trust('10.0.0.1')).toEqual(['10.0.0.1']);
    expect(trust('127.0.0.1/32, 10.0.0.0/8,192.168.1.7 , ::1, fd00::/8')).toEqual([
      '127.0.0.1/32',
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
    ]);
  });

  it.each([
    'yes',
    'TRUE',
    '-1',
    '101',
    '1.5',
    '10.0.0.0/33',
    '::/129',
    '10.0.0/8',
    '10.0.0.1,',
    'proxy.example.com',
    '10.0.0.0/8/1',
    '10.0.0.1, loopback',
    '10.0.0.0/ 8',
    '<script>',
    '0.0.0.0/0',
    '::/0',
  ])('refuses %p, naming the variable', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
  });

  it('gives Fastify a hop function that trusts exactly that many hops, and lists and false as they are', () => {
    const two = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2, 3].map((hop) => two('10.0.0.1', hop))).toEqual([true, true, false, false]);
    expect(fastifyTrustProxy(false)).toBe(false);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });
});

describe('MFA_ENCRYPTION_KEY', () => {
  it('takes the base64 of 32 bytes, and is optional', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ MFA_ENCRYPTION_KEY: key }).MFA_ENCRYPTION_KEY).toBe(key);
    expect(loadConfig({}).MFA_ENCRYPTION_KEY).toBeUndefined();
  });

  it.each([
    ['16 bytes', Buffer.alloc(16, 1).toString('base64')],
    ['33 bytes', Buffer.alloc(33, 1).toString('base64')],
    ['hex of 32 bytes', Buffer.alloc(32, 1).toString('hex')],
    ['text', 'my secret key'],
  ])('stops the start naming the variable for %s', (_label, value) => {
    expect(() => loadConfig({ MFA_ENCRYPTION_KEY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ MFA_ENCRYPTION_KEY: value })).toThrow(
      /MFA_ENCRYPTION_KEY: MFA_ENCRYPTION_KEY must be the base64 of 32 random bytes/,
    );
  });
});

describe('LOG_RETENTION_DAYS and METRICS_TOKEN', () => {
  it('keeps 365 days by default; 0 keeps everything', () => {
    expect(loadConfig({}).LOG_RETENTION_DAYS).toBe(365);
    expect(loadConfig({ LOG_RETENTION_DAYS: '0' }).LOG_RETENTION_DAYS).toBe(0);
    expect(loadConfig({ LOG_RETENTION_DAYS: '180' }).LOG_RETENTION_DAYS).toBe(180);
  });

  it.each(['-1', '1.5', 'forever', '36501'])('stops the start naming LOG_RETENTION_DAYS for %p', (value) => {
    expect(() => loadConfig({ LOG_RETENTION_DAYS: value })).toThrow(/LOG_RETENTION_DAYS: LOG_RETENTION_DAYS must/);
  });

  it.each(['1', '30', '179'])('refuses %p days in one line: six months is the floor, 0 still keeps all', (value) => {
    expect(() => loadConfig({ LOG_RETENTION_DAYS: value })).toThrow(
      new ConfigError(
        'Invalid configuration: LOG_RETENTION_DAYS: LOG_RETENTION_DAYS must be 0 (keep everything) or at least 180: logs are kept six months (网络安全法 art. 21)',
      ),
    );
    expect(loadConfig({ LOG_RETENTION_DAYS: '0' }).LOG_RETENTION_DAYS).toBe(0);
  });

  it('leaves /metrics off unless a token is set, and refuses a short or spaced token naming the variable', () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(32) }).METRICS_TOKEN).toBe('a'.repeat(32));
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: METRICS_TOKEN must be 16 to 256/);
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in the middle' })).toThrow(/METRICS_TOKEN/);
  });
});

describe('REDIS_SENTINELS / REDIS_SENTINEL_MASTER', () => {
  const sentinel = { REDIS_SENTINELS: 'redis-s1:26379, 10.0.0.2:26380,[::1]:26381', REDIS_SENTINEL_MASTER: 'lps-main' };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it('takes the Sentinels as host:port (names, IPv4, bracketed IPv6) and the master name; waits for 1 replica by default', () => {
    const config = loadConfig(sentinel);
    expect(config.redisSentinelNodes).toEqual([
      { host: 'redis-s1', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
      { host: '::1', port: 26381 },
    ]);
    expect(config.REDIS_SENTINEL_MASTER).toBe('lps-main');
    expect(config.REDIS_SENTINEL_WAIT_REPLICAS).toBe(1);
    expect(config.usesRedis).toBe(true);
    expect(loadConfig({ ...sentinel, REDIS_SENTINEL_WAIT_REPLICAS: '0' }).REDIS_SENTINEL_WAIT_REPLICAS).toBe(0);
  });

  it('is off by default: no Redis at all, or REDIS_URL', () => {
    expect(loadConfig({}).usesRedis).toBe(false);
    expect(loadConfig({}).redisSentinelNodes).toEqual([]);
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).usesRedis).toBe(true);
  });

  it.each(['redis://s1:26379', 's1', 's1:', 's1:0', 's1:26379;s2:26379', ',', 's1:26379,s2', '::1:26379', 's 1:26379'])(
    'refuses REDIS_SENTINELS=%p, naming the variable',
    (value) => {
      expect(refusal({ ...sentinel, REDIS_SENTINELS: value })).toContain(
        'REDIS_SENTINELS: REDIS_SENTINELS must be host:port,host:port',
      );
    },
  );

  it('wants both variables or neither, naming the missing one', () => {
    expect(refusal({ REDIS_SENTINELS: sentinel.REDIS_SENTINELS })).toBe(
      'Invalid configuration: REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS (the name the Sentinels monitor the primary under)',
    );
    expect(refusal({ REDIS_SENTINEL_MASTER: 'lps-main' })).toBe(
      'Invalid configuration: REDIS_SENTINELS: required with REDIS_SENTINEL_MASTER (host:port,host:port of the Sentinels)',
    );
    expect(refusal({ ...sentinel, REDIS_SENTINEL_MASTER: 'lps main' })).toContain(
      'REDIS_SENTINEL_MASTER: REDIS_SENTINEL_MASTER must be the name',
    );
  });

  it('refuses Sentinel together with REDIS_URL rather than silently preferring one', () => {
    expect(refusal({ ...sentinel, REDIS_URL: 'redis://127.0.0.1:6379' })).toBe(
      'Invalid configuration: REDIS_URL: set either REDIS_URL (one Redis) or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (Sentinel), not both',
    );
  });

  it('REDIS_SENTINEL_WAIT_REPLICAS: 0 to 16, and only with Sentinel', () => {
    expect(refusal({ ...sentinel, REDIS_SENTINEL_WAIT_REPLICAS: '-1' })).toContain('REDIS_SENTINEL_WAIT_REPLICAS');
    expect(refusal({ ...sentinel, REDIS_SENTINEL_WAIT_REPLICAS: 'all' })).toContain('REDIS_SENTINEL_WAIT_REPLICAS');
    expect(refusal({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_SENTINEL_WAIT_REPLICAS: '1' })).toBe(
      'Invalid configuration: REDIS_SENTINEL_WAIT_REPLICAS: only used with REDIS_SENTINELS',
    );
  });
});

describe('DISPLAY_TIMEZONE', () => {
  it("defaults to the server's zone and takes IANA names", () => {
    expect(loadConfig({}).DISPLAY_TIMEZONE).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(loadConfig({ DISPLAY_TIMEZONE: 'Asia/Shanghai' }).DISPLAY_TIMEZONE).toBe('Asia/Shanghai');
  });

  it.each(['Mars/Olympus', '+08:00', 'GMT+8 ', 'Asia/Shanghai;'])('refuses %p naming the variable', (value) => {
    expect(() => loadConfig({ DISPLAY_TIMEZONE: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DISPLAY_TIMEZONE: value })).toThrow(
      /DISPLAY_TIMEZONE: DISPLAY_TIMEZONE must be an IANA time zone name/,
    );
  });
});

describe('START_TIMEOUT_MS', () => {
  it('is 30 s by default and takes milliseconds', () => {
    expect(loadConfig({}).START_TIMEOUT_MS).toBe(30_000);
    expect(loadConfig({ START_TIMEOUT_MS: '5000' }).START_TIMEOUT_MS).toBe(5_000);
  });

  it.each(['0', '999', '600001', 'soon'])('stops the start naming the variable for %s', (value) => {
    expect(() => loadConfig({ START_TIMEOUT_MS: value })).toThrow(/START_TIMEOUT_MS: /);
  });
});

describe('LOGIN_NOTICE_WINDOW_MINUTES', () => {
  it('tells every wrong password by default (0); a window folds them when set', () => {
    expect(loadConfig({}).LOGIN_NOTICE_WINDOW_MINUTES).toBe(0);
    expect(loadConfig({ LOGIN_NOTICE_WINDOW_MINUTES: '0' }).LOGIN_NOTICE_WINDOW_MINUTES).toBe(0);
    expect(loadConfig({ LOGIN_NOTICE_WINDOW_MINUTES: '60' }).LOGIN_NOTICE_WINDOW_MINUTES).toBe(60);
  });

  it.each(['-1', '2.5', 'hourly', '1441'])('stops the start naming LOGIN_NOTICE_WINDOW_MINUTES for %p', (value) => {
    expect(() => loadConfig({ LOGIN_NOTICE_WINDOW_MINUTES: value })).toThrow(
      /LOGIN_NOTICE_WINDOW_MINUTES: LOGIN_NOTICE_WINDOW_MINUTES must/,
    );
  });
});

describe('ADMIN_USERNAME, AUDIT_HMAC_KEY, SYSLOG_URL and SYSLOG_CA_FILE', () => {
  it('names the first-start account admin unless set; a set name is checked (and normalised) as a user name', () => {
    expect(loadConfig({}).ADMIN_USERNAME).toBe('admin');
    expect(loadConfig({ ADMIN_USERNAME: 'root.ops' }).ADMIN_USERNAME).toBe('root.ops');
    expect(loadConfig({ ADMIN_USERNAME: 'ｒｏｏｔ' }).ADMIN_USERNAME).toBe('root');
    for (const bad of ['a', 'has space', 'ad@min', 'x'.repeat(65)]) {
      expect(() => loadConfig({ ADMIN_USERNAME: bad })).toThrow(/ADMIN_USERNAME: ADMIN_USERNAME must be 2-64 letters/);
    }
  });

  it('keeps one administrator unless ADMIN_MODE is three, and refuses another mode in one line naming the variable', () => {
    expect(loadConfig({}).ADMIN_MODE).toBe('single');
    expect(loadConfig({ ADMIN_MODE: 'three' }).ADMIN_MODE).toBe('three');
    for (const bad of ['3', 'THREE', 'triple']) {
      expect(() => loadConfig({ ADMIN_MODE: bad })).toThrow(
        'Invalid configuration: ADMIN_MODE: ADMIN_MODE must be single (one administrator holding *) or three (system, security and audit administrators)',
      );
    }
  });

  it('takes the sealing key as the base64 of 32 bytes, and is optional', () => {
    const key = Buffer.alloc(32, 3).toString('base64');
    expect(loadConfig({ AUDIT_HMAC_KEY: key }).AUDIT_HMAC_KEY).toBe(key);
    expect(loadConfig({}).AUDIT_HMAC_KEY).toBeUndefined();
    expect(() => loadConfig({ AUDIT_HMAC_KEY: 'secret' })).toThrow(
      'Invalid configuration: AUDIT_HMAC_KEY: AUDIT_HMAC_KEY must be the base64 of 32 random bytes (e.g. openssl rand -base64 32)',
    );
  });

  it('takes udp://, tcp:// and tls:// host:port for syslog, and refuses anything else naming the variable', () => {
    for (const url of ['udp://10.0.0.5:514', 'tcp://syslog.example:601', 'tls://[::1]:6514'])
      expect(loadConfig({ SYSLOG_URL: url }).SYSLOG_URL).toBe(url);
    for (const bad of ['syslog.example:514', 'http://syslog:514', 'tcp://syslog', 'udp://a b:514', 'tcp://h:0']) {
      expect(() => loadConfig({ SYSLOG_URL: bad })).toThrow(
        /SYSLOG_URL: SYSLOG_URL must be udp:\/\/host:port, tcp:\/\/host:port or tls:\/\/host:port/,
      );
    }
  });

  it('takes a CA file only with tls:// and only one it can read', () => {
    expect(() => loadConfig({ SYSLOG_URL: 'tcp://h:601', SYSLOG_CA_FILE: __filename })).toThrow(
      'Invalid configuration: SYSLOG_CA_FILE: only used with a tls:// SYSLOG_URL',
    );
    expect(() => loadConfig({ SYSLOG_URL: 'tls://h:6514', SYSLOG_CA_FILE: '/nonexistent/ca.pem' })).toThrow(
      'Invalid configuration: SYSLOG_CA_FILE: cannot read /nonexistent/ca.pem',
    );
    expect(loadConfig({ SYSLOG_URL: 'tls://h:6514', SYSLOG_CA_FILE: __filename }).SYSLOG_CA_FILE).toBe(__filename);
  });
});
