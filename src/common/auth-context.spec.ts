import { apiKeyReaches } from './auth-context';

describe('apiKeyReaches', () => {
  it('lets a key reach routes gated by codes, outside the caller’s own account, the keys and the token operations', () => {
    expect(apiKeyReaches('/sys/user/list', ['sys:user:list'], false)).toBe(true);
    expect(apiKeyReaches('/sys/token/introspect', ['sys:token:introspect'], false)).toBe(true);
    // Only whole path segments are refused.
    expect(apiKeyReaches('/sys/mentions/list', ['sys:user:list'], false)).toBe(true);
  });

  it('refuses routes without codes, needing a fresh proof, and the refused paths whatever their codes', () => {
    expect(apiKeyReaches('/sys/logout', [], false)).toBe(false);
    expect(apiKeyReaches('/sys/user/mfa/reset', ['sys:user:mfaReset'], true)).toBe(false);
    for (const path of ['/sys/me/info', '/sys/me', '/sys/apiKey/list', '/sys/token/revoke', '/sys/token']) {
      expect([path, apiKeyReaches(path, ['sys:user:list'], false)]).toEqual([path, false]);
    }
  });
});
