import { Injectable } from '@nestjs/common';

import { AccessRuleService } from '../access-rule/access-rule.service';
import type { Bilingual, Locale } from '../common/texts';
import { AppConfig } from '../config/app-config';
import { UserRepository } from '../user-account/user.repository';
import { MLPS3_BASELINE } from './baseline';
import { ControlId, CONTROLS, ControlState, OUTSIDE } from './controls';
import type { ControlsDto } from './dto/controls.dto';

/** The name a first start of `single` mode used before ADMIN_USERNAME, and still does by default. */
const DEFAULT_ACCOUNT = 'admin';

/** Which of the 等保三级 controls are in force on this installation, as the baseline dialog shows them. */
@Injectable()
export class ComplianceService {
  constructor(
    private readonly config: AppConfig,
    private readonly rules: AccessRuleService,
    private readonly users: UserRepository,
  ) {}

  async controls(locale: Locale): Promise<ControlsDto> {
    const found = await this.states();
    return {
      controls: CONTROLS.map(({ id, clause, name }) => ({
        id,
        clause,
        name: name[locale],
        state: found[id].state,
        detail: found[id].detail[locale],
      })),
      outside: OUTSIDE.map(({ id, clause, name, detail }) => ({
        id,
        clause,
        name: name[locale],
        detail: detail[locale],
      })),
      baseline: MLPS3_BASELINE,
    };
  }

  private async states(): Promise<Record<ControlId, { state: ControlState; detail: Bilingual }>> {
    const { ADMIN_MODE, AUDIT_HMAC_KEY, SYSLOG_URL, LOG_RETENTION_DAYS } = this.config;
    const enabledRules = (await this.rules.list()).filter((rule) => rule.enabled).length;
    const defaultAccount = (await this.users.byUsername(DEFAULT_ACCOUNT)) !== null;
    const syslog = SYSLOG_URL?.slice(0, SYSLOG_URL.indexOf(':'));
    return {
      threeAdmins:
        ADMIN_MODE === 'three'
          ? { state: 'on', detail: { zh: 'ADMIN_MODE=three', en: 'ADMIN_MODE=three' } }
          : {
              state: 'off',
              detail: {
                zh: 'ADMIN_MODE=single：一个管理员持有全部权限；新安装时设置 ADMIN_MODE=three',
                en: 'ADMIN_MODE=single: one administrator holds every code; set ADMIN_MODE=three on a new installation',
              },
            },
      defaultAccount: defaultAccount
        ? {
            state: 'off',
            detail: {
              zh: `存在名为 ${DEFAULT_ACCOUNT} 的账号：在用户管理中改名`,
              en: `An account named ${DEFAULT_ACCOUNT} exists: rename it on the users page`,
            },
          }
        : {
            state: 'on',
            detail: { zh: `没有名为 ${DEFAULT_ACCOUNT} 的账号`, en: `No account is named ${DEFAULT_ACCOUNT}` },
          },
      accessRules: enabledRules
        ? { state: 'on', detail: { zh: `${enabledRules} 条规则已启用`, en: `${enabledRules} rule(s) enabled` } }
        : {
            state: 'off',
            detail: {
              zh: '没有启用的规则：管理员可从任何地址、任何时间登录',
              en: 'No rule enabled: administrators may log in from any address at any time',
            },
          },
      auditedActions: {
        state: 'on',
        detail: {
          zh: '每次登录、每个管理操作、本人密码与双因素变更、每次越权访问均有记录',
          en: 'Every login, administrative action, own password and second-factor change and refused request is recorded',
        },
      },
      sealedLogs: AUDIT_HMAC_KEY
        ? { state: 'on', detail: { zh: '密钥来自 AUDIT_HMAC_KEY', en: 'Key from AUDIT_HMAC_KEY' } }
        : {
            state: 'partial',
            detail: {
              zh: '密钥保存在数据库中：能写数据库的人也能重新封存；设置 AUDIT_HMAC_KEY',
              en: 'The key is kept in the database, so whoever writes the database can reseal; set AUDIT_HMAC_KEY',
            },
          },
      forwarding: !syslog
        ? {
            state: 'off',
            detail: { zh: '未设置 SYSLOG_URL', en: 'SYSLOG_URL is not set' },
          }
        : syslog === 'udp'
          ? {
              state: 'partial',
              detail: {
                zh: 'UDP 尽力而为，可能丢失；使用 tcp:// 或 tls://',
                en: 'UDP is best effort and may lose rows; use tcp:// or tls://',
              },
            }
          : {
              state: 'on',
              detail: {
                zh: `${syslog.toUpperCase()}，经发件箱重试`,
                en: `${syslog.toUpperCase()}, retried through the outbox`,
              },
            },
      retention: {
        state: 'on',
        detail:
          LOG_RETENTION_DAYS === 0
            ? { zh: '永久保存（LOG_RETENTION_DAYS=0）', en: 'Kept for good (LOG_RETENTION_DAYS=0)' }
            : {
                zh: `保存 ${LOG_RETENTION_DAYS} 天（LOG_RETENTION_DAYS）`,
                en: `Kept ${LOG_RETENTION_DAYS} days (LOG_RETENTION_DAYS)`,
              },
      },
    };
  }
}
