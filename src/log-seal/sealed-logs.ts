import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { AuditLogEntity, auditLogSealFields } from '../audit/audit-log.entity';
import type { SealedTable } from '../audit/sealed-log-columns';
import { LoginLogEntity, loginLogSealFields } from '../login-log/login-log.entity';
import { SealedEntity, SealedLogRepository } from './sealed-log.repository';

/** The two sealed logs, each through its SealedLogRepository. */
@Injectable()
export class SealedLogs {
  readonly loginLog: SealedLogRepository;
  readonly auditLog: SealedLogRepository;

  constructor(
    @InjectRepository(LoginLogEntity) loginRows: Repository<LoginLogEntity>,
    @InjectRepository(AuditLogEntity) auditRows: Repository<AuditLogEntity>,
  ) {
    this.loginLog = new SealedLogRepository(loginRows as unknown as Repository<SealedEntity>, {
      table: 'sys_login_log',
      timeColumn: 'login_time',
      fields: (row) => loginLogSealFields(row as unknown as LoginLogEntity),
    });
    this.auditLog = new SealedLogRepository(auditRows as unknown as Repository<SealedEntity>, {
      table: 'sys_audit_log',
      timeColumn: 'create_time',
      fields: (row) => auditLogSealFields(row as unknown as AuditLogEntity),
    });
  }

  /** Both, the login log first (the order of a verification's answer). */
  get all(): SealedLogRepository[] {
    return [this.loginLog, this.auditLog];
  }

  of(table: SealedTable): SealedLogRepository {
    return table === 'sys_login_log' ? this.loginLog : this.auditLog;
  }
}
