import { codesBeyond, mayGrant } from './grants';

describe('mayGrant (nobody grants more than they hold)', () => {
  it('allows codes the caller holds, and granting nothing', () => {
    expect(mayGrant(['sys:user:list', 'sys:user:create'], ['sys:user:list'])).toBe(true);
    expect(mayGrant(['sys:user:list'], ['sys:user:list', 'sys:user:list'])).toBe(true);
    expect(mayGrant([], [])).toBe(true);
  });

  it('refuses any code the caller lacks, and names it once', () => {
    expect(mayGrant(['sys:user:list'], ['sys:user:list', 'sys:user:create'])).toBe(false);
    expect(codesBeyond(['sys:user:list'], ['sys:role:save', 'sys:user:list', 'sys:role:save'])).toEqual([
      'sys:role:save',
    ]);
    expect(mayGrant([], ['sys:user:list'])).toBe(false);
  });

  it('treats * as a code of its own for a caller without it: no wider grant hides behind it', () => {
    expect(mayGrant(['sys:role:save'], ['*'])).toBe(false);
    expect(codesBeyond(['sys:role:save', 'sys:user:list'], ['*', 'sys:user:list'])).toEqual(['*']);
  });

  it('lets a * holder grant anything, * included', () => {
    expect(mayGrant(['*'], ['*', 'sys:user:create', 'anything:else'])).toBe(true);
  });

  it('compares codes exactly: a case variant is a different code', () => {
    expect(mayGrant(['sys:user:list'], ['SYS:USER:LIST'])).toBe(false);
  });
});
