import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AccessDeniedListener } from './access-denied.listener';
import { AuditLogController } from './audit-log.controller';
import { AuditLogEntity } from './audit-log.entity';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogService } from './audit-log.service';
import { LOG_PII_CIPHER } from './log-pii';
import { LOG_ROW_SEAL } from './sealed-log-columns';

/**
 * The audit log of administrative actions. The features record their own actions
 * through the port (AuditLogService) where they happen; this module depends on none of them.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntity])],
  controllers: [AuditLogController],
  // LOG_ROW_SEAL: the MAC of each row, filled by the seal module (src/log-seal); LOG_PII_CIPHER: the
  // sealing of the personal data a row masks, filled by the personal-data module (src/pii).
  providers: [
    AuditLogService,
    AuditLogRepository,
    AccessDeniedListener,
    LOG_ROW_SEAL.provide(),
    LOG_PII_CIPHER.provide(),
  ],
  exports: [AuditLogService],
})
export class AuditModule {}
