import { codeOf } from '../../test/support/code-of';
import { ErrorCode } from '../common/error-code';
import { loadConfig } from '../config/app-config';
import { AdminModeRules, THREE_ADMIN_ROLES } from './admin-mode';

describe('AdminModeRules', () => {
  const three = new AdminModeRules(loadConfig({ ADMIN_MODE: 'three' }));
  const single = new AdminModeRules(loadConfig({}));
  const refused = (check: () => void) => codeOf(Promise.resolve().then(check));

  it('keeps a role within one set and a user within one set in three mode only', async () => {
    const mixed = ['sys:user:create', 'sys:loginLog:list'];
    expect(await refused(() => three.assertRoleInOneSet(mixed))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(await refused(() => three.assertRoleInOneSet(['*']))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(await refused(() => three.assertRoleInOneSet(['sys:user:list', 'sys:user:grant']))).toBe('ok');
    expect(await refused(() => single.assertRoleInOneSet(mixed))).toBe('ok');
    const roles = [
      { code: 'a', name: 'a', permissions: ['sys:user:list'] },
      { code: 'b', name: 'b', permissions: ['sys:auditLog:list'] },
    ];
    expect(await refused(() => three.assertUserInOneSet(roles))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(await refused(() => three.assertUserInOneSet([roles[0], THREE_ADMIN_ROLES[1]]))).toBe('ok');
  });

  it('keeps the three built-in roles in three mode, and none of them in single mode', async () => {
    expect(await refused(() => three.assertNotBuiltIn('secadmin'))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(await refused(() => three.assertNotBuiltIn('admin'))).toBe('ok');
    expect(await refused(() => single.assertNotBuiltIn('secadmin'))).toBe('ok');
  });

  it('names each role and each user whose roles lie in no one set', () => {
    const roles = [
      { code: 'admin', name: 'admin', permissions: ['*'] },
      { code: 'helpdesk', name: 'h', permissions: ['sys:user:lock'] },
      { code: 'auditor', name: 'a', permissions: ['sys:loginLog:list'] },
      { code: 'viewer', name: 'v', permissions: ['sys:user:list'] },
    ];
    const members = [
      { roleCode: 'admin', username: 'admin' },
      { roleCode: 'helpdesk', username: 'two' },
      { roleCode: 'auditor', username: 'two' },
      { roleCode: 'helpdesk', username: 'one' },
      { roleCode: 'viewer', username: 'one' },
    ];
    expect(three.violations(roles, members)).toEqual([
      { kind: 'role', name: 'admin', roles: ['admin'] },
      { kind: 'user', name: 'admin', roles: ['admin'] },
      { kind: 'user', name: 'two', roles: ['auditor', 'helpdesk'] },
    ]);
  });
});
