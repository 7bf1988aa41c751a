import type { Bilingual } from './texts';

/**
 * Every permission code the service knows: the one registry. Routes name
 * their code through RequirePermissions, whose parameter type is a code of this list, so a route
 * cannot require a code that is not here; /sys/permission/list answers this list, and
 * test/architecture/permission-registry.e2e-spec.ts checks that every code here gates some route. A new
 * permission is one line here and its @RequirePermissions. `module` groups the codes (the console's
 * tree); `name` is what people read.
 */
export const PERMISSION_REGISTRY = [
  { code: 'sys:strategy:login:info', module: 'strategy', name: { zh: '查看登录策略', en: 'View the login strategy' } },
  { code: 'sys:strategy:login:save', module: 'strategy', name: { zh: '保存登录策略', en: 'Save the login strategy' } },
  { code: 'sys:strategy:user:info', module: 'strategy', name: { zh: '查看账号策略', en: 'View the account strategy' } },
  { code: 'sys:strategy:user:save', module: 'strategy', name: { zh: '保存账号策略', en: 'Save the account strategy' } },
  { code: 'sys:user:list', module: 'user', name: { zh: '查看用户', en: 'List users' } },
  { code: 'sys:user:create', module: 'user', name: { zh: '新建用户', en: 'Create users' } },
  { code: 'sys:user:update', module: 'user', name: { zh: '编辑用户', en: 'Edit users' } },
  { code: 'sys:user:delete', module: 'user', name: { zh: '删除用户', en: 'Delete users' } },
  { code: 'sys:user:lock', module: 'user', name: { zh: '锁定用户', en: 'Lock users' } },
  { code: 'sys:user:unlock', module: 'user', name: { zh: '解锁用户', en: 'Unlock users' } },
  { code: 'sys:user:disable', module: 'user', name: { zh: '禁用用户', en: 'Disable users' } },
  { code: 'sys:user:enable', module: 'user', name: { zh: '启用用户', en: 'Enable users' } },
  { code: 'sys:user:resetPass', module: 'user', name: { zh: '重置密码', en: 'Reset passwords' } },
  { code: 'sys:user:mfaReset', module: 'user', name: { zh: '重置双因素认证', en: 'Reset two-factor authentication' } },
  { code: 'sys:user:grant', module: 'user', name: { zh: '分配角色', en: "Grant users' roles" } },
  {
    code: 'sys:user:pii',
    module: 'user',
    name: { zh: '查看完整手机号与邮箱', en: 'See whole mobile numbers and e-mails' },
  },
  { code: 'sys:role:list', module: 'role', name: { zh: '查看角色', en: 'List roles' } },
  { code: 'sys:role:save', module: 'role', name: { zh: '保存角色', en: 'Save roles' } },
  { code: 'sys:role:delete', module: 'role', name: { zh: '删除角色', en: 'Delete roles' } },
  { code: 'sys:loginLog:list', module: 'loginLog', name: { zh: '查看登录日志', en: 'View the login log' } },
  { code: 'sys:loginLog:export', module: 'loginLog', name: { zh: '导出登录日志', en: 'Export the login log' } },
  { code: 'sys:online:list', module: 'online', name: { zh: '查看在线用户', en: 'List online sessions' } },
  { code: 'sys:online:kickout', module: 'online', name: { zh: '强制下线', en: 'End sessions' } },
  { code: 'sys:auditLog:list', module: 'auditLog', name: { zh: '查看审计日志', en: 'View the audit log' } },
  { code: 'sys:auditLog:export', module: 'auditLog', name: { zh: '导出审计日志', en: 'Export the audit log' } },
  { code: 'sys:apiKey:list', module: 'apiKey', name: { zh: '查看API密钥', en: 'List API keys' } },
  { code: 'sys:apiKey:create', module: 'apiKey', name: { zh: '新建API密钥', en: 'Create API keys' } },
  { code: 'sys:apiKey:revoke', module: 'apiKey', name: { zh: '吊销API密钥', en: 'Revoke API keys' } },
  { code: 'sys:webhook:list', module: 'webhook', name: { zh: '查看Webhook', en: 'List webhooks' } },
  { code: 'sys:webhook:save', module: 'webhook', name: { zh: '保存Webhook', en: 'Save webhooks' } },
  { code: 'sys:webhook:delete', module: 'webhook', name: { zh: '删除Webhook', en: 'Delete webhooks' } },
  { code: 'sys:token:introspect', module: 'token', name: { zh: '令牌校验', en: 'Introspect tokens' } },
  {
    code: 'sys:accessRule:list',
    module: 'accessRule',
    name: { zh: '查看登录访问规则', en: 'View login access rules' },
  },
  {
    code: 'sys:accessRule:save',
    module: 'accessRule',
    name: { zh: '保存登录访问规则', en: 'Save login access rules' },
  },
  {
    code: 'sys:accessRule:delete',
    module: 'accessRule',
    name: { zh: '删除登录访问规则', en: 'Delete login access rules' },
  },
  { code: 'sys:auditLog:verify', module: 'auditLog', name: { zh: '校验日志完整性', en: 'Verify the logs' } },
] as const satisfies readonly { code: string; module: string; name: Bilingual }[];

