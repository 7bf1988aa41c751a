import { TrustedClients } from './trusted-clients';

describe('TrustedClients', () => {
  it('knows an account and IP that logged in, whatever the case of the account, for 30 days', () => {
    const sut = new TrustedClients();
    const now = Date.UTC(2026, 0, 1);
    sut.add('Alice', '10.0.0.1', now);
    expect(sut.has('alice ', '10.0.0.1', now)).toBe(true);
    expect(sut.has('alice', '10.0.0.2', now)).toBe(false);
    expect(sut.has('bob', '10.0.0.1', now)).toBe(false);
    expect(sut.has('alice', '10.0.0.1', now + 30 * 86_400_000 - 1)).toBe(true);
    expect(sut.has('alice', '10.0.0.1', now + 30 * 86_400_000)).toBe(false);
  });
});
