import { ADMIN_SETS, PERMISSION_REGISTRY, setsHolding } from './permissions';

describe('the administrator sets of three mode', () => {
  it('put every code of the registry in some set, and only codes of the registry', () => {
    const known = new Set<string>(PERMISSION_REGISTRY.map((p) => p.code));
    expect(PERMISSION_REGISTRY.filter((p) => !setsHolding([p.code]).length).map((p) => p.code)).toEqual([]);
    expect(ADMIN_SETS.flatMap((s) => s.codes).filter((c) => !known.has(c))).toEqual([]);
  });

  it('share only the two list codes, and give the roles their codes and names', () => {
    const shared = PERMISSION_REGISTRY.filter((p) => setsHolding([p.code]).length > 1).map((p) => p.code);
    expect(shared.sort()).toEqual(['sys:role:list', 'sys:user:list']);
    expect(ADMIN_SETS.map((s) => [s.set, s.role, s.name.zh])).toEqual([
      ['system', 'sysadmin', '系统管理员'],
      ['security', 'secadmin', '安全管理员'],
      ['audit', 'auditadmin', '审计管理员'],
    ]);
    expect(setsHolding(['sys:user:grant'])).toEqual(['security']);
    expect(setsHolding(['sys:user:create'])).toEqual(['system']);
  });

  it('hold a set of codes only when one set holds them all; `*` is in none, no codes in all', () => {
    expect(setsHolding(['sys:user:list', 'sys:role:list'])).toEqual(['system', 'security']);
    expect(setsHolding(['sys:user:create', 'sys:role:save'])).toEqual([]);
    expect(setsHolding(['sys:loginLog:list', 'sys:user:list'])).toEqual([]);
    expect(setsHolding(['*'])).toEqual([]);
    expect(setsHolding([])).toEqual(['system', 'security', 'audit']);
  });
});
