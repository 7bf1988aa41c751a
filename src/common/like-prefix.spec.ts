import { likePrefix } from './like-prefix';

describe('likePrefix', () => {
  it("appends the wildcard and escapes the input's wildcards and the escape character", () => {
    expect(likePrefix('adm')).toBe('adm%');
    expect(likePrefix('a%')).toBe('a!%%');
    expect(likePrefix('a_b')).toBe('a!_b%');
    expect(likePrefix('x!y')).toBe('x!!y%');
    expect(likePrefix('c:\\dir')).toBe('c:\\dir%');
  });
});