export type PermissionCode = (typeof PERMISSION_REGISTRY)[number]['code'];

/**
 * Codes that gate no route of their own but widen what routes answer: `sys:user:pii` shows mobile numbers and
 * e-mails whole where the lists mask them (docs/security.md#personal-data).
 */
export const WIDENING_CODES: readonly PermissionCode[] = ['sys:user:pii'];

/** The three administrators' sets of ADMIN_MODE=three (三员分立). */
export const ADMIN_SET_NAMES = ['system', 'security', 'audit'] as const;
export type AdminSet = (typeof ADMIN_SET_NAMES)[number];

/**
 * The one table of 三员分立 (docs/security.md#three-administrators): each set's built-in role (its
 * code is also the first-start account's user name) and the codes it may hold. In ADMIN_MODE=three
 * every role's codes, and every user's roles together, lie within one set; a code may be in two sets
 * (`sys:user:list`, `sys:role:list`). permissions.spec.ts checks that every code
 * of the registry is in some set.
 */
export const ADMIN_SETS = [
  {
    set: 'system',
    role: 'sysadmin',
    name: { zh: '系统管理员', en: 'System administrator' },
    codes: [
      'sys:user:list',
      'sys:user:create',
      'sys:user:update',
      'sys:user:delete',
      'sys:user:lock',
      'sys:user:unlock',
      'sys:user:disable',
      'sys:user:enable',
      'sys:user:resetPass',
      'sys:user:mfaReset',
      'sys:user:pii',
      'sys:online:list',
      'sys:online:kickout',
      'sys:role:list',
      'sys:apiKey:list',
      'sys:apiKey:create',
      'sys:apiKey:revoke',
      'sys:token:introspect',
    ],
  },
  {
    set: 'security',
    role: 'secadmin',
    name: { zh: '安全管理员', en: 'Security administrator' },
    codes: [
      'sys:strategy:login:info',
      'sys:strategy:login:save',
      'sys:strategy:user:info',
      'sys:strategy:user:save',
      'sys:role:list',
      'sys:role:save',
      'sys:role:delete',
      'sys:user:list',
      'sys:user:grant',
      'sys:accessRule:list',
      'sys:accessRule:save',
      'sys:accessRule:delete',
      'sys:webhook:list',
      'sys:webhook:save',
      'sys:webhook:delete',
    ],
  },
  {
    set: 'audit',
    role: 'auditadmin',
    name: { zh: '审计管理员', en: 'Audit administrator' },
    codes: [
      'sys:loginLog:list',
      'sys:loginLog:export',
      'sys:auditLog:list',
      'sys:auditLog:export',
      'sys:auditLog:verify',
    ],
  },
] as const satisfies readonly { set: AdminSet; role: string; name: Bilingual; codes: readonly PermissionCode[] }[];

/** The sets that hold every one of `codes` (all three for none; none when a code is in no set, `*` included). */
export function setsHolding(codes: readonly string[]): AdminSet[] {
  return ADMIN_SETS.filter((s) => codes.every((c) => (s.codes as readonly string[]).includes(c))).map((s) => s.set);
}
