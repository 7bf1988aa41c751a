import type { Permission } from '@/api/user';

/** A node of the console's permission tree (el-tree): a module with its codes under it. */
export interface PermissionNode {
  id: string;
  label: string;
  children?: PermissionNode[];
  disabled?: boolean;
}

/**
 * The codes grouped by module, as the role and API-key pages offer them: a code the caller cannot
 * grant is shown but not tickable (nobody grants more than they hold), and a module whose codes are
 * all out of reach is not tickable either. Module node ids are `module:<module>`.
 */
export function permissionTree(
  permissions: readonly Permission[],
  { canGrant, moduleName }: { canGrant: (code: string) => boolean; moduleName: (module: string) => string },
): PermissionNode[] {
  const groups = new Map<string, PermissionNode[]>();
  for (const p of permissions) {
    const list = groups.get(p.module) ?? [];
    list.push({ id: p.code, label: `${p.name}  ${p.code}`, disabled: !canGrant(p.code) });
    groups.set(p.module, list);
  }
  return [...groups].map(([module, children]) => ({
    id: `module:${module}`,
    label: moduleName(module),
    children,
    disabled: children.every((c) => c.disabled),
  }));
}
