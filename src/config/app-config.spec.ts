import { ConfigError, loadConfig } from './app-config';
import { fastifyTrustProxy } from './trust-proxy';

describe('TRUST_PROXY (contract §11 "Client IP")', () => {
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
    expect(trust('127.0.0.1/32, 10.0.0.0/8,192.168.1.7 , ::1, fd00::/8')).toEqual(
      ['127.0.0.1/32', '10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8']);
  });

  it.each([
    'yes', 'TRUE', '-1', '101', '1.5', '10.0.0.0/33', '::/129', '10.0.0/8', '10.0.0.1,', 'proxy.example.com',
    '10.0.0.0/8/1', '10.0.0.1, loopback', '10.0.0.0/ 8', '<script>', '0.0.0.0/0', '::/0',
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

describe('MFA_ENCRYPTION_KEY (contract §8)', () => {
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
    expect(() => loadConfig({ MFA_ENCRYPTION_KEY: value })).toThrow(/MFA_ENCRYPTION_KEY: MFA_ENCRYPTION_KEY must be the base64 of 32 random bytes/);
  });
});

describe('START_TIMEOUT_MS (issue 16.2)', () => {
  it('is 30 s by default and takes milliseconds', () => {
    expect(loadConfig({}).START_TIMEOUT_MS).toBe(30_000);
    expect(loadConfig({ START_TIMEOUT_MS: '5000' }).START_TIMEOUT_MS).toBe(5_000);
  });

  it.each(['0', '999', '600001', 'soon'])('stops the start naming the variable for %s', (value) => {
    expect(() => loadConfig({ START_TIMEOUT_MS: value })).toThrow(/START_TIMEOUT_MS: /);
  });
});
