import type { Bilingual } from '../common/texts';

/** Whether a control is in force: `partial` is on with a gap the operator closes (its detail says which). */
export type ControlState = 'on' | 'partial' | 'off';

/**
 * The 等保三级 controls the service itself provides (GB/T 22239-2019), each with the clause it
 * serves. The one table the console's baseline dialog and the README's checklist are written from
 * (test/docs/compliance-checklist.spec.ts keeps the READMEs in step).
 */
export const CONTROLS = [
  {
    id: 'threeAdmins',
    clause: '8.1.4.2 d, 8.1.5.1–8.1.5.3',
    name: { zh: '三员分立（系统、安全、审计管理员）', en: 'Three administrators (system, security, audit)' },
  },
  {
    id: 'defaultAccount',
    clause: '8.1.4.2 b',
    name: { zh: '默认账户已重命名', en: 'Default account renamed' },
  },
  {
    id: 'accessRules',
    clause: '8.1.4.4 c',
    name: { zh: '登录访问规则（网络地址、时间）', en: 'Login access rules (addresses, times)' },
  },
  {
    id: 'auditedActions',
    clause: '8.1.4.3 a, b',
    name: {
      zh: '登录日志与审计日志（含本人安全变更、越权访问）',
      en: 'Login and audit logs (own security changes and refusals included)',
    },
  },
  {
    id: 'sealedLogs',
    clause: '8.1.4.3 c',
    name: { zh: '日志防篡改（HMAC 链）', en: 'Tamper-evident logs (HMAC chain)' },
  },
  {
    id: 'forwarding',
    clause: '8.1.5.4 d',
    name: { zh: '日志外发（syslog）', en: 'Logs forwarded (syslog)' },
  },
  {
    id: 'retention',
    clause: '8.1.4.3 c',
    name: {
      zh: '日志保存不少于六个月（网络安全法第二十一条）',
      en: 'Logs kept six months or more (Cybersecurity Law art. 21)',
    },
  },
] as const satisfies readonly { id: string; clause: string; name: Bilingual }[];

export type ControlId = (typeof CONTROLS)[number]['id'];

/** What the operator must still do outside the service for the same assessment. */
export const OUTSIDE = [
  {
    id: 'tls',
    clause: '8.1.4.1 c',
    name: { zh: '启用 HTTPS', en: 'HTTPS' },
    detail: {
      zh: '在服务前配置 TLS（示例见 docs/nginx/login-policy.conf）：密码字段虽经加密，令牌与其余数据只有 TLS 保护',
      en: 'Put TLS in front of the service (docs/nginx/login-policy.conf): password fields are encrypted, tokens and everything else only TLS protects',
    },
  },
  {
    id: 'backups',
    clause: '8.1.4.9 a',
    name: { zh: '数据库备份', en: 'Database backups' },
    detail: {
      zh: '定期备份数据库并演练恢复；AUDIT_HMAC_KEY、MFA_ENCRYPTION_KEY 与备份分开保存',
      en: 'Back up the database and rehearse a restore; keep AUDIT_HMAC_KEY and MFA_ENCRYPTION_KEY apart from the backups',
    },
  },
  {
    id: 'timeSync',
    clause: '8.1.4.3 b',
    name: { zh: '时钟同步', en: 'Clock synchronisation' },
    detail: {
      zh: '服务器启用 NTP，日志时间才可作为证据',
      en: 'Run NTP on the servers, so that the logs’ times hold as evidence',
    },
  },
  {
    id: 'collector',
    clause: '8.1.5.4 d',
    name: { zh: '日志服务器', en: 'Log collector' },
    detail: {
      zh: '接收 SYSLOG_URL 的日志服务器保存日志不少于六个月，且不受本服务管理员控制',
      en: 'The collector behind SYSLOG_URL keeps the rows six months or more, out of reach of this service’s administrators',
    },
  },
] as const satisfies readonly { id: string; clause: string; name: Bilingual; detail: Bilingual }[];
