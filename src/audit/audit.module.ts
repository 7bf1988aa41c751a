import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { AuditLogController } from './audit-log.controller';
import { AuditLogEntity } from './audit-log.entity';
import { AuditLogService } from './audit-log.service';
import { AuditInterceptor } from './audit.interceptor';

/** Issue 5.6: the audit log of administrative actions, filled by @Audited handlers. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntity]), StrategyModule, UserAccountModule, SessionModule],
  controllers: [AuditLogController],
  providers: [AuditLogService, { provide: APP_INTERCEPTOR, useClass: AuditInterceptor }],
  // The audit port, for services that record actions outside an @Audited handler (QR authorisations).
  exports: [AuditLogService],
})
export class AuditModule {}
