import { LoginTypes } from '../login-log/login-log.entity';
import {
  hasControlOrFormat,
  hasHiddenOrSpace,
  identifiersOf,
  LOGIN_TYPE_OF,
  loginCandidates,
  matchLogin,
  mixesScripts,
  normaliseIdentifier,
} from './user-identifier';

describe('login identifiers (unique across fields, compared the same on every database)', () => {
  it('folds case for user names and e-mails, never accents; mobiles stay exact', () => {
    expect(normaliseIdentifier('username', 'Admin')).toBe('admin');
    expect(normaliseIdentifier('email', 'José.Ruiz@Example.COM')).toBe('josé.ruiz@example.com');
    expect(normaliseIdentifier('email', 'jose@example.com')).not.toBe(normaliseIdentifier('email', 'josé@example.com'));
    expect(normaliseIdentifier('mobile', '+8613800138000')).toBe('+8613800138000');
  });

  it('compares every identifier in NFKC: full width and NFD are the plain forms', () => {
    expect(normaliseIdentifier('username', '\uff21\uff24\uff2d\uff29\uff2e')).toBe('admin');
    expect(normaliseIdentifier('email', 'Jose\u0301@example.com')).toBe('jos\u00e9@example.com');
    expect(normaliseIdentifier('mobile', '\uff11\uff13\uff18')).toBe('138');
    expect(loginCandidates('\uff21dmin')).toEqual(['admin', 'Admin']);
  });

  it('finds invisible, white-space and mixed-script characters', () => {
    for (const hidden of ['a\u200bb', 'a\u202eb', 'a b', 'a\u3000b', 'a\tb', 'a\u00adb', 'a\u3164b'])
      expect(hasHiddenOrSpace(hidden)).toBe(true);
    expect(hasHiddenOrSpace('jos\u00e9@example.com')).toBe(false);
    expect(hasControlOrFormat('\u5f20 \u4e09')).toBe(false);
    expect(hasControlOrFormat('a\u202eb')).toBe(true);
    expect(mixesScripts('\u0430dmin@example.com')).toBe(true);
    expect(mixesScripts('admin@ex\u0430mple.com')).toBe(true);
    expect(mixesScripts('\u03b1dmin@example.com')).toBe(true);
    expect(mixesScripts('\u0438\u0432\u0430\u043d@example.com')).toBe(false);
    expect(mixesScripts('jos\u00e9.1@example.com')).toBe(false);
  });

  it('gives one identifier per field that is set', () => {
    expect(identifiersOf({ username: 'Zhang', mobile: null, email: 'Z@X.org' })).toEqual([
      { kind: 'username', value: 'zhang' },
      { kind: 'email', value: 'z@x.org' },
    ]);
    expect(identifiersOf({ username: 'a', mobile: '139', email: undefined })).toEqual([
      { kind: 'username', value: 'a' },
      { kind: 'mobile', value: '139' },
    ]);
  });

  it('matches a login in the order user name, mobile, e-mail, whatever order the rows come in', () => {
    const stored = [
      { kind: 'email' as const, value: 'x@y.z', userId: 'e' },
      { kind: 'mobile' as const, value: '13800138000', userId: 'm' },
      { kind: 'username' as const, value: '13800138000', userId: 'u' },
    ];
    expect(matchLogin('13800138000', stored)?.userId).toBe('u');
    expect(matchLogin('X@Y.Z', stored)?.userId).toBe('e');
    expect(matchLogin('nobody', stored)).toBeUndefined();
    expect(LOGIN_TYPE_OF[matchLogin('x@y.z', stored)!.kind]).toBe(LoginTypes.EMAIL);
  });

  it('looks a login up under each of its normalisations once', () => {
    expect(loginCandidates('ADMIN')).toEqual(['admin', 'ADMIN']);
    expect(loginCandidates('13800138000')).toEqual(['13800138000']);
  });
});
